// Package filestore is the embedded default state.Store: each stack in a
// folder of its own, in its project's folder, under a root folder,
//
//	<root>/<project>/<stack>/snapshot.json      the last snapshot (state/FORMAT.md)
//	<root>/<project>/<stack>/snapshot.json.bak  the snapshot before it
//	<root>/<project>/<stack>/journal            entries since the last snapshot
//	<root>/<project>/<stack>/lock               who holds the stack, while someone does
//	<root>/<project>/<stack>/history            the operations run on the stack, one JSON record a line
//
// A root written when stacks were kept by name alone (<root>/<stack>) is
// upgraded in place when it is opened: each stack's folder is moved,
// unchanged, into the folder of the project its records name
// (state/FORMAT.md, "Stores kept by stack name").
//
// Each snapshot write keeps the snapshot it replaces as snapshot.json.bak:
// it proves a journal a crash left behind stale, and it is the way back
// from a damaged snapshot (with the stack unlocked, copy it over
// snapshot.json and delete journal, then refresh the stack). Every write,
// each journal append included, checks first that the lock file still
// names the writer's lock, so a writer whose lock was removed by force
// (ForceUnlock) stops at its next write.
//
// Snapshots and journal restarts are written to a temporary file in the
// same folder, synced, renamed over the old file, and the folder is synced,
// so a crash leaves either the old file or the new one. A lock file appears
// atomically with its content (written aside, then hard-linked into place;
// on file systems without hard links it is created with O_EXCL), and a
// lock whose holder is a process of this host that no longer runs is
// broken by the next Lock. Files are private to their owner (mode 0600,
// folders 0700).
//
// Two Stores (in one process or many) may share a root: the lock files
// keep their operations apart.
//
// A Store is the store every backend runs (package backendstore) over a
// Backend of files: New(dir, opts...) behaves as
// backendstore.New(NewBackend(dir, sync), opts...) with the sync policy
// that opts set, and can also break the locks of processes that are gone
// (BreakLock).
package filestore

import (
	"context"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/internal/store"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// Store keeps stacks in files under a root folder.
type Store struct {
	s *store.Store
	b *Backend
}

// New opens (creating if needed) a file store rooted at dir. Without
// state.WithSecrets the store refuses to record a secret value
// (state.ErrNoSecretsManager) rather than write it in plaintext.
// state.WithSync sets whether journal appends are synced (see NewBackend).
func New(dir string, opts ...state.Option) (*Store, error) {
	b, err := NewBackend(dir, state.NewOptions(opts...).Sync)
	if err != nil {
		return nil, err
	}
	return &Store{s: store.New(b, state.NewOptions(), opts...), b: b}, nil
}

// Root returns the store's root folder (an absolute path).
func (s *Store) Root() string { return s.b.Root() }

// Load implements state.Store.
func (s *Store) Load(ctx context.Context, stack state.StackID) (*state.Snapshot, error) {
	return s.s.Load(ctx, stack)
}

// Lock implements state.Store.
func (s *Store) Lock(ctx context.Context, stack state.StackID, operation string) (state.Lock, error) {
	return s.s.Lock(ctx, stack, operation)
}

// OpenJournal implements state.Store.
func (s *Store) OpenJournal(ctx context.Context, stack state.StackID, base *state.Snapshot) (state.Journal, error) {
	return s.s.OpenJournal(ctx, stack, base)
}

// Save implements state.Store.
func (s *Store) Save(ctx context.Context, stack state.StackID, snap *state.Snapshot) error {
	return s.s.Save(ctx, stack, snap)
}

// List implements state.Store.
func (s *Store) List(ctx context.Context) ([]state.StackID, error) { return s.s.List(ctx) }

// Remove implements state.Store.
func (s *Store) Remove(ctx context.Context, stack state.StackID) error { return s.s.Remove(ctx, stack) }

// BreakLock implements state.LockBreaker.
func (s *Store) BreakLock(ctx context.Context, stack state.StackID) error {
	return s.s.BreakLock(ctx, stack)
}

// ForceUnlock implements state.ForceUnlocker.
func (s *Store) ForceUnlock(ctx context.Context, stack state.StackID, token string) error {
	return s.s.ForceUnlock(ctx, stack, token)
}

// SecretsManager returns the stack's secrets manager: for recorded nil
// the one the stack uses now, otherwise the one recorded describes (a
// wrong passphrase fails with secrets.ErrWrongPassphrase). It fails with
// state.ErrNoSecretsManager when the store was given no secrets provider.
// With it the store is a state.SecretsProvider.
func (s *Store) SecretsManager(ctx context.Context, stack state.StackID, recorded *state.SecretsState) (secrets.Manager, error) {
	return s.s.SecretsManager(ctx, stack, recorded)
}

// RecordHistory implements state.HistoryRecorder.
func (s *Store) RecordHistory(ctx context.Context, stack state.StackID, e state.HistoryEntry) error {
	return s.s.RecordHistory(ctx, stack, e)
}

// History implements state.HistoryReader.
func (s *Store) History(ctx context.Context, stack state.StackID) ([]state.HistoryEntry, error) {
	return s.s.History(ctx, stack)
}

var (
	_ state.HistoryRecorder = (*Store)(nil)
	_ state.HistoryReader   = (*Store)(nil)
	_ state.Store           = (*Store)(nil)
	_ state.LockBreaker     = (*Store)(nil)
	_ state.ForceUnlocker   = (*Store)(nil)
	_ state.SecretsProvider = (*Store)(nil)
)
