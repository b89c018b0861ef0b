package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/resource"
)

// stackCommand is "gw stack" and its subcommands.
func stackCommand(inv *invocation) *cobra.Command {
	return inv.group(&cobra.Command{Use: "stack [command]", Short: "manage the stacks: show, list, create, select, remove, rename; move them from and to Pulumi",
		Long: `Stack without a command shows the stack: when it was last updated, its
resources (with --show-urns, their URNs) and its outputs.`,
	}, stackShowFlags, runStackShow,
		inv.leaf(&cobra.Command{Use: "ls", Short: "list the stacks: project, last update, resource count; * marks the selected one"},
			stackListFlags, runStackList, noProgram),
		inv.leaf(&cobra.Command{Use: "init [flags] NAME", Short: "create a stack and select it"}, stateFlags, runStackInit, noProgram),
		inv.leaf(&cobra.Command{Use: "select [flags] NAME", Short: "choose the stack gw works on in this project without --stack",
			Long: `Select makes NAME the stack that gw works on in this project's folder when
neither --stack nor $GW_STACK names one. With --create it creates the stack
if it does not exist.`,
		}, stackSelectFlags, runStackSelect, noProgram),
		inv.leaf(&cobra.Command{Use: "rm [flags] [NAME]", Short: "remove a stack, its state and its config file",
			Long: `Rm removes the stack (NAME, else the one --stack or the selection names): its
state and its Pulumi.<stack>.yaml (unless --preserve-config). A stack that
still has resources is refused: destroy them first with "gw destroy", or
pass --force to forget them (they keep running, unmanaged). Without --yes it
asks for the stack's name on a terminal.`,
		}, stackRmFlags, runStackRm, noProgram),
		inv.leaf(&cobra.Command{Use: "rename [flags] NEW-NAME", Short: "rename the stack, its resources' URNs and its config file"},
			stateFlags, runStackRename, noProgram),
		inv.leaf(&cobra.Command{Use: "output [flags] [NAME]", Short: "print the stack's outputs, or one of them",
			Long: `Output prints the outputs the stack's last update recorded: all of them as a
table (or, with --json, a JSON object), or the value of one. Secret values
are shown as [secret] unless --show-secrets.`,
		}, stackOutputFlags, runStackOutput, noProgram),
		inv.leaf(&cobra.Command{Use: "export", Short: "write the stack's state as `pulumi stack export` does",
			Long: `Export writes the stack's state in Pulumi's deployment format, for "pulumi
stack import". Secrets are encrypted as Pulumi's passphrase secrets manager
does, with PULUMI_CONFIG_PASSPHRASE (else GW_PASSPHRASE) under a new salt
that the deployment records.`,
		}, stackExportFlags, runStackExport, noProgram),
		inv.leaf(&cobra.Command{Use: "import", Short: "record a stack exported by `pulumi stack export`",
			Long: `Import records a deployment written by "pulumi stack export" (or "gw stack
export") as the stack's state. Its secrets are opened with
PULUMI_CONFIG_PASSPHRASE (else GW_PASSPHRASE) and encrypted again with
GW_PASSPHRASE. The deployment's URNs must name this stack and project. A
stack that already has resources is refused unless --force.`,
		}, stackImportFlags, runStackImport, noProgram),
		stackHistoryCommand(inv),
		changeSecretsCommand(inv),
	)
}

func stackOutputFlags(fs *pflag.FlagSet, o *options) {
	stateFlags(fs, o)
	fs.BoolVar(&o.showSecrets, "show-secrets", false, "show secret values in plaintext")
	fs.BoolVarP(&o.json, "json", "j", false, "write the outputs as JSON")
}

func runStackOutput(ctx context.Context, inv *invocation, args []string) error {
	if len(args) > 1 {
		return usagef("gw stack output takes at most one output name")
	}
	o := &inv.opts
	if _, err := openProject(o); err != nil {
		return err
	}
	store, err := openStore(ctx, o)
	if err != nil {
		return err
	}
	defer store.Close()
	if exists, err := stackExists(ctx, store, projectStack(o, o.stack)); err != nil || !exists {
		if err == nil {
			err = noStack(o.stack)
		}
		return err
	}
	eng, err := engine.New(engine.Config{Project: o.project, Stack: o.stack, Store: store})
	if err != nil {
		return err
	}
	outputs, err := eng.Outputs(ctx)
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(outputs))
	for _, k := range outputs.StableKeys() {
		keys = append(keys, string(k))
	}
	if len(args) == 1 {
		v, ok := outputs[resource.PropertyKey(args[0])]
		if !ok {
			return fmt.Errorf("stack %s has no output %q", o.stack, args[0])
		}
		if o.json {
			b, err := json.MarshalIndent(mappable(v, o.showSecrets), "", "  ")
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(inv.stdout, "%s\n", b)
			return err
		}
		_, err := fmt.Fprintln(inv.stdout, formatValue(v, o.showSecrets))
		return err
	}
	values := make(map[string]resource.PropertyValue, len(outputs))
	for k, v := range outputs {
		values[string(k)] = v
	}
	if o.json {
		return writeJSONValues(inv.stdout, values, keys, o.showSecrets)
	}
	if len(keys) == 0 {
		fmt.Fprintf(inv.stdout, "Stack %s has no outputs.\n", o.stack)
		return nil
	}
	tw := tabwriter.NewWriter(inv.stdout, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "OUTPUT\tVALUE")
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t%s\n", k, formatValue(values[k], o.showSecrets))
	}
	return tw.Flush()
}
