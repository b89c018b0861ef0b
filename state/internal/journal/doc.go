// Package journal records an operation on a stack entry by entry, so that
// a crash loses nothing, and replays what it recorded.
//
// A Journal keeps the stack's state in memory (a state.Fold) and writes
// through a Storage: the snapshot, replaced whole at a checkpoint, and
// the journal, framed records appended after a header that names the
// snapshot they follow (state/FORMAT.md). Its contract:
//
//   - Append(ctx, entry) records an entry and returns when it is durable:
//     written and, as the Storage promises, synced. AppendAsync records
//     it the same way and calls back instead of waiting, so that a step
//     waiting for durability holds no goroutine. Group commit is
//     internal: the entries that arrive while a batch is being written
//     are written together in the next, in one Storage call, so
//     concurrent steps share one sync. The batches are written by the
//     journal's writer, a goroutine of its own that runs while there is
//     something to write and calls AppendAsync's callbacks; an appender
//     never writes, and Close waits for the writer.
//   - An entry is validated, encoded and folded before it is written; one
//     that breaks an integrity rule is refused, and its record is never
//     written.
//   - A journal write (append or rewrite) that fails stops the journal:
//     every later Append fails, and what was durable stays so. A snapshot
//     write that fails (Commit, compaction) changes nothing durable.
//   - Commit and compaction (once the journal outgrows its bound) write
//     the folded state as a new snapshot, which empties the journal;
//     Close writes what is gathered and refuses any later entry.
//
// Replay reads a journal back onto the snapshot it follows: a torn last
// record is ignored, damage anywhere else is an error, a journal that
// names another snapshot is an *OtherBaseError (the store tells a stale
// journal from one whose snapshot was changed), and a step that began and
// never ended comes back as a pending operation.
//
// The package knows nothing of locks, stacks' names beyond errors, or
// where bytes go: package store opens a Journal over a state.Backend,
// under the lock it holds.
package journal
