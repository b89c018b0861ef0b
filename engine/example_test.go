package engine_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/local"
	"github.com/groundwork-iac/groundwork/providers/random"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
)

// The tour of the README: deploy a page greeting a randomly named pet,
// read the outputs, deploy again (nothing changes), and tear it down.
func Example() {
	work, err := os.MkdirTemp("", "groundwork-tour-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)
	home, err := os.Getwd()
	if err != nil {
		log.Fatal(err)
	}
	defer os.Chdir(home)
	if err := os.Chdir(work); err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	pass := "correct horse battery staple"

	// tour begins
	store, err := filestore.New(".state", state.WithSecrets(state.PassphraseSecrets(pass)))
	if err != nil {
		log.Fatal(err)
	}
	eng, err := engine.New(engine.Config{
		Project: "site", Stack: "dev", Store: store,
		Providers: func() *providers.Registry {
			r := providers.NewRegistry()
			_ = local.Register(r) // built-in providers: local, random, command
			_ = random.Register(r)
			return r
		},
	})
	if err != nil {
		log.Fatal(err)
	}

	site := func(ctx *engine.Context) error {
		dir := local.NewDirectory(ctx, "site", local.DirectoryArgs{Path: engine.Val("./site")})
		pet := random.NewPet(ctx, "mascot", random.PetArgs{Length: engine.Val(2)})
		page := local.NewFile(ctx, "index", local.FileArgs{
			// Outputs as inputs: the page waits for the directory and
			// the pet, and records that it depends on them.
			Path:    engine.Apply(dir.Path, func(d string) string { return filepath.Join(d, "index.html") }),
			Content: engine.Sprintf("<h1>Hello from %s!</h1>\n", pet.Result),
		})
		ctx.Export("page", page.Path)
		ctx.Export("bytes", page.Size)
		return nil
	}

	res, err := eng.Up(ctx, site)
	if err != nil {
		log.Fatal(err) // names the resource and what went wrong
	}
	var out struct {
		Page  string `prop:"page"`
		Bytes int    `prop:"bytes"`
	}
	if err := res.Outputs.Decode(&out); err != nil {
		log.Fatal(err)
	}
	// The stack itself counts too, as in the display's summary; the
	// default providers of local and random, which the engine made on
	// its own, do not: four in all.
	fmt.Println("created", res.Counts[engine.StepCreate], "resources; the page is", out.Page)

	res, err = eng.Up(ctx, site) // nothing to change the second time
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("changes:", res.HasChanges())

	res, err = eng.Destroy(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("deleted", res.Counts[engine.StepDelete], "resources")
	// tour ends

	// Output:
	// created 4 resources; the page is site/index.html
	// changes: false
	// deleted 4 resources
}
