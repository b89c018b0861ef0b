// Command custom-provider deploys resources of a provider it defines
// itself, in Go: a "kv" provider that keeps key/value entries as files in
// a folder (kv.go). It registers the provider in a providers.Registry,
// deploys a few entries with engine.Up into a file store, deploys again to
// show that nothing changes, and destroys everything, printing each
// operation with the display package.
//
//	go run ./examples/custom-provider
//	go run ./examples/custom-provider -dir ./kv-demo   # in ./kv-demo, kept after the run
//
// It needs no network and no account: everything happens in a temporary
// folder (or -dir).
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
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// defaultPassphrase encrypts the secrets in the state when GW_PASSPHRASE
// is not set. Fine for a demo; set your own otherwise.
const defaultPassphrase = "groundwork-example"

func main() {
	dir := flag.String("dir", "", "folder for the entries and the state (default: a temporary folder, removed at the end)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	root := *dir
	if root == "" {
		tmp, err := os.MkdirTemp("", "groundwork-kv-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			os.Exit(1)
		}
		defer os.RemoveAll(tmp)
		root = tmp
	}
	store, err := openStore(root)
	if err == nil {
		_, err = run(ctx, store, filepath.Join(root, "data"), os.Stdout, display.ModeAuto)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		stop()
		os.Exit(1)
	}
}

// runs is what each of run's operations did.
type runs struct {
	first, second, destroy *engine.Result
}

// openStore opens the file store that keeps the stack's state under
// root, its secrets encrypted with the passphrase from GW_PASSPHRASE.
func openStore(root string, opts ...secrets.PassphraseOption) (state.Store, error) {
	passphrase := os.Getenv("GW_PASSPHRASE")
	if passphrase == "" {
		passphrase = defaultPassphrase
	}
	return filestore.New(filepath.Join(root, "state"), state.WithSecrets(state.PassphraseSecrets(passphrase, opts...)))
}

// run deploys the program twice and then destroys it, with the kv
// provider keeping its entries in data, rendering every operation to out.
func run(ctx context.Context, store state.Store, data string, out io.Writer, mode display.Mode) (runs, error) {
	var rs runs
	r := display.New(out, display.Options{Mode: mode, ShowDiff: true})
	defer r.Close()
	eng, err := engine.New(engine.Config{
		Project: "kv-demo",
		Stack:   "dev",
		Store:   store,
		// Every operation gets a fresh registry that serves the kv
		// package with our provider.
		Providers: func() *providers.Registry {
			reg := providers.NewRegistry()
			err := reg.RegisterFactory("kv", "1.0.0", func(context.Context) (providers.Provider, error) {
				return newKV(data), nil
			})
			if err != nil {
				panic(err) // a constant package and version: cannot fail
			}
			return reg
		},
		OnEvent: r.Event,
	})
	if err != nil {
		return rs, err
	}

	if rs.first, err = eng.Up(ctx, program); err != nil {
		return rs, fmt.Errorf("first deployment: %w", err)
	}
	fmt.Fprintf(out, "\nThe entries are files in %s. Deploying again changes nothing:\n\n", data)
	if rs.second, err = eng.Up(ctx, program); err != nil {
		return rs, fmt.Errorf("second deployment: %w", err)
	}
	fmt.Fprintf(out, "\nChanges in the second run: %v. Now destroying:\n\n", rs.second.HasChanges())
	if rs.destroy, err = eng.Destroy(ctx); err != nil {
		return rs, fmt.Errorf("destroy: %w", err)
	}
	return rs, nil
}

// entryArgs are an Entry's inputs as the program gives them: Outputs, so
// that a value can come from another resource.
type entryArgs struct {
	Key   engine.Output[string] `prop:"key"`
	Value engine.Output[string] `prop:"value"`
}

// entry is a declared Entry: its handle and its outputs.
type entry struct {
	*engine.Resource
	Key   engine.Output[string] `prop:"key"`
	Value engine.Output[string] `prop:"value"`
	Path  engine.Output[string] `prop:"path"`
}

// newEntry declares a kv entry, as the built-in providers' typed
// constructors (local.NewFile, say) declare theirs.
func newEntry(ctx *engine.Context, name string, args entryArgs, opts ...engine.ResourceOption) *entry {
	return engine.NewResource[entry](ctx, entryType, name, args, opts...)
}

// program declares three entries. The "index" entry's value is built
// from the "greeting" entry's path, so it is deployed after it; the token
// is a secret, encrypted in the state and masked in the display.
func program(ctx *engine.Context) error {
	greeting := newEntry(ctx, "greeting", entryArgs{Key: engine.Val("greeting"), Value: engine.Val("hello, world")})
	token := newEntry(ctx, "token", entryArgs{Key: engine.Val("api-token"), Value: engine.Secret(engine.Val("s3cr3t-t0ken"))})
	newEntry(ctx, "index", entryArgs{
		Key:   engine.Val("index"),
		Value: engine.Apply(greeting.Path, func(p string) string { return "see " + filepath.Base(p) }),
	}, engine.DependsOn(token))
	ctx.Export("greeting", greeting.Path)
	return nil
}
