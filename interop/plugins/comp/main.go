// Command comp is a component provider plugin built with Pulumi's Go SDK
// (pkg/v3 resource/provider), for the interop suite: package "comp", two
// remote components and a method of one of them.
//
// "comp:index:Greeter" and its method "comp:index:Greeter/shout" read the
// calling stack's configuration, as component providers do, so that tests
// see the engine sent it: the greeting from "<project>:greeting", and
// whether "<project>:token" was marked secret.
//
// "comp:index:Component" is the component of Pulumi's TestConstruct
// (tests/integration/construct_component/testcomponent-go): it echoes its
// input "echo" and has one child, "child-<name>", a thing of the suite's
// in-process package "itest" whose value is that input. It answers the
// child's ID as "childId" and the stack's secret "<project>:secret" (which
// must be secret) as "secret". What the child depends on is what the
// engine and the SDKs made of the program's dependencies.
package main

import (
	"fmt"
	"os"
	"reflect"
	"strings"

	"github.com/pulumi/pulumi/pkg/v3/resource/provider"
	pprovider "github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	err := provider.MainWithOptions(provider.Options{
		Name: "comp", Version: "1.0.0", Construct: construct, Call: call,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// Greeter greets the name it is given with the stack's greeting.
type Greeter struct {
	pulumi.ResourceState
	Message       pulumi.StringOutput `pulumi:"message"`
	TokenIsSecret pulumi.BoolOutput   `pulumi:"tokenIsSecret"`
}

// GreeterArgs are a Greeter's inputs.
type GreeterArgs struct {
	Name pulumi.StringInput `pulumi:"name"`
}

func construct(ctx *pulumi.Context, typ, name string, inputs pprovider.ConstructInputs,
	options pulumi.ResourceOption,
) (*pprovider.ConstructResult, error) {
	switch typ {
	case "comp:index:Greeter":
		return constructGreeter(ctx, typ, name, inputs, options)
	case "comp:index:Component":
		return constructComponent(ctx, typ, name, inputs, options)
	}
	return nil, fmt.Errorf("comp: unknown component type %s", typ)
}

func constructGreeter(ctx *pulumi.Context, typ, name string, inputs pprovider.ConstructInputs,
	options pulumi.ResourceOption,
) (*pprovider.ConstructResult, error) {
	var args GreeterArgs
	if err := inputs.CopyTo(&args); err != nil {
		return nil, err
	}
	g := &Greeter{}
	if err := ctx.RegisterComponentResource(typ, name, g, options); err != nil {
		return nil, err
	}
	greeting := config.Require(ctx, "greeting")
	g.Message = pulumi.Sprintf("%s, %s", greeting, args.Name)
	g.TokenIsSecret = pulumi.Bool(ctx.IsConfigSecret(ctx.Project() + ":token")).ToBoolOutput()
	if err := ctx.RegisterResourceOutputs(g, pulumi.Map{"message": g.Message, "tokenIsSecret": g.TokenIsSecret}); err != nil {
		return nil, err
	}
	return pprovider.NewConstructResult(g)
}

// Component is the component of Pulumi's TestConstruct.
type Component struct {
	pulumi.ResourceState
	Echo    pulumi.Input        `pulumi:"echo"`
	ChildID pulumi.IDOutput     `pulumi:"childId"`
	Secret  pulumi.StringOutput `pulumi:"secret"`
}

// ComponentArgs are a Component's inputs.
type ComponentArgs struct {
	Echo pulumi.Input `pulumi:"echo"`
}

// thing is a resource of the suite's in-process package "itest".
type thing struct {
	pulumi.CustomResourceState
}

// thingArgs are a thing's inputs.
type thingArgs struct {
	Value pulumi.Input
}

type thingInputs struct {
	Value any `pulumi:"value"`
}

func (thingArgs) ElementType() reflect.Type { return reflect.TypeFor[thingInputs]() }

func constructComponent(ctx *pulumi.Context, typ, name string, inputs pprovider.ConstructInputs,
	options pulumi.ResourceOption,
) (*pprovider.ConstructResult, error) {
	var args ComponentArgs
	if err := inputs.CopyTo(&args); err != nil {
		return nil, err
	}
	if key := ctx.Project() + ":secret"; !ctx.IsConfigSecret(key) {
		return nil, fmt.Errorf("comp: the configuration key %s is not secret", key)
	}
	c := &Component{}
	if err := ctx.RegisterComponentResource(typ, name, c, options); err != nil {
		return nil, err
	}
	var child thing
	err := ctx.RegisterResource("itest:index:Thing", "child-"+name, &thingArgs{Value: args.Echo}, &child, pulumi.Parent(c))
	if err != nil {
		return nil, err
	}
	c.Echo, c.ChildID, c.Secret = args.Echo, child.ID(), config.RequireSecret(ctx, "secret")
	if err := ctx.RegisterResourceOutputs(c, pulumi.Map{"echo": c.Echo, "childId": c.ChildID, "secret": c.Secret}); err != nil {
		return nil, err
	}
	return pprovider.NewConstructResult(c)
}

// ShoutArgs are the arguments of Greeter.shout.
type ShoutArgs struct {
	Suffix string `pulumi:"suffix"`
}

// ShoutResult is what Greeter.shout returns.
type ShoutResult struct {
	Shout string `pulumi:"shout"`
}

func call(ctx *pulumi.Context, tok string, args pprovider.CallArgs) (*pprovider.CallResult, error) {
	if tok != "comp:index:Greeter/shout" {
		return nil, fmt.Errorf("comp: unknown method %s", tok)
	}
	var a ShoutArgs
	if _, err := args.CopyTo(&a); err != nil {
		return nil, err
	}
	greeting := config.Require(ctx, "greeting")
	return pprovider.NewCallResult(&ShoutResult{Shout: strings.ToUpper(greeting) + a.Suffix})
}
