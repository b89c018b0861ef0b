package storetest_test

import (
	"testing"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/memstore"
	"github.com/groundwork-iac/groundwork/state/storetest"
)

// A store runs the suite against itself with a Harness that opens clients
// over one storage and reaches the bytes it keeps. Here, the memory store.
func ExampleRun() {
	var t *testing.T // the test's own, in a TestXxx function
	first := memstore.New()
	storetest.Run(t, storetest.Harness{
		Open:        func(t *testing.T, opts ...state.Option) state.Store { return first.Reopen(opts...) },
		Snapshot:    func(t *testing.T, stack state.StackID) []byte { return first.Files(stack)["snapshot.json"] },
		SetSnapshot: func(t *testing.T, stack state.StackID, data []byte) { first.SetFile(stack, "snapshot.json", data) },
		Journal:     func(t *testing.T, stack state.StackID) []byte { return first.Files(stack)["journal"] },
		SetJournal:  func(t *testing.T, stack state.StackID, data []byte) { first.SetFile(stack, "journal", data) },
		// Expire stays nil: a memory store's locks do not lapse.
	})
}
