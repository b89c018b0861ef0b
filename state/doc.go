// Package state records stacks: what the engine knows of every resource it
// manages, written so that nothing recorded is ever lost — not to a crash,
// a full disk, a concurrent run or a wrong passphrase.
//
// # Model
//
// A Snapshot is one stack at one moment: its resources in dependency order
// and the steps that began but never ended (pending operations).
// Snapshot.VerifyIntegrity states the rules every recorded snapshot obeys;
// a snapshot that breaks one is never written, and a file that breaks one
// is refused on load.
//
// An Entry is one record of a Journal; a Fold is the pure state machine
// that folds entries into a snapshot, refusing any entry that would break
// an integrity rule, so every store records and replays the same way.
//
// A Store keeps stacks, each named by a StackID: a project's stack, so two
// projects' stacks of one name are two stacks that share nothing. This
// package holds the contracts every store keeps
// (Store, Journal, Lock, Backend, their errors and options); the stores
// live one to a package:
//
//	state/filestore        the embedded default: a folder per stack,
//	                       <root>/<project>/<stack>
//	                       (the store over a Backend of files)
//	state/memstore         the same over a Backend in memory, for tests
//	state/backendstore     the same over any Backend, such as state/postgres
//	state/storetest        the suite every Store passes
//	state/internal/store   their one implementation over a Backend:
//	                       loading, saving, locking, secrets
//	state/internal/journal the journal: group commit, compaction, replay
//	state/internal/format  the on-disk format: the codec, the journal's
//	                       framing, the MACs
//
// An operation locks the stack, loads it, opens a Journal on it, records
// each step twice (begin, then success or failure), and commits:
//
//	dev := state.StackID{Project: "site", Stack: "dev"}
//	lock, err := store.Lock(ctx, dev, "update") // *LockedError if busy
//	defer lock.Unlock(ctx)
//	snap, err := store.Load(ctx, dev)
//	j, err := store.OpenJournal(ctx, dev, snap)
//	defer j.Close(ctx)
//	seq, err := j.Append(ctx, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: r})
//	// ... call the provider only now ...
//	_, err = j.Append(ctx, state.Entry{Kind: state.EntrySuccess, Begin: seq, New: created})
//	final, err := j.Commit(ctx)
//
// # The write path
//
// Recording a step costs time proportional to the step, never to the
// stack. Append records an entry and returns once it is durable; the
// stores' journals also take AppendAsync, which records it the same way
// and calls back once it is durable, so that a step waiting for it holds
// no goroutine. The caller encodes the entry on its own goroutine, folds
// it into the journal's in-memory state (Fold, a pure state machine
// shared by every store) and frames one checksummed record, holding the
// journal's mutex for the fold and the framing only. Records framed while
// a batch is being written gather into the next batch; the journal's
// writer, a goroutine of its own that runs while there is something to
// write, writes and syncs them, outside the mutex, batch after batch, and
// answers each batch's appenders, so an appender never waits for another
// step's write. A deployment running many steps at once pays one fsync
// per batch, not per step (group commit). A full
// snapshot is written only at Commit, or when the journal outgrows a bound
// proportional to the last snapshot (so the amortized cost per entry stays
// constant); it replaces the old one atomically and durably, and only then
// is the journal restarted. A snapshot copies the encoding of every state an
// entry recorded since the last one, instead of encoding it again.
//
// After a crash, Load replays the journal onto the last snapshot: a last
// frame cut short by the crash is ignored (its Append never returned),
// damage anywhere else is an error that leaves the files alone, and each
// step that began and did not end becomes a pending operation. FORMAT.md
// documents the bytes.
//
// # Locking
//
// One operation runs on a stack at a time. A second Lock fails at once
// with a *LockedError naming the holder (process, host, operation, time).
// The file store's lock is a file, so it also keeps separate processes
// apart.
// A lock whose holder is provably gone — a process on this host (same
// host name, same boot and PID namespace) that no longer runs, or whose
// PID now belongs to a process started later than the lock records
// (LockInfo.ProcessStart, on Linux), or a lease that lapsed — is broken
// by the next Lock, whose Lock then reports it
// (ReplacedLock) so that the host can warn. Any other lock stands:
// ForceUnlock removes one whose holder the operator knows is gone, and
// the LockedError names that way out (WithUnlockHint puts a host's own
// command there). Callers must release their lock with Unlock, normally
// deferred.
//
// # Secrets
//
// Secret values are plaintext only in memory. Stores encrypt each one with
// the stack's secrets manager (see WithSecrets and package secrets): with a
// passphrase, AES-256-GCM under a key derived once per stack with
// PBKDF2-HMAC-SHA-256. A wrong passphrase fails at Load, before any value
// is read or anything written.
//
// # Authentication
//
// The same manager authenticates everything a store writes: each snapshot
// ends with an HMAC-SHA-256 of the rest of it, and each journal record
// carries one chained to the record before, under a key derived from the
// passphrase apart from the encryption key. Load checks them before it
// reads any value and refuses an edited file — a plain value changed, a
// journal record removed — with an *AuthenticationError. A store with a
// secrets provider also refuses a snapshot that carries no keyed MAC, since
// removing the MAC must not get an edit past it; WithUnauthenticatedSnapshots
// accepts such files once, to migrate stacks written in format 1. A stack
// without a secrets manager carries only a CRC-32C checksum, which catches
// accidental damage but not deliberate edits. FORMAT.md has the details and
// the limits (a MAC cannot detect that an older snapshot was put back).
//
// # The on-disk format
//
// Snapshots and journal entries are JSON (FORMAT.md), written and read by
// a codec of its own in state/internal/format: an encoder that appends to
// one buffer, and a reader over the file's text whose strings share that
// text. It was chosen over the standard library's encoding/json and over
// github.com/go-json-experiment/json's jsontext tokenizer because it
// writes and reads a snapshot in half their time or less, with far fewer
// allocations (BENCHMARKS.md has the measurement). A snapshot is read on
// every operation and an entry encoded for every step, which makes that
// worth a codec of its own; the fuzz targets FuzzDecodeSnapshot and
// FuzzReplayJournal hold it to never panic and to read back what it
// wrote.
//
// # Cost
//
// Appending an entry costs time proportional to the entry, never to the
// stack, plus a share of one sync (group commit). Loading costs one pass
// over the snapshot (the resources of a large one are read on every core)
// and one over the journal; the snapshot's strings share one copy of the
// file's text, which the file and memory backends read straight into a
// string (SnapshotTextReader) and any other Backend's bytes are copied
// into. A snapshot is written at Commit and when the journal
// outgrows its bound, copying the encoding each recorded state got in its
// entry. The store benchmarks measure each (go test -run x -bench .
// ./state/internal/store), and the bench command measures them inside
// whole operations (BENCHMARKS.md).
package state
