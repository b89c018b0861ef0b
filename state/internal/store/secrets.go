package store

import (
	"context"
	"errors"

	"github.com/groundwork-iac/groundwork/state"

	"github.com/groundwork-iac/groundwork/state/secrets"
)

// SecretsManager returns the stack's secrets manager, so that documents
// kept beside the state (a saved plan) are sealed as the state is. With
// recorded nil it is the manager the stack uses now: the one recorded in its
// snapshot, or a fresh one for a stack with none. With recorded set it is
// the manager that state describes (a wrong passphrase fails with
// secrets.ErrWrongPassphrase). It fails with ErrNoSecretsManager when the
// store was given no secrets provider. With it, every Store this package
// makes is a SecretsProvider.
func (c *core) SecretsManager(ctx context.Context, stack string, recorded *state.SecretsState) (secrets.Manager, error) {
	if err := state.CheckStackName(stack); err != nil {
		return nil, err
	}
	m, err := c.manager(ctx, stack, recorded)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, state.ErrNoSecretsManager
	}
	return m, nil
}

// SecretsManager implements SecretsProvider (see core.SecretsManager).
func (s backendStore) SecretsManager(ctx context.Context, stack string, recorded *state.SecretsState) (secrets.Manager, error) {
	c, ok := s.Store.(*core)
	if !ok {
		return nil, errors.New("this store cannot give its secrets manager")
	}
	return c.SecretsManager(ctx, stack, recorded)
}

var (
	_ state.SecretsProvider = (*FileStore)(nil)
	_ state.SecretsProvider = (*MemoryStore)(nil)
	_ state.SecretsProvider = backendStore{}
)
