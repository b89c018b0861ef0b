// Package postgres is a state.Store that keeps stacks in PostgreSQL, for
// teams whose engines run on several machines, or that want their state
// backed up, replicated and queried with the rest of their data.
//
//	store, err := postgres.Open(ctx, "postgres://app@db.internal/infra?sslmode=require",
//		state.WithSecrets(state.PassphraseSecrets(passphrase)))
//	if err != nil { ... }
//	defer store.Close()
//	eng, err := engine.New(engine.Config{Store: store, ...})
//
// It is backendstore.New over a backend of four tables, so it behaves like
// the file store in everything but where the bytes live — the same
// snapshot and journal formats, secrets handling, integrity checks, crash
// replay and error messages — and passes the same conformance suite
// (package storetest).
//
// # Tables
//
// The tables live in a schema of their own ("groundwork" unless
// Config.Schema says otherwise), created on first use and migrated forward
// one version at a time (SchemaVersion), each in one transaction; a
// migration never removes recorded data, and a database that a newer
// library version migrated fails to open with *SchemaVersionError rather
// than be misread.
//
//   - snapshots: one row per stack, keyed by (project, stack), the
//     snapshot's bytes (state/FORMAT.md). Tables of schema version 1,
//     keyed by stack name alone, are migrated in place (state/FORMAT.md,
//     "Stores kept by stack name").
//   - journal: the journal's records since that snapshot, in rows in the
//     order they were appended. Recording a step is one small insert,
//     whatever the size of the stack; steps running at once share one
//     insert (the journal's group commit), as they share an fsync in the
//     file store. Writing a new snapshot replaces the snapshot row and
//     empties the journal in one transaction, so a crash leaves either the
//     old snapshot with its journal or the new snapshot, never a mix.
//   - locks: who holds each locked stack — token, process, host,
//     operation, since when — and until when its lease runs.
//   - history (schema version 3): each stack's operations, one row per
//     record, in the order they were recorded (state.HistoryRecorder;
//     the records are those of the file store's history file,
//     state/FORMAT.md, "History"), appended under the stack's lease and
//     removed with the stack.
//
// # Locks are leases
//
// A lock lasts Config.Lease (30s by default) unless renewed, and its
// holder renews it every third of that while it works. A second client's
// Lock fails at once with a *state.LockedError naming the holder and when
// its lease lapses. When a holder dies, its lease lapses and the next Lock
// takes the stack over — no one has to break anything by hand — and its
// journal, replayed by Load, shows what it was doing.
//
// Every write is fenced: it is one statement that first locks the stack's
// lock row, with the writer's token in its condition. A client whose lease
// was taken over (it stalled, or lost the database, for longer than the
// lease) therefore finds its next journal entry, commit or save refused
// with an error wrapping state.ErrLockLost, and two engines can never
// interleave their steps on one stack.
//
// # Testing
//
// The package's tests need a PostgreSQL server: set GROUNDWORK_TEST_POSTGRES
// to a connection URL (each test works in a schema of its own and drops it
// afterwards). .ci/postgres.sh starts a throwaway server and prints that
// variable; without it the tests skip.
package postgres
