// Command comp is a component provider plugin built with Pulumi's Go SDK
// (pkg/v3 resource/provider), for the interop suite: package "comp", one
// remote component ("comp:index:Greeter") and one method of it
// ("comp:index:Greeter/shout"). Both read the calling stack's
// configuration, as component providers do, so that tests see the engine
// sent it: the greeting from "<project>:greeting", and whether
// "<project>:token" was marked secret.
package main

import (
	"fmt"
	"os"
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
	if typ != "comp:index:Greeter" {
		return nil, fmt.Errorf("comp: unknown component type %s", typ)
	}
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
