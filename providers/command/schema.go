package command

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/groundwork-iac/groundwork/providers"
)

// schemaJSON is the package schema, without its version: pulumi-command's
// local Command and run (their inputs, outputs and defaults as its
// releases up to Version declare them) and groundwork's own Command.
//
//go:embed schema.json
var schemaJSON []byte

// GetSchema returns the package schema, at Version.
func (p *provider) GetSchema(ctx context.Context, req providers.GetSchemaRequest) (providers.GetSchemaResponse, error) {
	var spec map[string]any
	if err := json.Unmarshal(schemaJSON, &spec); err != nil {
		return providers.GetSchemaResponse{}, fmt.Errorf("the %s provider's schema is malformed: %w", Package, err)
	}
	spec["version"] = Version
	b, err := json.Marshal(spec)
	if err != nil {
		return providers.GetSchemaResponse{}, fmt.Errorf("encode the %s provider's schema: %w", Package, err)
	}
	return providers.GetSchemaResponse{Schema: b}, nil
}
