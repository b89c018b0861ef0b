package state

import (
	"context"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// Helpers shared by the tests: small stacks built from a provider and some
// custom resources, fast secrets, and go-cmp options for snapshots.

const testPassphrase = "correct horse battery staple"

func fastSecrets() Option {
	return WithSecrets(PassphraseSecrets(testPassphrase, secrets.WithIterations(1000)))
}

func testURN(typ, name string) resource.URN { return resource.NewURN("dev", "proj", "", typ, name) }

func newProvider(name, id string) *resource.State {
	return &resource.State{Type: "pulumi:providers:aws", URN: testURN("pulumi:providers:aws", name), Custom: true, ID: resource.ID(id)}
}

func providerRef(p *resource.State) string { return string(p.URN) + "::" + string(p.ID) }

// newBucket is a custom resource managed by prov, depending on deps.
func newBucket(name string, prov *resource.State, deps ...resource.URN) *resource.State {
	return &resource.State{
		Type: "aws:s3/bucket:Bucket", URN: testURN("aws:s3/bucket:Bucket", name), Custom: true,
		ID: resource.ID(name + "-id"), Provider: providerRef(prov), Dependencies: deps,
		Inputs:  resource.PropertyMap{"name": resource.NewString(name)},
		Outputs: resource.PropertyMap{"name": resource.NewString(name), "arn": resource.NewString("arn:" + name)},
	}
}

// chainStack returns a provider followed by n buckets, each depending on
// the one before.
func chainStack(n int) *Snapshot {
	p := newProvider("default", "p1")
	s := &Snapshot{Resources: []*resource.State{p}}
	var prev resource.URN
	for i := range n {
		var deps []resource.URN
		if prev != "" {
			deps = []resource.URN{prev}
		}
		b := newBucket(name(i), p, deps...)
		s.Resources = append(s.Resources, b)
		prev = b.URN
	}
	return s
}

func name(i int) string { return "b" + strconv.Itoa(i) }

// snapshotOpts compare snapshots by content: empty and nil slices and maps
// are the same, manifests and secrets states are ignored.
var snapshotOpts = cmp.Options{
	cmpopts.EquateEmpty(),
	cmpopts.IgnoreFields(Snapshot{}, "Manifest", "Secrets"),
}

func urns(s *Snapshot) []resource.URN {
	var out []resource.URN
	for _, r := range s.Resources {
		out = append(out, r.URN)
	}
	return out
}

func mustLock(t testing.TB, s Store, stack StackID) Lock {
	t.Helper()
	l, err := s.Lock(context.Background(), stack, "update")
	if err != nil {
		t.Fatalf("Lock: %v", err)
	}
	t.Cleanup(func() { _ = l.Unlock(context.Background()) })
	return l
}

func mustAppend(t testing.TB, j Journal, e Entry) uint64 {
	t.Helper()
	seq, err := j.Append(context.Background(), e)
	if err != nil {
		t.Fatalf("Append(%s %s): %v", e.Kind, entryURN(e), err)
	}
	return seq
}

func entryURN(e Entry) resource.URN {
	if e.New != nil {
		return e.New.URN
	}
	if e.Old != nil {
		return e.Old.URN
	}
	return ""
}

// create records a whole create step: begin, then success.
func create(t testing.TB, j Journal, r *resource.State) {
	t.Helper()
	b := mustAppend(t, j, Entry{Kind: EntryBegin, Op: resource.OperationCreating, New: r})
	mustAppend(t, j, Entry{Kind: EntrySuccess, Begin: b, New: r})
}

// propertyOpts compare property values by content.
var propertyOpts = cmp.Options{
	cmp.Comparer(func(a, b resource.PropertyValue) bool { return a.DeepEquals(b) && a.String() == b.String() }),
}
