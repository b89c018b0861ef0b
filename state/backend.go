package state

import "context"

// Backend is where a Store keeps its stacks. Every store of this module
// is one Store over a Backend: the file store over filestore.Backend,
// the memory store over memstore.Backend, and backendstore.New over any
// other, such as a database or a remote service (package postgres). The
// Store does everything else — encoding, secrets, integrity checks, the
// journal with its group commit and compaction, crash replay, locking
// policy — so a Backend only keeps bytes and arbitrates locks, and every
// Store built on one behaves alike (package storetest checks it).
//
// A Backend keeps three things per stack:
//
//   - the snapshot: opaque bytes, replaced whole;
//   - the journal: opaque bytes that grow by appends until replaced whole;
//     ReadJournal returns everything appended since, in order;
//   - the lock: a LockInfo, whose Token names its holder.
//
// Every write names the token of the lock it is made under, and must be
// refused — with an error wrapping ErrLockLost, having changed nothing —
// unless that token holds the stack's lock when the write takes effect.
// This fencing is what keeps a client whose lock was taken over from ever
// writing between its successor's steps, so a Backend whose locks are
// leases must make it atomic with the write itself (a check and a write
// in one transaction), not a check made before it. A Backend whose locks
// are taken over only once their holder is gone (filestore.Backend) may
// check just before the write — before every one, journal appends
// included, since a lock can also be removed by force (ForceUnlocker)
// while its holder still runs.
//
// Writes are atomic and durable when they return: after a crash a stack
// holds each write entirely or not at all. (A Backend may offer less as
// an explicit choice of its user, as filestore.Backend does for appends
// under SyncNever.)
//
// A Backend whose locks are leases renews them while they are held (until
// Release), reports their expiry in LockInfo.Expires, and lets Acquire
// take over a lock whose lease has lapsed; its holder's later writes are
// then refused by the fencing above.
//
// Methods are called concurrently, each with the context of the Store
// call it serves. A journal write is shared by the entries of many steps,
// so it gets its context without the cancellation
// (context.WithoutCancel): a write that began completes or fails on its
// own, never half-way because one of the steps sharing it was cancelled.
// A Backend therefore bounds each call with a timeout of its own.
type Backend interface {
	// ReadSnapshot returns the stack's snapshot, or nil and no error if
	// it has none.
	ReadSnapshot(ctx context.Context, stack StackID) ([]byte, error)
	// HasSnapshot reports whether the stack has a snapshot.
	HasSnapshot(ctx context.Context, stack StackID) (bool, error)
	// ReadJournal returns the stack's journal, or nil if it has none.
	ReadJournal(ctx context.Context, stack StackID) ([]byte, error)
	// List returns the stacks that have a snapshot, in any order.
	List(ctx context.Context) ([]StackID, error)

	// Holder returns the stack's lock, or nil if it is not locked.
	Holder(ctx context.Context, stack StackID) (*LockInfo, error)
	// Acquire makes holder the stack's lock if the stack is not locked
	// (or its lease has lapsed), and reports whether it did and, when it
	// took over a lapsed lease, that lease's holder.
	Acquire(ctx context.Context, stack StackID, holder LockInfo) (acquired bool, lapsed *LockInfo, err error)
	// Release removes the stack's lock if token holds it, and reports
	// whether it did.
	Release(ctx context.Context, stack StackID, token string) (bool, error)

	// WriteSnapshot replaces the stack's snapshot with data and empties
	// its journal, in one atomic step (the journal was written against
	// the snapshot being replaced).
	WriteSnapshot(ctx context.Context, stack StackID, token string, data []byte) error
	// WriteJournal replaces the stack's journal with data (nil: no
	// journal).
	WriteJournal(ctx context.Context, stack StackID, token string, data []byte) error
	// AppendJournal adds data at the end of the stack's journal.
	AppendJournal(ctx context.Context, stack StackID, token string, data []byte) error
	// DeleteStack removes the stack's snapshot and journal.
	DeleteStack(ctx context.Context, stack StackID, token string) error
}

// SnapshotTextReader is a Backend that can read a stack's snapshot
// straight into a string. A Store decodes a snapshot from its text, whose
// substrings the loaded resources keep as their strings; from a Backend
// without this ability it copies ReadSnapshot's bytes into a string first,
// so the snapshot is held twice while it loads.
type SnapshotTextReader interface {
	// ReadSnapshotText returns the stack's snapshot, as ReadSnapshot
	// does, as a string; found is false (and the error nil) if the stack
	// has none.
	ReadSnapshotText(ctx context.Context, stack StackID) (text string, found bool, err error)
}

// SnapshotKeeper is a Backend that keeps, for each stack, the snapshot
// its last WriteSnapshot replaced (filestore.Backend does, as
// snapshot.json.bak). A Backend whose WriteSnapshot empties the journal
// in the same atomic step never needs it; one that cannot (files) leaves,
// after a crash between the two, a journal written after the snapshot
// replaced, and the kept copy is what proves such a journal stale: a
// journal that follows neither the stack's snapshot nor the kept one is
// refused (*JournalMismatchError), never ignored.
type SnapshotKeeper interface {
	// PreviousSnapshot returns the snapshot the stack's last WriteSnapshot
	// replaced, or nil and no error if it keeps none.
	PreviousSnapshot(ctx context.Context, stack StackID) ([]byte, error)
	// RestoreHint says, for an error message, where the previous snapshot
	// is kept and how to put it back.
	RestoreHint(stack StackID) string
}
