package state

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// HistoryEntry is one operation recorded in a stack's history: what ran,
// how it ended, when, how many resources each kind of change touched, and
// the message its user gave. It holds no property value, so no secret:
// Message is the user's own text, the rest are names, counts and times.
type HistoryEntry struct {
	// Version numbers the stack's recorded operations from 1, in the
	// order they were recorded. The store assigns it: RecordHistory
	// ignores the value it is given.
	Version int `json:"version"`
	// Kind is the operation: "update", "refresh", "destroy" or "import".
	// (Previews change nothing and are not recorded.)
	Kind string `json:"kind"`
	// Result is how the operation ended.
	Result HistoryResult `json:"result"`
	// Message is the user's description of the operation ("" for none).
	Message string `json:"message,omitempty"`
	// StartTime and EndTime bound the operation.
	StartTime time.Time `json:"startTime"`
	EndTime   time.Time `json:"endTime"`
	// ResourceChanges counts the resources each kind of change touched
	// ("create", "update", "same", ...); kinds that touched none are
	// left out.
	ResourceChanges map[string]int `json:"resourceChanges,omitempty"`
}

// HistoryResult is how a recorded operation ended.
type HistoryResult string

// The results of a recorded operation.
const (
	// HistorySucceeded: the operation did all it set out to do.
	HistorySucceeded HistoryResult = "succeeded"
	// HistoryFailed: the operation ended with an error (the state still
	// records every change that completed).
	HistoryFailed HistoryResult = "failed"
	// HistoryCancelled: the operation was stopped (its context was
	// cancelled) before it finished.
	HistoryCancelled HistoryResult = "cancelled"
)

// Check reports whether e can be recorded: a Kind and one of the known
// Results.
func (e HistoryEntry) Check() error {
	if e.Kind == "" {
		return errors.New("a history entry needs the operation's kind")
	}
	switch e.Result {
	case HistorySucceeded, HistoryFailed, HistoryCancelled:
		return nil
	}
	return fmt.Errorf("a history entry's result must be %q, %q or %q, not %q",
		HistorySucceeded, HistoryFailed, HistoryCancelled, e.Result)
}

// HistoryRecorder is implemented by stores that keep a history of the
// operations run on each stack: the file, memory and PostgreSQL stores of
// this module, and backendstore.New over any HistoryBackend. The engine records
// an entry as each operation that changes a stack ends, while it still
// holds the stack's lock; with a store that is no HistoryRecorder it
// records nothing, and the operation itself is unaffected.
type HistoryRecorder interface {
	// RecordHistory adds e, numbered after the stack's last entry, to
	// the stack's history. The caller must hold the stack's lock through
	// this store (else an error wrapping ErrNotLocked); an entry that
	// fails Check is refused. Entries are never changed once recorded;
	// Remove deletes a stack's history with its state.
	RecordHistory(ctx context.Context, stack StackID, e HistoryEntry) error
}

// HistoryReader is implemented by stores that keep a history (see
// HistoryRecorder). A caller whose store is no HistoryReader has no
// history to show: ErrNoHistory says so.
type HistoryReader interface {
	// History returns the stack's recorded operations, newest first;
	// none (and no error) for a stack that has no history.
	History(ctx context.Context, stack StackID) ([]HistoryEntry, error)
}

// HistoryBackend is a Backend that keeps each stack's history: opaque
// records, each appended whole. A Store built over one (backendstore.New)
// is a HistoryRecorder and a HistoryReader. DeleteStack deletes the
// history with the rest of the stack.
type HistoryBackend interface {
	// AppendHistory adds data at the end of the stack's history, under
	// the lock token names (fenced as every write is; see Backend), and
	// durably.
	AppendHistory(ctx context.Context, stack StackID, token string, data []byte) error
	// ReadHistory returns everything appended to the stack's history, in
	// order, or nil if it has none.
	ReadHistory(ctx context.Context, stack StackID) ([]byte, error)
}

// HistoryTailReader is a HistoryBackend that can read the end of a
// stack's history without the rest of it. A Store numbers a new entry
// after the history's last record, which it looks for in the end alone
// where the backend is a HistoryTailReader, reading more of the history
// only as far back as that record; over a HistoryBackend that is none it
// reads the whole history for each entry it records.
type HistoryTailReader interface {
	// ReadHistoryTail returns the end of the stack's history: at least
	// its last n bytes, or all of it if it is shorter (a backend may
	// return more, such as whole records), and whether what it returns
	// is the whole history. A stack with no history has an empty one.
	ReadHistoryTail(ctx context.Context, stack StackID, n int64) (tail []byte, whole bool, err error)
}

// ErrNoHistory: the store keeps no history of operations.
var ErrNoHistory = errors.New("this store keeps no history of operations")
