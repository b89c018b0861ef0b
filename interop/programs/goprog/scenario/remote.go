package scenario

import (
	"context"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Component is the comp plugin's remote component of Pulumi's
// TestConstruct: it echoes "echo" and answers its child's ID.
type Component struct {
	pulumi.ResourceState
	Echo    pulumi.AnyOutput    `pulumi:"echo"`
	ChildID pulumi.StringOutput `pulumi:"childId"`
}

func component(ctx *pulumi.Context, name string, echo pulumi.Input, opts ...pulumi.ResourceOption) (*Component, error) {
	var c Component
	err := ctx.RegisterRemoteComponentResource("comp:index:Component", name, pulumi.Map{"echo": echo}, &c, opts...)
	return &c, err
}

// construct is Pulumi's TestConstruct program: b's input is a's output
// echo, c's is a's childId, an output of a's child.
func construct(ctx *pulumi.Context) error {
	a, err := component(ctx, "a", pulumi.Int(42))
	if err != nil {
		return err
	}
	if _, err := component(ctx, "b", a.Echo); err != nil {
		return err
	}
	_, err = component(ctx, "c", a.ChildID)
	return err
}

// compProvider is an explicit provider of the comp plugin's package.
type compProvider struct {
	pulumi.ProviderResourceState
}

// componentProviders sets providers on remote components through
// transforms, as Pulumi's transforms/simple does: "res7" is given
// provider1 and its own transform swaps it for provider2; a stack
// transform gives "res10" provider2.
func componentProviders(ctx *pulumi.Context) error {
	var provider1, provider2 compProvider
	if err := ctx.RegisterResource("pulumi:providers:comp", "provider1", nil, &provider1); err != nil {
		return err
	}
	if err := ctx.RegisterResource("pulumi:providers:comp", "provider2", nil, &provider2); err != nil {
		return err
	}
	_, err := component(ctx, "res7", pulumi.Int(10), pulumi.Provider(&provider1),
		pulumi.Transforms([]pulumi.ResourceTransform{
			func(_ context.Context, a *pulumi.ResourceTransformArgs) *pulumi.ResourceTransformResult {
				if a.Type != "comp:index:Component" {
					return nil
				}
				a.Opts.Provider = &provider2
				return &pulumi.ResourceTransformResult{Props: a.Props, Opts: a.Opts}
			},
		}))
	if err != nil {
		return err
	}
	err = ctx.RegisterStackTransform(func(_ context.Context, a *pulumi.ResourceTransformArgs) *pulumi.ResourceTransformResult {
		if a.Type != "comp:index:Component" {
			return nil
		}
		a.Opts.Provider = &provider2
		return &pulumi.ResourceTransformResult{Props: a.Props, Opts: a.Opts}
	})
	if err != nil {
		return err
	}
	_, err = component(ctx, "res10", pulumi.Int(10))
	return err
}
