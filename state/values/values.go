// Package values encodes property values as the state records them
// (state/FORMAT.md, "Property values"): plain values as JSON, other kinds
// as tagged objects, each secret sealed by a secrets manager. It is for
// documents kept beside the state, such as a saved plan, that must protect
// secrets as the state does.
package values

import (
	"context"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/internal/format"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// Marshal encodes m, sealing each secret with mgr. Unknown values are
// kept. A secret with a nil mgr is state.ErrNoSecretsManager.
func Marshal(ctx context.Context, m resource.PropertyMap, mgr secrets.Manager) ([]byte, error) {
	return format.MarshalProperties(ctx, m, mgr)
}

// Unmarshal decodes what Marshal wrote, opening secrets with mgr.
func Unmarshal(ctx context.Context, data []byte, mgr secrets.Manager) (resource.PropertyMap, error) {
	return format.UnmarshalProperties(ctx, data, mgr)
}
