package format

import (
	"context"
	"fmt"

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
