package memstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// A record a crash cut short is skipped, and the next record starts on a
// line of its own, numbered after the last complete one.
func TestHistoryTornRecord(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	stack := state.StackID{Project: "p", Stack: "dev"}
	l, err := st.Lock(ctx, stack, "update")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock(ctx)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := state.HistoryEntry{Kind: "update", Result: state.HistorySucceeded, StartTime: now, EndTime: now}
	if err := st.RecordHistory(ctx, stack, e); err != nil {
		t.Fatal(err)
	}
	torn := append(st.Files(stack)["history"], `{"version":2,"kind":"upd`...)
	st.SetFile(stack, "history", torn)
	if got, err := st.History(ctx, stack); err != nil || len(got) != 1 || got[0].Version != 1 {
		t.Fatalf("History with a torn record = %+v, %v; want version 1 alone", got, err)
	}
	e.Kind = "destroy"
	if err := st.RecordHistory(ctx, stack, e); err != nil {
		t.Fatal(err)
	}
	got, err := st.History(ctx, stack)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Kind != "destroy" || got[0].Version != 2 || got[1].Version != 1 {
		t.Errorf("History after the next record = %+v; want destroy (2), then update (1)", got)
	}
}
