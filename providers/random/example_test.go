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
