// Command crashprog runs one Up of a generated program against the
// ledger-backed world provider, with the file store. The crash test builds
// it, starts it, and kills it with SIGKILL at a random moment.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/reliability/internal/world"
	"github.com/groundwork-iac/groundwork/state/filestore"
)

func main() {
	dir := flag.String("store", "", "the file store's root folder")
	ledger := flag.String("ledger", "", "the world's ledger file")
	stack := flag.String("stack", "dev", "the stack")
	seed := flag.Uint64("seed", 1, "the program's seed")
	n := flag.Int("n", 100, "how many resources the program has")
	version := flag.Int("version", 2, "which version of the program to deploy (1 or 2)")
	sleep := flag.Duration("sleep", 2*time.Millisecond, "the longest a provider call sleeps")
	keyed := flag.Bool("keyed", false, "key the stack with a passphrase (authenticated snapshots, tagged journal records)")
	flag.Parse()
	if err := run(*dir, *ledger, *stack, *seed, *n, *version, *sleep, *keyed); err != nil {
		fmt.Fprintln(os.Stderr, "crashprog:", err)
		os.Exit(1)
	}
	fmt.Println("done")
}

func run(dir, ledgerPath, stack string, seed uint64, n, version int, sleep time.Duration, keyed bool) error {
	l, err := world.OpenLedger(ledgerPath, true)
	if err != nil {
		return err
	}
	defer l.Close()
	store, err := filestore.New(dir, world.StoreOptions(keyed)...)
	if err != nil {
		return err
	}
	v1, v2 := world.Generate(seed, n)
	spec := v1
	if version == 2 {
		spec = v2
	}
	prov := world.NewProvider(l, sleep, seed).Func()
	eng, err := engine.New(engine.Config{
		Project: "crashtest", Stack: stack, Store: store,
		Providers: func() *providers.Registry {
			r := providers.NewRegistry()
			_ = r.RegisterFactory(world.Package, "1.0.0", func(context.Context) (providers.Provider, error) { return prov, nil })
			return r
		},
	})
	if err != nil {
		return err
	}
	_, err = eng.Up(context.Background(), spec.Program())
	return err
}
