// Command quickstart deploys a small static site into a local folder with
// groundwork: a directory, a few pages (one greets a randomly named pet), and
// a command that builds an index of the pages. State lives in a file store
// beside the site, so a second run finds nothing to change and -destroy
// tears everything down.
//
//	go run ./examples/quickstart            # deploy (or update)
//	go run ./examples/quickstart -preview   # show what would change
//	go run ./examples/quickstart -preview -diff   # ... with every input
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
	"strings"

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
	diff    bool
	mode    display.Mode
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cli(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// cli is the whole command: it parses args, runs the operation with its
// display (which shows the stack outputs), and returns the exit status. An
// error the display has shown in its summary is not printed again.
func cli(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.dir, "dir", "groundwork-quickstart", "folder for the site and its state")
	fs.BoolVar(&o.preview, "preview", false, "show what would change without changing anything")
	fs.BoolVar(&o.destroy, "destroy", false, "delete everything the quickstart created")
	fs.BoolVar(&o.diff, "diff", false, "show the inputs of each resource and what changes in them")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	_, shown, err := run(ctx, o, stdout)
	if err != nil {
		if err.Error() != shown {
			fmt.Fprintln(stderr, "error:", err)
		}
		return 1
	}
	return 0
}

// run performs the chosen operation and renders its events to out. shown
// is the error the display showed in its summary, if any.
func run(ctx context.Context, o options, out io.Writer) (res *engine.Result, shown string, err error) {
	root, err := filepath.Abs(o.dir)
	if err != nil {
		return nil, "", err
	}
	passphrase := os.Getenv("GW_PASSPHRASE")
	if passphrase == "" {
		passphrase = defaultPassphrase
	}
	store, err := filestore.New(filepath.Join(root, ".state"), state.WithSecrets(state.PassphraseSecrets(passphrase)))
	if err != nil {
		return nil, "", err
	}
	r := display.New(out, display.Options{Mode: o.mode, ShowDiff: o.diff})
	defer r.Close()
	eng, err := engine.New(engine.Config{
		Project:   "quickstart",
		Stack:     "dev",
		Store:     store,
		Providers: builtins,
		OnEvent: func(e engine.Event) {
			if sum, ok := e.(engine.SummaryEvent); ok {
				shown = sum.Error
			}
			r.Event(e)
		},
	})
	if err != nil {
		return nil, "", err
	}
	switch {
	case o.destroy && o.preview:
		res, err = eng.PreviewDestroy(ctx)
	case o.destroy:
		res, err = eng.Destroy(ctx)
	case o.preview:
		res, err = eng.Preview(ctx, site(filepath.Join(root, "site")))
	default:
		res, err = eng.Up(ctx, site(filepath.Join(root, "site")))
	}
	return res, shown, err
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
		// from the directory's output, so it is written after it. The
		// index lists the files named here.
		var names []string
		page := func(name, file string, content engine.Output[string]) engine.Handle {
			names = append(names, file)
			path := engine.Apply(pages.Path, func(p string) string { return filepath.Join(p, file) })
			return local.NewFile(ctx, name, local.FileArgs{Path: path, Content: content})
		}
		files := []engine.Handle{
			page("home", "index.html", engine.Sprintf("<h1>Hello from %s!</h1>\n", pet.Result)),
			page("about", "about.html", engine.Val("<p>Deployed by groundwork, an embeddable deployment engine.</p>\n")),
			page("style", "style.css", engine.Val("h1 { font-family: sans-serif; }\n")),
		}
		index := pageIndex(ctx, dir, names, files)

		ctx.Export("site", dir)
		ctx.Export("mascot", pet.Result)
		ctx.Export("pages", index.Stdout)
		return nil
	}
}

// pageIndex declares the command that writes the index of the pages,
// dir/index.txt, once the pages exist, and reports how many there are.
// The index is built from the file names the program declares, passed in
// the command's environment: adding or removing a page changes the
// environment, so an update rewrites the index. (Listing the folder
// instead would see a removed page still there, since deletes run last.)
func pageIndex(ctx *engine.Context, dir string, names []string, pages []engine.Handle) *command.Command {
	return command.NewCommand(ctx, "index", command.CommandArgs{
		Create:      engine.Val(`printf '%s\n' $PAGES > index.txt && wc -l < index.txt`),
		Delete:      engine.Val("rm -f index.txt"),
		Dir:         engine.Val(dir),
		Environment: engine.Val(map[string]string{"PAGES": strings.Join(names, " ")}),
		Shell:       engine.Val(true),
	}, engine.DependsOn(pages...))
}
