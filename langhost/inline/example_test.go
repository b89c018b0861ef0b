package inline_test

import (
	"context"
	"fmt"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/langhost/inline"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// A Pulumi Go SDK program deployed by groundwork's engine in this process,
// against a provider written as Go functions.
func ExampleProgram() {
	eng, err := engine.New(engine.Config{
		Project: "demo", Stack: "dev", Store: memstore.New(),
		Providers: func() *providers.Registry {
			r := providers.NewRegistry()
			p := &providers.Func{CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
				return providers.CreateResponse{ID: "box-1", Outputs: req.Inputs}, nil
			}}
			if err := r.RegisterFactory("box", "1.0.0", func(context.Context) (providers.Provider, error) { return p, nil }); err != nil {
				panic(err)
			}
			return r
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := eng.Up(context.Background(), inline.Program(func(ctx *pulumi.Context) error {
		var box struct {
			pulumi.CustomResourceState
			Label pulumi.StringOutput `pulumi:"label"`
		}
		if err := ctx.RegisterResource("box:index:Box", "b", pulumi.Map{"label": pulumi.String("hello")}, &box); err != nil {
			return err
		}
		ctx.Export("label", box.Label)
		return nil
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Counts[engine.StepCreate], "created; label:", res.Outputs["label"].StringValue())
	// Output: 2 created; label: hello
}
