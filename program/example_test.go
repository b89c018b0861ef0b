package program_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/program"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/local"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// A program declares resources through its Context; values that become
// known as resources deploy are Outputs, and an Output used as an input
// makes the registration wait for it and depend on where it came from.
func Example() {
	dir, err := os.MkdirTemp("", "program-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	eng, err := engine.New(engine.Config{
		Project: "site", Stack: "dev", Store: memstore.New(),
		Providers: func() *providers.Registry {
			r := providers.NewRegistry()
			_ = local.Register(r)
			return r
		},
	})
	if err != nil {
		log.Fatal(err)
	}

	site := func(ctx *program.Context) error {
		folder := local.NewDirectory(ctx, "site", local.DirectoryArgs{Path: program.Val(filepath.Join(dir, "site"))})
		page := local.NewFile(ctx, "index", local.FileArgs{
			// The page waits for the folder, and depends on it.
			Path:    program.Apply(folder.Path, func(d string) string { return filepath.Join(d, "index.html") }),
			Content: program.Sprintf("<h1>Hello from %s!</h1>\n", program.Val(ctx.Stack())),
		})
		ctx.Export("bytes", page.Size)
		return nil
	}

	res, err := eng.Up(context.Background(), site)
	if err != nil {
		log.Fatal(err)
	}
	var out struct {
		Bytes int `prop:"bytes"`
	}
	if err := res.Outputs.Decode(&out); err != nil {
		log.Fatal(err)
	}
	content, err := os.ReadFile(filepath.Join(dir, "site", "index.html"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.TrimSpace(string(content)), out.Bytes, "bytes")
	// Output:
	// <h1>Hello from dev!</h1> 25 bytes
}
