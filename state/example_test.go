package state_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

func urn(typ, name string) resource.URN { return resource.NewURN("dev", "site", "", typ, name) }

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
	store := memstore.New()
	dev := state.StackID{Project: "site", Stack: "dev"}
	lock, _ := store.Lock(ctx, dev, "update")
	defer lock.Unlock(ctx)

	_, err := store.Lock(ctx, dev, "destroy")
	var le *state.LockedError
	if errors.As(err, &le) {
		fmt.Println(le.Stack, le.Holder.Operation, le.Holder.PID == os.Getpid())
	}
	// Output:
	// site/dev update true
}
