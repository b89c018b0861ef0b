package random_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/random"
	"github.com/groundwork-iac/groundwork/resource"
)

// A pet name is generated once; changing its keepers asks for a new one.
func Example() {
	ctx := context.Background()
	p := random.New()
	urn := resource.NewURN("dev", "demo", "", random.PetType, "server-name")
	inputs := resource.PropertyMap{
		"length":  resource.NewNumber(3),
		"keepers": resource.NewObject(resource.PropertyMap{"image": resource.NewString("v1")}),
	}
	checked, _ := p.Check(ctx, providers.CheckRequest{URN: urn, News: inputs})
	created, err := p.Create(ctx, providers.CreateRequest{URN: urn, Inputs: checked.Inputs})
	if err != nil {
		fmt.Println(err)
		return
	}
	name := created.Outputs["result"].StringValue()
	fmt.Println("words:", len(strings.Split(name, "-")))

	news := checked.Inputs.Copy()
	news["keepers"] = resource.NewObject(resource.PropertyMap{"image": resource.NewString("v2")})
	diff, _ := p.Diff(ctx, providers.DiffRequest{URN: urn, ID: created.ID, OldInputs: checked.Inputs, OldOutputs: created.Outputs, NewInputs: news})
	fmt.Println(diff.DetailedDiff["keepers.image"].Kind, diff.Replace())
	// Output:
	// words: 3
	// update-replace true
}

// pulumi-random's types: a RandomId's ID is its b64Url, after the prefix,
// and its other renderings carry the prefix too.
func Example_pulumiRandom() {
	ctx := context.Background()
	p := random.New()
	urn := resource.NewURN("dev", "demo", "", random.RandomIDType, "server-id")
	inputs := resource.PropertyMap{"byteLength": resource.NewNumber(4), "prefix": resource.NewString("srv-")}
	created, err := p.Create(ctx, providers.CreateRequest{URN: urn, Inputs: inputs})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(created.ID) == created.Outputs["b64Url"].StringValue())
	fmt.Println(strings.HasPrefix(created.Outputs["hex"].StringValue(), "srv-"), len(created.Outputs["hex"].StringValue()))
	// Output:
	// true
	// true 12
}
