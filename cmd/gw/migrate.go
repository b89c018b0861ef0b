package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/groundwork-iac/groundwork/migrate"
)

// This file is "gw stack export" and "gw stack import": a stack's state in
// the format of `pulumi stack export` (package migrate), to move stacks
// between Pulumi and groundwork.

func stackExportFlags(fs *pflag.FlagSet, o *options) {
	stateFlags(fs, o)
	fs.StringVar(&o.file, "file", "", "write the deployment to `FILE` instead of stdout")
}

func stackImportFlags(fs *pflag.FlagSet, o *options) {
	stateFlags(fs, o)
	fs.StringVar(&o.file, "file", "", "read the deployment from `FILE` instead of stdin")
	fs.BoolVar(&o.force, "force", false, "replace the state of a stack that already has resources")
}

func runStackExport(ctx context.Context, inv *invocation, args []string) error {
	if len(args) > 0 {
		return usagef("gw stack export takes no arguments")
	}
	o := &inv.opts
	id, err := stackID(o)
	if err != nil {
		return err
	}
	store, err := openStore(ctx, o)
	if err != nil {
		return err
	}
	defer store.Close()
	// The deployment records the salt of its secrets: Pulumi opens them
	// with that and the stack's passphrase, whatever its own salt.
	pass, err := pulumiPassphrase()
	if err != nil {
		return err
	}
	data, err := migrate.ExportStack(ctx, store, id, migrate.ToOptions{Passphrase: pass})
	if err != nil {
		return err
	}
	if o.file == "" {
		_, err = inv.stdout.Write(append(data, '\n'))
		return err
	}
	return os.WriteFile(o.file, append(data, '\n'), 0o600)
}

func runStackImport(ctx context.Context, inv *invocation, args []string) error {
	if len(args) > 0 {
		return usagef("gw stack import takes no arguments: the deployment comes from --file or stdin")
	}
	o := &inv.opts
	// The stack is the project's; the URNs must name that project.
	id, err := stackID(o)
	if err != nil {
		return err
	}
	var data []byte
	if o.file == "" {
		data, err = io.ReadAll(inv.stdin)
	} else {
		data, err = os.ReadFile(o.file)
	}
	if err != nil {
		return err
	}
	pass, err := pulumiPassphrase()
	if err != nil {
		return err
	}
	store, err := openStore(ctx, o)
	if err != nil {
		return err
	}
	defer store.Close()
	imp, err := migrate.ImportStack(ctx, store, id, data, migrate.FromOptions{
		Passphrase: pass, Project: o.project, Overwrite: o.force,
	})
	if err != nil {
		return err
	}
	for _, d := range imp.Dropped {
		fmt.Fprintln(inv.stderr, "warning:", d)
	}
	fmt.Fprintf(inv.stdout, "Imported %d resources into stack %s.\n", len(imp.Snapshot.Resources), o.stack)
	return nil
}
