// Command gowire is a Pulumi Go SDK program of the interop suite (see
// wire_test.go): a remote component of the comp plugin and a call of its
// method, both of which read the stack's configuration.
package main

import (
	"fmt"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Greeter is the comp plugin's remote component.
type Greeter struct {
	pulumi.ResourceState
	Message       pulumi.StringOutput `pulumi:"message"`
	TokenIsSecret pulumi.BoolOutput   `pulumi:"tokenIsSecret"`
}

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		var g Greeter
		err := ctx.RegisterRemoteComponentResource("comp:index:Greeter", "greeter",
			pulumi.Map{"name": pulumi.String("go")}, &g)
		if err != nil {
			return err
		}
		ret, err := ctx.Call("comp:index:Greeter/shout", pulumi.Map{"suffix": pulumi.String("?")}, pulumi.AnyOutput{}, &g)
		if err != nil {
			return err
		}
		ctx.Export("message", g.Message)
		ctx.Export("tokenIsSecret", g.TokenIsSecret)
		ctx.Export("shout", ret.ApplyT(func(v any) (string, error) {
			m, ok := v.(map[string]any)
			if !ok {
				return "", fmt.Errorf("shout returned %v", v)
			}
			s, _ := m["shout"].(string)
			return s, nil
		}))
		return nil
	})
}
