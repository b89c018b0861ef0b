// Package memstore is a state.Store in memory, for tests. It runs the
// same code as the file store over a map of byte slices instead of files:
// snapshots and journal entries go through the same encoding (no state is
// ever shared between what a test saved and what it loads), secrets are
// encrypted the same way, and locks, journals, compaction and crash replay
// behave identically. Only durability is moot.
//
// Unless state.WithSecrets says otherwise, a Store encrypts secrets with a
// random passphrase of its own and a low PBKDF2 iteration count: the
// ciphertexts live no longer than the store, so a costly key derivation
// would protect nothing.
//
// A Store is the store every backend runs (package backendstore) over a
// Backend in memory, and can also break the locks of processes that are
// gone (BreakLock).
package memstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/internal/store"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// Store keeps stacks in memory.
type Store struct {
	s *store.Store
	b *Backend
}

// New returns an empty in-memory store.
func New(opts ...state.Option) *Store {
	var pw [16]byte
	_, _ = rand.Read(pw[:])
	d := state.NewOptions()
	d.Secrets = state.PassphraseSecrets(hex.EncodeToString(pw[:]), secrets.WithIterations(1000))
	b := NewBackend()
	return &Store{s: store.New(b, d, opts...), b: b}
}

// Reopen returns another Store over the same stacks: what a second
// process opening the same storage would see. It starts with s's options
// (its secrets provider among them) followed by opts, and holds none of
// s's locks or journals, so tests can exercise contention and crash
// replay between the two.
func (s *Store) Reopen(opts ...state.Option) *Store {
	return &Store{s: store.New(s.b, s.s.Options(), opts...), b: s.b}
}

// Files returns a copy of the bytes the store holds for a stack, by file
// name ("snapshot.json", "journal", "lock", "history"): what the file store would
// have written to disk. Tests use it to inspect or damage what was
// recorded.
func (s *Store) Files(stack state.StackID) map[string][]byte { return s.b.Files(stack) }

// SetFile replaces (nil data: removes) one of a stack's files, as Files
// names them.
func (s *Store) SetFile(stack state.StackID, name string, data []byte) {
	s.b.SetFile(stack, name, data)
}

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
