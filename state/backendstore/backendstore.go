// Package backendstore builds a state.Store over a state.Backend: a
// database or a remote service that keeps a stack's snapshot, journal and
// lock as bytes. The Store runs over it the same code the file store runs
// over files — encoding, secrets, integrity checks, the journal with its
// group commit and compaction, crash replay — so every Store built on a
// Backend behaves like the file store (package state/storetest checks it).
// Package state/postgres is one such Backend.
package backendstore

import (
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/internal/store"
)

// New returns a Store that keeps its stacks in b. It also implements
// state.ForceUnlocker and state.SecretsProvider. Without
// state.WithSecrets the store refuses to record a secret value rather
// than write it in plaintext.
func New(b state.Backend, opts ...state.Option) state.Store { return store.NewStore(b, opts...) }
