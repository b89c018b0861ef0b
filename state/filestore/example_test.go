package filestore_test

import (
	"context"
	"fmt"
	"os"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/backendstore"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// An update as the engine runs it: lock, load, journal each step, commit.
func ExampleNew() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "groundwork-example")
	defer os.RemoveAll(dir)

	// WithIterations keeps the example fast; real code keeps the default.
	store, err := filestore.New(dir, state.WithSecrets(
		state.PassphraseSecrets("my passphrase", secrets.WithIterations(1000))))
	if err != nil {
		panic(err)
	}
	lock, err := store.Lock(ctx, dev, "update")
	if err != nil {
		panic(err) // a *state.LockedError says who is at work
	}
	defer lock.Unlock(ctx)

	base, err := store.Load(ctx, dev) // empty: the stack is new
	if err != nil {
		panic(err)
	}
	journal, err := store.OpenJournal(ctx, dev, base)
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

func urn(typ, name string) resource.URN { return resource.NewURN("dev", "site", "", typ, name) }

// The file store is the store every backend runs, over a Backend of
// files: the same folder read through backendstore.New over NewBackend.
func ExampleNewBackend() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "groundwork-example")
	defer os.RemoveAll(dir)

	files, err := filestore.New(dir)
	if err != nil {
		panic(err)
	}
	prov := &resource.State{Type: "pulumi:providers:local", URN: urn("pulumi:providers:local", "default"), Custom: true, ID: "p1"}
	if err := files.Save(ctx, dev, &state.Snapshot{Resources: []*resource.State{prov}}); err != nil {
		panic(err)
	}

	b, err := filestore.NewBackend(dir, state.GroupCommit)
	if err != nil {
		panic(err)
	}
	same := backendstore.New(b)
	snap, err := same.Load(ctx, dev)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(snap.Resources), snap.Resources[0].URN.Name())
	// Output:
	// 1 default
}

// dev is the stack the examples work on: project site's stack dev.
var dev = state.StackID{Project: "site", Stack: "dev"}
