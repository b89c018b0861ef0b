package postgres

import (
	"testing"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/storetest"
)

func TestConformance(t *testing.T) {
	schema := newSchema(t)
	r := newRaw(t, schema)
	storetest.Run(t, storetest.Harness{
		Open:        func(t *testing.T, opts ...state.Option) state.Store { return openStore(t, schema, 0, opts...) },
		Snapshot:    func(t *testing.T, stack state.StackID) []byte { return r.snapshot(stack) },
		SetSnapshot: func(t *testing.T, stack state.StackID, data []byte) { r.setSnapshot(stack, data) },
		Journal:     func(t *testing.T, stack state.StackID) []byte { return r.journal(stack) },
		SetJournal:  func(t *testing.T, stack state.StackID, data []byte) { r.setJournal(stack, data) },
		Expire:      func(t *testing.T, stack state.StackID) { r.expire(stack) },
	})
}
