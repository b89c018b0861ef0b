package memstore_test

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// A crash between a step's begin and its end leaves a pending operation,
// which the next Load reports.
func ExampleNew() {
	ctx := context.Background()
	store := memstore.New()
	lock, _ := store.Lock(ctx, dev, "update")
	journal, _ := store.OpenJournal(ctx, dev, nil)

	prov := &resource.State{Type: "pulumi:providers:random", URN: urn("pulumi:providers:random", "default"), Custom: true, ID: "p1"}
	_, _ = journal.Append(ctx, state.Entry{Kind: state.EntryWrite, New: prov})
	pet := &resource.State{Type: "random:index:Pet", URN: urn("random:index:Pet", "pet"), Custom: true, Provider: string(prov.URN) + "::p1"}
	_, _ = journal.Append(ctx, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: pet})
	// The process dies here. The next one loads the stack:
	_ = lock

	snap, err := store.Load(ctx, dev)
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

func urn(typ, name string) resource.URN { return resource.NewURN("dev", "site", "", typ, name) }

// dev is the stack the examples work on: project site's stack dev.
var dev = state.StackID{Project: "site", Stack: "dev"}
