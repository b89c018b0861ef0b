package store

import (
	"context"

	"github.com/groundwork-iac/groundwork/state"

	"github.com/groundwork-iac/groundwork/state/secrets"
)

// SecretsManager returns the stack's secrets manager, so that documents
// kept beside the state (a saved plan) are sealed as the state is. With
// recorded nil it is the manager the stack uses now: the one recorded in its
// snapshot, or a fresh one for a stack with none. With recorded set it is
// the manager that state describes (a wrong passphrase fails with
// secrets.ErrWrongPassphrase). It fails with ErrNoSecretsManager when the
// store was given no secrets provider. With it, a Store is a
// SecretsProvider.
func (s *Store) SecretsManager(ctx context.Context, stack state.StackID, recorded *state.SecretsState) (secrets.Manager, error) {
	if err := stack.Check(); err != nil {
		return nil, err
	}
	m, err := s.manager(ctx, stack, recorded)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, state.ErrNoSecretsManager
	}
	return m, nil
}

var (
	_ state.Store           = (*Store)(nil)
	_ state.LockBreaker     = (*Store)(nil)
	_ state.ForceUnlocker   = (*Store)(nil)
	_ state.SecretsProvider = (*Store)(nil)
)
