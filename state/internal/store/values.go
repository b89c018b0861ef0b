package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/groundwork-iac/groundwork/state"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// MarshalProperties encodes m as the state records property values
// (FORMAT.md, "Property values"): plain values as JSON, other kinds as
// tagged objects, each secret sealed by mgr. Unknown values are kept. It is
// for documents kept beside the state, such as a saved plan, that must
// protect secrets as the state does. A secret with a nil mgr is
// ErrNoSecretsManager.
func MarshalProperties(ctx context.Context, m resource.PropertyMap, mgr secrets.Manager) ([]byte, error) {
	e := valueEncoder{mgr: mgr}
	return e.appendMap(ctx, nil, m)
}

// UnmarshalProperties decodes what MarshalProperties wrote, opening secrets
// with mgr.
func UnmarshalProperties(ctx context.Context, data []byte, mgr secrets.Manager) (resource.PropertyMap, error) {
	d := newDecoder(string(data), mgr)
	m, err := d.propertyMap(ctx)
	if err == nil {
		err = d.end()
	}
	if err != nil {
		return nil, fmt.Errorf("reading property values: %w", err)
	}
	return m, nil
}

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
