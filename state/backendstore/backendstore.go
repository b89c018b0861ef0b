// Package backendstore builds a state.Store over a state.Backend: a
// database or a remote service that keeps a stack's snapshot, journal and
// lock as bytes. The Store runs over it the code every store runs —
// encoding, secrets, integrity checks, the journal with its group commit
// and compaction, crash replay — so every Store built on a Backend
// behaves like the file store (package state/storetest checks it). The
// file store and the memory store are this Store over their own Backends
// (filestore.Backend, memstore.Backend); package state/postgres is
// another Backend.
package backendstore

import (
	"context"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/internal/store"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// New returns a Store that keeps its stacks in b. It also implements
// state.ForceUnlocker and state.SecretsProvider. Without
// state.WithSecrets the store refuses to record a secret value rather
// than write it in plaintext.
//
// When b is also a state.HistoryBackend, the Store is a
// state.HistoryRecorder and a state.HistoryReader.
func New(b state.Backend, opts ...state.Option) state.Store {
	s := backendStore{store.New(b, state.NewOptions(), opts...)}
	if _, ok := b.(state.HistoryBackend); ok {
		return historyStore{s}
	}
	return s
}

// historyStore is a backendStore over a Backend that keeps histories.
type historyStore struct{ backendStore }

// RecordHistory implements state.HistoryRecorder.
func (s historyStore) RecordHistory(ctx context.Context, stack state.StackID, e state.HistoryEntry) error {
	return s.s.RecordHistory(ctx, stack, e)
}

// History implements state.HistoryReader.
func (s historyStore) History(ctx context.Context, stack state.StackID) ([]state.HistoryEntry, error) {
	return s.s.History(ctx, stack)
}

// backendStore shows the Store methods of its core, ForceUnlock and
// SecretsManager, but not BreakLock: that judges a holder by its process,
// which says nothing of a lease.
type backendStore struct{ s *store.Store }

// Load implements state.Store.
func (s backendStore) Load(ctx context.Context, stack state.StackID) (*state.Snapshot, error) {
	return s.s.Load(ctx, stack)
}

// Lock implements state.Store.
func (s backendStore) Lock(ctx context.Context, stack state.StackID, operation string) (state.Lock, error) {
	return s.s.Lock(ctx, stack, operation)
}

// OpenJournal implements state.Store.
func (s backendStore) OpenJournal(ctx context.Context, stack state.StackID, base *state.Snapshot) (state.Journal, error) {
	return s.s.OpenJournal(ctx, stack, base)
}

// Save implements state.Store.
func (s backendStore) Save(ctx context.Context, stack state.StackID, snap *state.Snapshot) error {
	return s.s.Save(ctx, stack, snap)
}

// List implements state.Store.
func (s backendStore) List(ctx context.Context) ([]state.StackID, error) { return s.s.List(ctx) }

// Remove implements state.Store.
func (s backendStore) Remove(ctx context.Context, stack state.StackID) error {
	return s.s.Remove(ctx, stack)
}

// ForceUnlock implements state.ForceUnlocker.
func (s backendStore) ForceUnlock(ctx context.Context, stack state.StackID, token string) error {
	return s.s.ForceUnlock(ctx, stack, token)
}

// SecretsManager implements state.SecretsProvider.
func (s backendStore) SecretsManager(ctx context.Context, stack state.StackID, recorded *state.SecretsState) (secrets.Manager, error) {
	return s.s.SecretsManager(ctx, stack, recorded)
}

var (
	_ state.ForceUnlocker   = backendStore{}
	_ state.SecretsProvider = backendStore{}
	_ state.HistoryRecorder = historyStore{}
	_ state.HistoryReader   = historyStore{}
)
