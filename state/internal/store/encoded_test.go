package store

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/internal/format"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
)

// richBucket is a bucket whose property maps exercise the encoder: keys
// out of order, nested objects and arrays, numbers, booleans, nulls and,
// when secret is set, a secret.
func richBucket(i int, prov *resource.State, secret bool) *resource.State {
	b := newBucket(name(i), prov)
	b.Inputs = resource.PropertyMap{
		"zeta":  resource.NewString(fmt.Sprintf("z-%d", i)),
		"alpha": resource.NewNumber(float64(i) + 0.5),
		"mid": resource.NewObject(resource.PropertyMap{
			"y": resource.NewArray(resource.NewBool(true), resource.NewNull(), resource.NewString("x")),
			"b": resource.NewObject(resource.PropertyMap{"k": resource.NewNumber(1), "a": resource.NewString("q\"uote\n")}),
		}),
	}
	b.Outputs = b.Inputs.Copy()
	b.Outputs["arn"] = resource.NewString("arn:" + name(i))
	if secret {
		b.Outputs["password"] = resource.NewSecret(resource.NewString(fmt.Sprintf("s3cr3t-%d", i)))
	}
	return b
}

// TestCommitCopiesEntryEncodings checks that the snapshot a commit writes
// from the encodings its entries left is the snapshot encoding them again
// would give: the same bytes without secrets (encryption draws a fresh
// nonce each time), the same resources once loaded with them.
func TestCommitCopiesEntryEncodings(t *testing.T) {
	ctx := context.Background()
	for _, secret := range []bool{false, true} {
		t.Run(fmt.Sprintf("secrets=%t", secret), func(t *testing.T) {
			s := NewMemoryStore(fastSecrets())
			mustLock(t, s, "dev")
			base := chainStack(0)
			prov := base.Resources[0]
			j := openJournalT(t, s, "dev", base)
			var live []*resource.State
			for i := range 40 {
				b := richBucket(i, prov, secret)
				create(t, j, b)
				live = append(live, b)
			}
			// An update, a delete and an instant write: each leaves the
			// record it replaces behind in the cache, which must not be
			// copied into the snapshot.
			up := live[3].Clone()
			up.Outputs["zeta"] = resource.NewString("changed")
			seq := mustAppend(t, j, state.Entry{Kind: state.EntryBegin, Op: resource.OperationUpdating, Old: live[3], New: up})
			mustAppend(t, j, state.Entry{Kind: state.EntrySuccess, Begin: seq, Old: live[3], New: up})
			seq = mustAppend(t, j, state.Entry{Kind: state.EntryBegin, Op: resource.OperationDeleting, Old: live[5]})
			mustAppend(t, j, state.Entry{Kind: state.EntrySuccess, Begin: seq, Old: live[5]})
			marked := live[7].Clone()
			marked.Protect = true
			mustAppend(t, j, state.Entry{Kind: state.EntryWrite, Old: live[7], New: marked})

			if got := j.(*journal).encoded.Len(); got != 42 {
				t.Fatalf("the journal remembers %d encodings; want 42 (40 creates, an update, a write)", got)
			}
			snap, err := j.Commit(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if j.(*journal).encoded.Len() != 0 {
				t.Error("the journal still remembers encodings after the commit")
			}
			stored := s.Files("dev")[fileSnapshot]
			if !secret {
				again, err := format.EncodeSnapshot(ctx, snap, j.(*journal).mgr, 0, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(stored, again) {
					t.Errorf("the committed snapshot differs from a fresh encoding of it:\n%s\nwant:\n%s", stored, again)
				}
			}
			if err := j.Close(ctx); err != nil {
				t.Fatal(err)
			}
			loaded, err := s.Load(ctx, "dev")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(snap, loaded, snapshotOpts, propertyOpts); diff != "" {
				t.Errorf("the committed snapshot, loaded (-committed +loaded):\n%s", diff)
			}
			if len(loaded.Resources) != 40 {
				t.Errorf("loaded %d resources; want 40 (a provider and 40 buckets, one deleted)", len(loaded.Resources))
			}
		})
	}
}

// TestLoadSharesOutputsWrittenAsInputs checks that outputs written exactly
// as their resource's inputs load as the inputs' very map, and that any
// difference — a value, a secret's fresh ciphertext — loads them apart.
func TestLoadSharesOutputsWrittenAsInputs(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore(fastSecrets())
	base := chainStack(0)
	prov := base.Resources[0]
	echo := newBucket("echo", prov)
	echo.Outputs = echo.Inputs.Copy()
	differs := newBucket("differs", prov)
	differs.Outputs = differs.Inputs.Copy()
	differs.Outputs["name"] = resource.NewString("other")
	secret := newBucket("secret", prov)
	secret.Inputs["password"] = resource.NewSecret(resource.NewString("s3cr3t"))
	secret.Outputs = secret.Inputs.Copy()
	base.Resources = append(base.Resources, echo, differs, secret)
	if err := s.Save(ctx, "dev", base); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(ctx, "dev")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(base, got, snapshotOpts, propertyOpts); diff != "" {
		t.Fatalf("loaded (-saved +loaded):\n%s", diff)
	}
	byName := map[string]*resource.State{}
	for _, r := range got.Resources {
		byName[r.URN.Name()] = r
	}
	same := func(r *resource.State) bool {
		return reflect.ValueOf(r.Inputs).UnsafePointer() == reflect.ValueOf(r.Outputs).UnsafePointer()
	}
	for name, want := range map[string]bool{"echo": true, "differs": false, "secret": false} {
		if got := same(byName[name]); got != want {
			t.Errorf("%s: outputs share the inputs' map = %t, want %t", name, got, want)
		}
	}
}
