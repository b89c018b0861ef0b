package state_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

func urn(typ, name string) resource.URN { return resource.NewURN("dev", "site", "", typ, name) }

// An update as the engine runs it: lock, load, journal each step, commit.
func ExampleNewFileStore() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "groundwork-example")
	defer os.RemoveAll(dir)

	// WithIterations keeps the example fast; real code keeps the default.
	store, err := state.NewFileStore(dir, state.WithSecrets(
		state.PassphraseSecrets("my passphrase", secrets.WithIterations(1000))))
	if err != nil {
		panic(err)
	}
	lock, err := store.Lock(ctx, "dev", "update")
	if err != nil {
		panic(err) // a *state.LockedError says who is at work
	}
	defer lock.Unlock(ctx)

	base, err := store.Load(ctx, "dev") // empty: the stack is new
	if err != nil {
		panic(err)
	}
	journal, err := store.OpenJournal(ctx, "dev", base)
	if err != nil {
		panic(err)
	}
	defer journal.Close(ctx)

	prov := &resource.State{Type: "pulumi:providers:local", URN: urn("pulumi:providers:local", "default"), Custom: true, ID: "p1"}
	file := &resource.State{
		Type: "local:index:File", URN: urn("local:index:File", "index"), Custom: true, ID: "index.html",
		Provider: string(prov.URN) + "::p1",
		Inputs:   resource.PropertyMap{"content": resource.NewSecret(resource.NewString("<h1>hi</h1>"))},
	}
	for _, r := range []*resource.State{prov, file} {
		// Journal the step before the provider call, its end after.
		seq, err := journal.Append(ctx, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: r})
		if err != nil {
			panic(err)
		}
		// ... the provider creates the resource here ...
		if _, err := journal.Append(ctx, state.Entry{Kind: state.EntrySuccess, Begin: seq, New: r}); err != nil {
			panic(err)
		}
	}
	final, err := journal.Commit(ctx)
	if err != nil {
		panic(err)
	}
	for _, r := range final.Resources {
		fmt.Println(r.URN.Name(), r.ID)
	}
	// Output:
	// default p1
	// index index.html
}

// A crash between a step's begin and its end leaves a pending operation,
// which the next Load reports.
func ExampleNewMemoryStore() {
	ctx := context.Background()
	store := state.NewMemoryStore()
	lock, _ := store.Lock(ctx, "dev", "update")
	journal, _ := store.OpenJournal(ctx, "dev", nil)

	prov := &resource.State{Type: "pulumi:providers:random", URN: urn("pulumi:providers:random", "default"), Custom: true, ID: "p1"}
	_, _ = journal.Append(ctx, state.Entry{Kind: state.EntryWrite, New: prov})
	pet := &resource.State{Type: "random:index:Pet", URN: urn("random:index:Pet", "pet"), Custom: true, Provider: string(prov.URN) + "::p1"}
	_, _ = journal.Append(ctx, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: pet})
	// The process dies here. The next one loads the stack:
	_ = lock

	snap, err := store.Load(ctx, "dev")
	if err != nil {
		panic(err)
	}
	fmt.Println(len(snap.Resources), "resource recorded")
	for _, op := range snap.PendingOperations {
		fmt.Println("pending:", op.Kind, op.Resource.URN.Name())
	}
	// Output:
	// 1 resource recorded
	// pending: creating pet
}

func ExampleSnapshot_VerifyIntegrity() {
	parent := &resource.State{Type: "my:index:Component", URN: urn("my:index:Component", "parent")}
	child := &resource.State{Type: "my:index:Component", URN: urn("my:index:Component", "child"), Parent: parent.URN}
	snap := &state.Snapshot{Resources: []*resource.State{child, parent}}

	var ie *state.IntegrityError
	if err := snap.VerifyIntegrity(); errors.As(err, &ie) {
		fmt.Println(ie.URN.Name(), ie.Rule)
	}
	// Output:
	// child parent-order
}

// A second operation on a locked stack fails at once and says who holds it.
func ExampleLockedError() {
	ctx := context.Background()
	store := state.NewMemoryStore()
	lock, _ := store.Lock(ctx, "dev", "update")
	defer lock.Unlock(ctx)

	_, err := store.Lock(ctx, "dev", "destroy")
	var le *state.LockedError
	if errors.As(err, &le) {
		fmt.Println(le.Stack, le.Holder.Operation, le.Holder.PID == os.Getpid())
	}
	// Output:
	// dev update true
}
