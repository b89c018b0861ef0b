package local_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/local"
	"github.com/groundwork-iac/groundwork/resource"
)

// Writing a file with the local provider, then seeing what a change of its
// content would do.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "local-example-")
	defer os.RemoveAll(dir)

	p := local.New()
	urn := resource.NewURN("dev", "demo", "", local.FileType, "motd")
	checked, _ := p.Check(ctx, providers.CheckRequest{URN: urn, News: resource.PropertyMap{
		"path":    resource.NewString(filepath.Join(dir, "motd")),
		"content": resource.NewString("hello\n"),
	}})
	created, err := p.Create(ctx, providers.CreateRequest{URN: urn, Inputs: checked.Inputs})
	if err != nil {
		fmt.Println(err)
		return
	}
	data, _ := os.ReadFile(string(created.ID))
	fmt.Printf("%q %v %s\n", data, created.Outputs["size"], created.Outputs["permissions"].StringValue())

	news := checked.Inputs.Copy()
	news["content"] = resource.NewString("goodbye\n")
	diff, _ := p.Diff(ctx, providers.DiffRequest{URN: urn, ID: created.ID, OldInputs: checked.Inputs, OldOutputs: created.Outputs, NewInputs: news})
	fmt.Println(diff.Changes, diff.DetailedDiff["content"].Kind, diff.Replace())
	// Output:
	// "hello\n" 6 0644
	// some update false
}
