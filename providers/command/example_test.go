package command_test

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/command"
	"github.com/groundwork-iac/groundwork/resource"
)

// A command runs when the resource is created; its output becomes the
// resource's stdout.
func Example() {
	ctx := context.Background()
	p := command.New()
	urn := resource.NewURN("dev", "demo", "", command.CommandType, "greet")
	checked, _ := p.Check(ctx, providers.CheckRequest{URN: urn, News: resource.PropertyMap{
		"create": resource.NewString(`printf "%s, %s\n" hello 'wide world'`),
	}})
	created, err := p.Create(ctx, providers.CreateRequest{URN: urn, Inputs: checked.Inputs})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(created.Outputs["stdout"].StringValue())
	// Output:
	// hello, wide world
}

// pulumi-command's run function runs its command every time it is called
// and returns what the command wrote.
func Example_localRun() {
	p := command.New().(providers.Invoker)
	resp, err := p.Invoke(context.Background(), providers.InvokeRequest{Token: command.RunFunction, Args: resource.PropertyMap{
		"command":     resource.NewString(`echo "hello, $WHO"`),
		"environment": resource.NewObject(resource.PropertyMap{"WHO": resource.NewString("world")}),
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Return["stdout"].StringValue())
	// Output:
	// hello, world
}
