package journal

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/internal/format"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// memStorage keeps a stack's snapshot and journal in memory.
type memStorage struct {
	mu                sync.Mutex
	snapshot, journal []byte
}

func (m *memStorage) WriteSnapshot(_ context.Context, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.snapshot, m.journal = bytes.Clone(data), nil
	return nil
}

func (m *memStorage) WriteJournal(_ context.Context, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.journal = bytes.Clone(data)
	return nil
}

func (m *memStorage) AppendJournal(_ context.Context, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.journal = append(m.journal, data...)
	return nil
}

func testURN(typ, name string) resource.URN { return resource.NewURN("dev", "proj", "", typ, name) }

// richBucket is a bucket whose property maps exercise the encoder: keys
// out of order, nested objects and arrays, numbers, booleans, nulls and,
// when secret is set, a secret.
func richBucket(i int, prov *resource.State, secret bool) *resource.State {
	name := fmt.Sprintf("b%d", i)
	b := &resource.State{
		Type: "aws:s3/bucket:Bucket", URN: testURN("aws:s3/bucket:Bucket", name), Custom: true,
		ID: resource.ID(name + "-id"), Provider: string(prov.URN) + "::" + string(prov.ID),
	}
	b.Inputs = resource.PropertyMap{
		"zeta":  resource.NewString(fmt.Sprintf("z-%d", i)),
		"alpha": resource.NewNumber(float64(i) + 0.5),
		"mid": resource.NewObject(resource.PropertyMap{
			"y": resource.NewArray(resource.NewBool(true), resource.NewNull(), resource.NewString("x")),
			"b": resource.NewObject(resource.PropertyMap{"k": resource.NewNumber(1), "a": resource.NewString("q\"uote\n")}),
		}),
	}
	b.Outputs = b.Inputs.Copy()
	b.Outputs["arn"] = resource.NewString("arn:" + name)
	if secret {
		b.Outputs["password"] = resource.NewSecret(resource.NewString(fmt.Sprintf("s3cr3t-%d", i)))
	}
	return b
}

func mustAppend(t *testing.T, j *Journal, e state.Entry) uint64 {
	t.Helper()
	seq, err := j.Append(context.Background(), e)
	if err != nil {
		t.Fatalf("Append(%s): %v", e.Kind, err)
	}
	return seq
}

// TestCommitCopiesEntryEncodings checks that the snapshot a commit writes
// from the encodings its entries left is the snapshot encoding them again
// would give: the same bytes without secrets (encryption draws a fresh
// nonce each time), the same resources once decoded with them.
func TestCommitCopiesEntryEncodings(t *testing.T) {
	ctx := context.Background()
	for _, secret := range []bool{false, true} {
		t.Run(fmt.Sprintf("secrets=%t", secret), func(t *testing.T) {
			mgr, err := secrets.NewPassphrase("correct horse battery staple", secrets.WithIterations(1000))
			if err != nil {
				t.Fatal(err)
			}
			prov := &resource.State{Type: "pulumi:providers:aws", URN: testURN("pulumi:providers:aws", "default"), Custom: true, ID: "p1"}
			st := &memStorage{}
			j, err := Open(ctx, Config{
				Stack: state.StackID{Project: "test", Stack: "dev"}, Base: &state.Snapshot{Resources: []*resource.State{prov}}, Secrets: mgr, Storage: st,
				Stamp:       func() state.Manifest { return state.Manifest{Time: time.Now(), Version: state.FormatVersion} },
				LimitFactor: 4, LimitExtra: 64 << 20,
			})
			if err != nil {
				t.Fatal(err)
			}
			var live []*resource.State
			for i := range 40 {
				b := richBucket(i, prov, secret)
				seq := mustAppend(t, j, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: b})
				mustAppend(t, j, state.Entry{Kind: state.EntrySuccess, Begin: seq, New: b})
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

			if got := j.encoded.Len(); got != 42 {
				t.Fatalf("the journal remembers %d encodings; want 42 (40 creates, an update, a write)", got)
			}
			snap, err := j.Commit(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if j.encoded.Len() != 0 {
				t.Error("the journal still remembers encodings after the commit")
			}
			stored := bytes.Clone(st.snapshot)
			if !secret {
				again, err := format.EncodeSnapshot(ctx, snap, mgr, 0, nil)
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
			open := func(context.Context, *state.SecretsState) (secrets.Manager, error) { return mgr, nil }
			decoded, _, err := format.DecodeSnapshot(ctx, string(stored), open, &format.SnapshotAuth{Stack: state.StackID{Project: "test", Stack: "dev"}, Keyed: true})
			if err != nil {
				t.Fatal(err)
			}
			opts := cmp.Options{
				cmpopts.EquateEmpty(), cmpopts.IgnoreFields(state.Snapshot{}, "Manifest", "Secrets"),
				cmp.Comparer(func(a, b resource.PropertyValue) bool { return a.DeepEquals(b) && a.String() == b.String() }),
			}
			if diff := cmp.Diff(snap, decoded, opts); diff != "" {
				t.Errorf("the committed snapshot, decoded (-committed +decoded):\n%s", diff)
			}
			if len(decoded.Resources) != 40 {
				t.Errorf("decoded %d resources; want 40 (a provider and 40 buckets, one deleted)", len(decoded.Resources))
			}
		})
	}
}
