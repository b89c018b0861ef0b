// Command quickstart deploys a small static site into a local folder with
// groundwork: a directory, a few pages (one greets a randomly named pet), and
// a command that builds an index of the pages. State lives in a file store
// beside the site, so a second run finds nothing to change and -destroy
// tears everything down.
//
//	go run ./examples/quickstart            # deploy (or update)
//	go run ./examples/quickstart -preview   # show what would change
//	go run ./examples/quickstart -destroy   # tear it all down
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/groundwork-iac/groundwork/display"
	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/command"
	"github.com/groundwork-iac/groundwork/providers/local"
	"github.com/groundwork-iac/groundwork/providers/random"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
)

// defaultPassphrase encrypts the stack's secrets when GW_PASSPHRASE is not
// set. It is fine for a demo on your own machine; set your own otherwise.
const defaultPassphrase = "groundwork-quickstart"

// options are the command line's choices.
type options struct {
	dir     string
	preview bool
	destroy bool
	mode    display.Mode
}

func main() {
	var o options
	flag.StringVar(&o.dir, "dir", "groundwork-quickstart", "folder for the site and its state")
	flag.BoolVar(&o.preview, "preview", false, "show what would change without changing anything")
	flag.BoolVar(&o.destroy, "destroy", false, "delete everything the quickstart created")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := run(ctx, o, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	if len(res.Outputs) > 0 {
		fmt.Println("\nOutputs:")
		for _, k := range res.Outputs.StableKeys() {
			fmt.Printf("  %-8s %v\n", k, res.Outputs[k])
		}
	}
}

// run performs the chosen operation and renders its events to out.
func run(ctx context.Context, o options, out io.Writer) (*engine.Result, error) {
	root, err := filepath.Abs(o.dir)
	if err != nil {
		return nil, err
	}
	passphrase := os.Getenv("GW_PASSPHRASE")
	if passphrase == "" {
		passphrase = defaultPassphrase
	}
	store, err := filestore.New(filepath.Join(root, ".state"), state.WithSecrets(state.PassphraseSecrets(passphrase)))
	if err != nil {
		return nil, err
	}
	r := display.New(out, display.Options{Mode: o.mode})
	defer r.Close()
	eng, err := engine.New(engine.Config{
		Project:   "quickstart",
		Stack:     "dev",
		Store:     store,
		Providers: builtins,
		OnEvent:   r.Event,
	})
	if err != nil {
		return nil, err
	}
	switch {
	case o.destroy && o.preview:
		return eng.PreviewDestroy(ctx)
	case o.destroy:
		return eng.Destroy(ctx)
	case o.preview:
		return eng.Preview(ctx, site(filepath.Join(root, "site")))
	default:
		return eng.Up(ctx, site(filepath.Join(root, "site")))
	}
}

// builtins is a registry of the built-in providers the site uses.
func builtins() *providers.Registry {
	r := providers.NewRegistry()
	for _, register := range []func(*providers.Registry) error{local.Register, random.Register, command.Register} {
		if err := register(r); err != nil {
			panic(err) // the built-in versions are constants: this cannot fail
		}
	}
	return r
}

// site is the program: what the stack should hold. Each resource is
// declared with its provider's typed constructor; an Output of one (the
// pet's name, the pages directory's path) used in another's arguments
// makes the second wait for the first and records the dependency.
func site(dir string) engine.Program {
	return func(ctx *engine.Context) error {
		root := local.NewDirectory(ctx, "site", local.DirectoryArgs{Path: engine.Val(dir)})
		pages := local.NewDirectory(ctx, "pages", local.DirectoryArgs{Path: engine.Val(filepath.Join(dir, "pages"))},
			engine.DependsOn(root))
		pet := random.NewPet(ctx, "mascot", random.PetArgs{Length: engine.Val(2)})

		// page writes a file into the pages directory: its path comes
		// from the directory's output, so it is written after it.
		page := func(name, file string, content engine.Output[string]) engine.Handle {
			path := engine.Apply(pages.Path, func(p string) string { return filepath.Join(p, file) })
			return local.NewFile(ctx, name, local.FileArgs{Path: path, Content: content})
		}
		files := []engine.Handle{
			page("home", "index.html", engine.Sprintf("<h1>Hello from %s!</h1>\n", pet.Result)),
			page("about", "about.html", engine.Val("<p>Deployed by groundwork, an embeddable deployment engine.</p>\n")),
			page("style", "style.css", engine.Val("h1 { font-family: sans-serif; }\n")),
		}
		index := command.NewCommand(ctx, "index", command.CommandArgs{
			Create: engine.Val("ls -1 pages > index.txt && wc -l < index.txt"),
			Delete: engine.Val("rm -f index.txt"),
			Dir:    engine.Val(dir),
			Shell:  engine.Val(true),
		}, engine.DependsOn(files...))

		ctx.Export("site", dir)
		ctx.Export("mascot", pet.Result)
		ctx.Export("pages", index.Stdout)
		return nil
	}
}
