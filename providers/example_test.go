package providers_test

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// A provider written as functions: only Create is needed for a resource
// that never changes in place; the other methods have defaults.
func ExampleFunc() {
	greeter := &providers.Func{
		CreateF: func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			name := req.Inputs["name"].StringValue()
			outs := resource.PropertyMap{
				"name":     req.Inputs["name"],
				"greeting": resource.NewString("hello, " + name),
			}
			return providers.CreateResponse{ID: resource.ID("greeting-" + name), Outputs: outs}, nil
		},
	}

	ctx := context.Background()
	urn := resource.NewURN("dev", "demo", "", "greet:index:Greeting", "g")
	inputs := resource.PropertyMap{"name": resource.NewString("world")}

	created, err := greeter.Create(ctx, providers.CreateRequest{URN: urn, Inputs: inputs})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(created.ID, created.Outputs["greeting"].StringValue())

	// The default Diff compares inputs key by key.
	diff, _ := greeter.Diff(ctx, providers.DiffRequest{
		URN: urn, ID: created.ID, OldInputs: inputs,
		NewInputs: resource.PropertyMap{"name": resource.NewString("gophers")},
	})
	fmt.Println(diff.Changes, diff.ChangedKeys)
	// Output:
	// greeting-world hello, world
	// some [name]
}

// A host registers a factory per package version; the registry then serves
// as the provider of provider resources and hands out configured
// instances by reference.
func ExampleRegistry() {
	ctx := context.Background()
	reg := providers.NewRegistry()
	defer reg.Close(ctx)

	_ = reg.RegisterFactory("greet", "1.4.0", func(context.Context) (providers.Provider, error) {
		var greeting string
		return &providers.Func{
			ConfigureF: func(_ context.Context, req providers.ConfigureRequest) (providers.ConfigureResponse, error) {
				greeting = req.Inputs["greeting"].StringValue()
				return providers.ConfigureResponse{}, nil
			},
			CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
				msg := greeting + ", " + req.Inputs["name"].StringValue()
				return providers.CreateResponse{ID: "g1", Outputs: resource.PropertyMap{"message": resource.NewString(msg)}}, nil
			},
		}, nil
	})

	info, _ := reg.Lookup("greet", "1.0.0")
	fmt.Println("version 1.0.0 is served by", info)

	// The provider resource's lifecycle: Check (CheckConfig), then Create
	// (start and Configure an instance).
	provURN := resource.NewURN("dev", "demo", "", providers.ProviderType("greet"), providers.DefaultProviderName(""))
	config := resource.PropertyMap{"greeting": resource.NewString("bonjour"), "version": resource.NewString("1.0.0")}
	checked, _ := reg.Check(ctx, providers.CheckRequest{URN: provURN, News: config})
	created, _ := reg.Create(ctx, providers.CreateRequest{URN: provURN, Inputs: checked.Inputs})

	// A custom resource records its provider as a reference string.
	refText := providers.NewReference(provURN, created.ID).String()
	ref, _ := providers.ParseReference(refText)
	greeter, ok := reg.Get(ref)
	fmt.Println("found:", ok, "default:", providers.IsDefaultProvider(ref.URN))

	res, err := greeter.Create(ctx, providers.CreateRequest{
		URN:    resource.NewURN("dev", "demo", "", "greet:index:Greeting", "g"),
		Inputs: resource.PropertyMap{"name": resource.NewString("monde")},
	})
	fmt.Println(res.Outputs["message"].StringValue(), err)
	// Output:
	// version 1.0.0 is served by greet@1.4.0
	// found: true default: true
	// bonjour, monde <nil>
}

// A Source is a registry with one package served by a provider of the
// host's own, which the registry never starts: here "pulumi", whose
// provider resources and the resources they serve reach that provider,
// while every other package's are the registry's.
func ExampleRegistry_Serving() {
	reg := providers.NewRegistry()
	own := &providers.Func{}
	src := reg.Serving("pulumi", own)

	p, _ := src.Provider("", providers.ProviderType("pulumi"))
	fmt.Println(p == own)
	ref := providers.NewReference(resource.NewURN("dev", "proj", "", providers.ProviderType("pulumi"), "default"), "p1")
	p, _ = src.Provider(ref.String(), "pulumi:pulumi:StackReference")
	fmt.Println(p == own)
	p, _ = src.Provider("", providers.ProviderType("cloud"))
	fmt.Println(p == reg)
	// Output:
	// true
	// true
	// true
}
