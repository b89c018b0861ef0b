package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// This file is "gw stack change-secrets-provider passphrase": a stack's
// secrets, in its state and in its config file, encrypted again under a
// new passphrase, including a stack that had none.

func changeSecretsCommand(inv *invocation) *cobra.Command {
	return inv.leaf(&cobra.Command{Use: "change-secrets-provider [flags] passphrase",
		Short: "encrypt the stack's secrets with a new passphrase",
		Long: `Change-secrets-provider encrypts the stack's secrets again, in its state and
in Pulumi.<stack>.yaml, with a new passphrase. The stack is opened with the
passphrase in the environment (GW_PASSPHRASE, PULUMI_CONFIG_PASSPHRASE or
PULUMI_CONFIG_PASSPHRASE_FILE). The new passphrase is the content of
--new-passphrase-file, else a line read from stdin (asked for on a
terminal). A stack written without a passphrase is protected with the one
in the environment, unless --new-passphrase-file names another. Passphrase
is the only provider gw has.`,
	}, changeSecretsFlags, runChangeSecrets, noProgram)
}

func changeSecretsFlags(fs *pflag.FlagSet, o *options) {
	stateFlags(fs, o)
	fs.StringVar(&o.newPassphraseFile, "new-passphrase-file", "", "read the new passphrase from `FILE`")
}

func runChangeSecrets(ctx context.Context, inv *invocation, args []string) error {
	if len(args) != 1 || args[0] != "passphrase" {
		return usagef("gw stack change-secrets-provider takes the provider, and gw has one: passphrase")
	}
	o := &inv.opts
	proj, err := openProject(o)
	if err != nil {
		return err
	}
	old, err := passphrase()
	if err != nil {
		return err
	}
	snap, err := loadForRekey(ctx, o, old)
	if err != nil {
		return err
	}
	next, err := newPassphrase(ctx, inv, old, snap.Secrets == nil)
	if err != nil {
		return err
	}
	// The config file is changed under its lock, its new content written
	// only once the state has been saved under the new passphrase.
	err = updateStackConfig(ctx, proj.Dir, o.stack, passphrase, func(cfg *stackConfig) error {
		if err := cfg.rekey(ctx, next); err != nil {
			return err
		}
		return saveRekeyed(ctx, o, snap, next)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(inv.stdout, "The secrets of stack %s are encrypted with the new passphrase: set it in GW_PASSPHRASE from now on.\n", o.stack)
	return nil
}

// loadForRekey loads the stack with the passphrase it was written with:
// old, or none for a stack written without one.
func loadForRekey(ctx context.Context, o *options, old string) (*state.Snapshot, error) {
	var opts []state.Option
	if old != "" {
		opts = append(opts, state.WithSecrets(state.PassphraseSecrets(old)))
	}
	snap, err := loadWith(ctx, o, opts...)
	var auth *state.AuthenticationError
	if errors.As(err, &auth) && auth.Missing && old != "" {
		// Written without a passphrase: this command is the migration
		// the error advises, so the unkeyed checksum is trusted once.
		snap, err = loadWith(ctx, o, append(opts, state.WithUnauthenticatedSnapshots())...)
		if err == nil && snap.Secrets != nil {
			return nil, fmt.Errorf("stack %s records a passphrase but its snapshot carries no MAC: restore it from a backup", o.stack)
		}
	}
	return snap, err
}

// loadWith loads the stack from a store opened with opts.
func loadWith(ctx context.Context, o *options, opts ...state.Option) (*state.Snapshot, error) {
	store, err := openStoreWith(ctx, o, opts...)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	return store.Load(ctx, projectStack(o, o.stack))
}

// saveRekeyed saves snap as the stack's state under a new passphrase.
func saveRekeyed(ctx context.Context, o *options, snap *state.Snapshot, next string) error {
	store, err := openStoreWith(ctx, o, state.WithSecrets(state.PassphraseSecrets(next)))
	if err != nil {
		return err
	}
	defer store.Close()
	// The snapshot records a new passphrase manager (a new salt), which
	// the store opens with the new passphrase to encrypt its secrets.
	mgr, err := secrets.NewPassphrase(next)
	if err != nil {
		return err
	}
	rekeyed := *snap
	rekeyed.Secrets = &state.SecretsState{Type: mgr.Type(), State: mgr.State()}
	return store.Save(ctx, projectStack(o, o.stack), &rekeyed)
}

// newPassphrase is the passphrase the secrets move to: that of
// --new-passphrase-file, else the environment's for a stack that had
// none, else a line of stdin.
func newPassphrase(ctx context.Context, inv *invocation, old string, hadNone bool) (string, error) {
	var next string
	switch {
	case inv.opts.newPassphraseFile != "":
		b, err := os.ReadFile(inv.opts.newPassphraseFile)
		if err != nil {
			return "", fmt.Errorf("reading the new passphrase: %w", err)
		}
		next = strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	case hadNone && old != "":
		next = old
	default:
		if f, ok := inv.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			fmt.Fprint(inv.stderr, "New passphrase: ")
			line, err := readSecret(ctx, f)
			fmt.Fprintln(inv.stderr)
			if err != nil {
				return "", fmt.Errorf("cancelled: nothing was changed (%w)", err)
			}
			next = line
			break
		}
		line, err := bufio.NewReader(inv.stdin).ReadString('\n')
		if err != nil && line == "" {
			return "", usagef("give the new passphrase on stdin or with --new-passphrase-file")
		}
		next = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	}
	if next == "" {
		return "", usagef("the new passphrase is empty")
	}
	return next, nil
}
