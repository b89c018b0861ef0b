// Command inline deploys a program written with Pulumi's Go SDK inside
// its own process, with groundwork's engine and its built-in random
// provider: no Pulumi CLI, no plugin, no program binary. The program
// names a team's mascot (a random pet name), picks its lucky number and
// makes it a password; the pet's length comes from the stack's
// configuration, so -words changes it (and replaces the pet, since a
// random value is generated once). State lives in a file store, so a
// second run finds nothing to change and -destroy removes everything.
//
//	go run .                 # deploy (or update)
//	go run . -words 3        # a longer name: the pet is replaced
//	go run . -preview        # show what would change
//	go run . -destroy        # tear it all down
//
// The program is written with pulumi-random's generated Go SDK, as for
// the Pulumi CLI; the built-in random provider answers its types.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"

	pulumirandom "github.com/pulumi/pulumi-random/sdk/v4/go/random"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"

	"github.com/groundwork-iac/groundwork/display"
	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/langhost/inline"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/random"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
)

// defaultPassphrase encrypts the stack's secrets (the password) when
// GW_PASSPHRASE is not set. Fine for a demo; set your own otherwise.
const defaultPassphrase = "groundwork-inline"

// options are the command line's choices.
type options struct {
	dir     string
	words   int
	preview bool
	destroy bool
	mode    display.Mode
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cli(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// cli is the whole command: it parses args, runs the operation with its
// display (which shows the stack outputs and the operation's error), and
// returns the exit status. An error the display has shown is not printed
// again.
func cli(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet("inline", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.dir, "dir", "groundwork-inline", "folder for the stack's state")
	fs.IntVar(&o.words, "words", 2, "how many words the mascot's name has")
	fs.BoolVar(&o.preview, "preview", false, "show what would change without changing anything")
	fs.BoolVar(&o.destroy, "destroy", false, "delete everything the program created")
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
	store, err := filestore.New(root, state.WithSecrets(state.PassphraseSecrets(passphrase)))
	if err != nil {
		return nil, "", err
	}
	r := display.New(out, display.Options{Mode: o.mode})
	defer r.Close()
	eng, err := engine.New(engine.Config{
		Project: "mascot",
		Stack:   "dev",
		Store:   store,
		Config:  map[string]resource.PropertyValue{"mascot:words": resource.NewNumber(float64(o.words))},
		Providers: func() *providers.Registry {
			reg := providers.NewRegistry()
			if err := random.Register(reg); err != nil {
				panic(err) // the built-in's version is a constant: this cannot fail
			}
			return reg
		},
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
	prog := inline.Program(mascot)
	switch {
	case o.destroy && o.preview:
		res, err = eng.PreviewDestroy(ctx)
	case o.destroy:
		res, err = eng.Destroy(ctx)
	case o.preview:
		res, err = eng.Preview(ctx, prog)
	default:
		res, err = eng.Up(ctx, prog)
	}
	return res, shown, err
}

// mascot is the program, an ordinary Pulumi Go SDK program: the pet's
// name feeds the password's keepers, so the password is replaced with
// the pet.
func mascot(ctx *pulumi.Context) error {
	cfg := config.New(ctx, "")
	pet, err := pulumirandom.NewRandomPet(ctx, "mascot", &pulumirandom.RandomPetArgs{
		Length: pulumi.Int(cfg.RequireInt("words")),
	})
	if err != nil {
		return err
	}
	lucky, err := pulumirandom.NewRandomInteger(ctx, "lucky", &pulumirandom.RandomIntegerArgs{
		Min: pulumi.Int(1), Max: pulumi.Int(99),
	})
	if err != nil {
		return err
	}
	password, err := pulumirandom.NewRandomPassword(ctx, "password", &pulumirandom.RandomPasswordArgs{
		Length:  pulumi.Int(20),
		Keepers: pulumi.StringMap{"pet": pet.ID().ToStringOutput()},
	})
	if err != nil {
		return err
	}
	ctx.Export("mascot", pet.ID())
	ctx.Export("lucky", lucky.Result)
	ctx.Export("password", password.Result)
	return nil
}
