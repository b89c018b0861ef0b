package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/state"
)

// history checks the optional history ability (state.HistoryRecorder and
// state.HistoryReader): entries are recorded under the stack's lock only,
// numbered in order, read back newest first by any client, checked before
// they are written, and removed with the stack.
func (s *suite) history(t *testing.T) {
	st := s.open(t)
	rec, ok := st.(state.HistoryRecorder)
	if !ok {
		t.Skip("the store keeps no history (it is no state.HistoryRecorder)")
	}
	if _, ok := st.(state.HistoryReader); !ok {
		t.Fatal("the store is a state.HistoryRecorder but no state.HistoryReader")
	}
	stack := id("history")
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	entry := func(kind string, result state.HistoryResult, msg string, min int, changes map[string]int) state.HistoryEntry {
		start := t0.Add(time.Duration(min) * time.Minute)
		return state.HistoryEntry{Kind: kind, Result: result, Message: msg, StartTime: start,
			EndTime: start.Add(30 * time.Second), ResourceChanges: changes}
	}
	first := entry("update", state.HistorySucceeded, "first: ünïcode and \"quotes\"\nover two lines", 0, map[string]int{"create": 2})

	if err := rec.RecordHistory(bg(), stack, first); !errors.Is(err, state.ErrNotLocked) {
		t.Fatalf("RecordHistory without the lock = %v; want ErrNotLocked", err)
	}
	l := mustLock(t, st, stack)
	mustSave(t, st, stack, chain(2))
	want := []state.HistoryEntry{
		first,
		entry("refresh", state.HistoryFailed, "", 1, map[string]int{"same": 2}),
		entry("destroy", state.HistoryCancelled, "", 2, map[string]int{"delete": 1}),
	}
	for i, e := range want {
		e.Version = 99 // the store numbers entries itself
		if err := rec.RecordHistory(bg(), stack, e); err != nil {
			t.Fatalf("RecordHistory(%s): %v", e.Kind, err)
		}
		want[i].Version = i + 1
	}
	for _, bad := range []state.HistoryEntry{
		{Result: state.HistorySucceeded},
		{Kind: "update", Result: "perhaps"},
	} {
		if err := rec.RecordHistory(bg(), stack, bad); err == nil {
			t.Errorf("RecordHistory(%+v) = nil; want it refused", bad)
		}
	}
	// Another client holds no lock: it reads, but may not write.
	other := s.open(t)
	if err := other.(state.HistoryRecorder).RecordHistory(bg(), stack, first); !errors.Is(err, state.ErrNotLocked) {
		t.Errorf("RecordHistory by a client without the lock = %v; want ErrNotLocked", err)
	}
	if err := l.Unlock(bg()); err != nil {
		t.Fatal(err)
	}
	got, err := other.(state.HistoryReader).History(bg(), stack)
	if err != nil {
		t.Fatalf("History: %v", err)
	}
	newestFirst := []state.HistoryEntry{want[2], want[1], want[0]}
	if diff := cmp.Diff(newestFirst, got); diff != "" {
		t.Errorf("History (-want +got):\n%s", diff)
	}
	if got, err := other.(state.HistoryReader).History(bg(), id("history-none")); err != nil || len(got) != 0 {
		t.Errorf("History of a stack with none = %v, %v; want nothing and no error", got, err)
	}
	if err := st.Remove(bg(), stack); err != nil {
		t.Fatal(err)
	}
	if got, err := s.open(t).(state.HistoryReader).History(bg(), stack); err != nil || len(got) != 0 {
		t.Errorf("History after Remove = %v, %v; want nothing", got, err)
	}
}

// longHistory checks the numbering of a history longer than the end a
// store reads to number the next entry (state.HistoryTailReader): each
// entry is one more than the last.
func (s *suite) longHistory(t *testing.T) {
	st := s.open(t)
	rec, ok := st.(state.HistoryRecorder)
	if !ok {
		t.Skip("the store keeps no history (it is no state.HistoryRecorder)")
	}
	stack := id("long-history")
	l := mustLock(t, st, stack)
	defer l.Unlock(bg())
	const n = 100 // about 20 KiB of records
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range n {
		e := state.HistoryEntry{Kind: "update", Result: state.HistorySucceeded, Message: fmt.Sprintf("entry %d", i+1),
			StartTime: t0, EndTime: t0, ResourceChanges: map[string]int{"same": i}}
		if err := rec.RecordHistory(bg(), stack, e); err != nil {
			t.Fatalf("RecordHistory %d: %v", i+1, err)
		}
	}
	got, err := st.(state.HistoryReader).History(bg(), stack)
	if err != nil || len(got) != n {
		t.Fatalf("History = %d entries, %v; want %d", len(got), err, n)
	}
	for i, e := range got {
		if want := n - i; e.Version != want || e.Message != fmt.Sprintf("entry %d", want) {
			t.Fatalf("History[%d] = version %d %q; want version %d", i, e.Version, e.Message, want)
		}
	}
}
