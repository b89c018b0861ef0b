package storeurl_test

import (
	"context"
	"fmt"
	"log"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/storeurl"
)

// A tool takes where to keep its stacks as one setting: a folder, a
// postgres:// URL, or memory:// in its tests.
func ExampleOpen() {
	ctx := context.Background()
	store, err := storeurl.Open(ctx, "memory://")
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	if err := store.Save(ctx, state.StackID{Project: "site", Stack: "dev"}, &state.Snapshot{}); err != nil {
		log.Fatal(err)
	}
	stacks, _ := store.List(ctx)
	fmt.Println(stacks)
	// Output: [site/dev]
}
