package pulumi

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/resource"
)

// stackReference reads the outputs of the stack name names, as a stack
// reference's outputs: "name", "outputs" (secret values still secret) and
// "secretOutputNames" (the top-level outputs that hold a secret, sorted).
// An unknown name (in a preview) gives unknown outputs.
func (p *Provider) stackReference(ctx context.Context, name resource.PropertyValue) (resource.PropertyMap, error) {
	if name.IsSecret() {
		name = name.SecretElement()
	}
	if name.IsUnknown() {
		u := resource.NewUnknown()
		return resource.PropertyMap{"name": u, "outputs": u, "secretOutputNames": u}, nil
	}
	if !name.IsString() || name.StringValue() == "" {
		return nil, fmt.Errorf("a stack reference needs the name of a stack, got %v", name)
	}
	if p.cfg.Stacks == nil {
		return nil, fmt.Errorf("stack reference %q: this deployment cannot read other stacks", name.StringValue())
	}
	outs, err := p.cfg.Stacks.StackOutputs(ctx, name.StringValue())
	if err != nil {
		return nil, fmt.Errorf("stack reference %q: %w", name.StringValue(), err)
	}
	if outs == nil {
		outs = resource.PropertyMap{}
	}
	secret := []resource.PropertyValue{}
	for _, k := range outs.StableKeys() {
		if outs[k].ContainsSecrets() {
			secret = append(secret, resource.NewString(string(k)))
		}
	}
	return resource.PropertyMap{
		"name":              name,
		"outputs":           resource.NewObject(outs),
		"secretOutputNames": resource.NewArray(secret...),
	}, nil
}
