package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/groundwork-iac/groundwork/resource"
)

// configCommand is "gw config" and its subcommands. The configuration is
// the stack's Pulumi.<stack>.yaml in the project's folder, which the
// Pulumi CLI reads and writes too.
func configCommand(inv *invocation) *cobra.Command {
	return inv.group(&cobra.Command{Use: "config <command>", Short: "show and change the stack's configuration",
		Long: `Config shows the stack's configuration, kept in Pulumi.<stack>.yaml beside
Pulumi.yaml in the format the Pulumi CLI reads and writes. Secret values are
encrypted with the passphrase (GW_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE)
and listed as [secret] unless --show-secrets. Keys without a namespace get
the project's: "region" is "<project>:region".`,
	}, configListFlags, runConfigList,
		inv.leaf(&cobra.Command{Use: "set [flags] KEY [VALUE]", Short: "set a config value (asked for if VALUE is not given, or read from stdin)"},
			configSetFlags, runConfigSet, moreArgs),
		inv.leaf(&cobra.Command{Use: "get [flags] KEY", Short: "print a config value (secrets decrypted)"}, configGetFlags, runConfigGet, moreArgs),
		inv.leaf(&cobra.Command{Use: "rm [flags] KEY", Short: "remove a config value"}, configRmFlags, runConfigRm, moreArgs),
	)
}

func configListFlags(fs *pflag.FlagSet, o *options) {
	projectFlags(fs, o)
	fs.BoolVar(&o.showSecrets, "show-secrets", false, "show secret values in plaintext")
	fs.BoolVarP(&o.json, "json", "j", false, "write the configuration as a JSON object")
}

func configSetFlags(fs *pflag.FlagSet, o *options) {
	configRmFlags(fs, o)
	fs.BoolVar(&o.secret, "secret", false, "encrypt the value")
}

func configRmFlags(fs *pflag.FlagSet, o *options) {
	projectFlags(fs, o)
	fs.BoolVar(&o.path, "path", false, `KEY is a path into a structured value ('servers[0].host', 'tags["a.b"]')`)
}

func configGetFlags(fs *pflag.FlagSet, o *options) {
	configRmFlags(fs, o)
	fs.BoolVarP(&o.json, "json", "j", false, "write the value as JSON")
}

// openStackConfig reads the project and the stack's config file.
func openStackConfig(inv *invocation) (*stackConfig, error) {
	proj, err := openProject(&inv.opts)
	if err != nil {
		return nil, err
	}
	return loadStackConfig(proj.Dir, inv.opts.stack, passphrase)
}

// changeStackConfig reads the project, then changes the stack's config
// file under its lock (see updateStackConfig).
func changeStackConfig(ctx context.Context, inv *invocation, change func(*stackConfig) error) error {
	proj, err := openProject(&inv.opts)
	if err != nil {
		return err
	}
	return updateStackConfig(ctx, proj.Dir, inv.opts.stack, passphrase, change)
}

func runConfigList(ctx context.Context, inv *invocation, args []string) error {
	if len(args) > 0 {
		return &usageError{msg: fmt.Sprintf("unknown command %q", "gw config "+args[0]), path: "gw config"}
	}
	cfg, err := openStackConfig(inv)
	if err != nil {
		return err
	}
	keys, err := cfg.keys()
	if err != nil {
		return err
	}
	values := make(map[string]resource.PropertyValue, len(keys))
	for _, k := range keys {
		// Secret values are decrypted only to be shown.
		if !inv.opts.showSecrets && cfg.isSecure(k) {
			values[k] = resource.NewSecret(resource.NewString(""))
			continue
		}
		v, _, err := cfg.get(ctx, k)
		if err != nil {
			return err
		}
		values[k] = v
	}
	if inv.opts.json {
		out := make(map[string]configJSON, len(keys))
		for _, k := range keys {
			out[k] = configJSONOf(values[k], inv.opts.showSecrets)
		}
		return writeJSON(inv.stdout, out)
	}
	if len(keys) == 0 {
		fmt.Fprintf(inv.stdout, "Stack %s has no configuration: set some with \"gw config set KEY VALUE\".\n", inv.opts.stack)
		return nil
	}
	tw := tabwriter.NewWriter(inv.stdout, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE")
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t%s\n", k, formatValue(values[k], inv.opts.showSecrets))
	}
	return tw.Flush()
}

func runConfigSet(ctx context.Context, inv *invocation, args []string) error {
	if len(args) < 1 || len(args) > 2 {
		return usagef("gw config set takes KEY and VALUE (or the value on stdin)")
	}
	value := ""
	switch {
	case len(args) == 2:
		value = args[1]
	case isTerminal(inv.stdin):
		v, err := askValue(ctx, inv.stdin.(*os.File), inv.stderr, inv.opts.secret)
		if err != nil {
			return err
		}
		value = v
	default:
		b, err := io.ReadAll(inv.stdin)
		if err != nil {
			return err
		}
		value = strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	}
	return changeStackConfig(ctx, inv, func(cfg *stackConfig) error {
		key, steps, err := configKey(&inv.opts, args[0])
		if err != nil {
			return err
		}
		if len(steps) == 0 {
			return cfg.set(ctx, key, value, inv.opts.secret)
		}
		return cfg.setPath(ctx, key, steps, value, inv.opts.secret)
	})
}

// askValue asks for a config value on the terminal in, as the Pulumi CLI
// does: one line, not echoed for a secret. An interrupt (ctx) ends it.
func askValue(ctx context.Context, in *os.File, prompt io.Writer, secret bool) (string, error) {
	fmt.Fprint(prompt, "value: ")
	var v string
	var err error
	if secret {
		v, err = readSecret(ctx, in)
		fmt.Fprintln(prompt)
	} else {
		v, err = askLine(ctx, in)
	}
	if err != nil {
		return "", fmt.Errorf("cancelled: nothing was set (%w)", err)
	}
	return v, nil
}

func runConfigGet(ctx context.Context, inv *invocation, args []string) error {
	if len(args) != 1 {
		return usagef("gw config get takes KEY")
	}
	cfg, err := openStackConfig(inv)
	if err != nil {
		return err
	}
	key, steps, err := configKey(&inv.opts, args[0])
	if err != nil {
		return err
	}
	v, ok, err := cfg.getPath(ctx, key, steps)
	if err != nil {
		return err
	}
	if !ok {
		set := "gw config set"
		if inv.opts.path {
			key, set = args[0], "gw config set --path"
		}
		return fmt.Errorf("stack %s has no config value %s: set it with \"%s %s VALUE\"", inv.opts.stack, key, set, args[0])
	}
	if inv.opts.json {
		return writeJSON(inv.stdout, configJSONOf(v, true))
	}
	_, err = fmt.Fprintln(inv.stdout, formatValue(v, true))
	return err
}

func runConfigRm(ctx context.Context, inv *invocation, args []string) error {
	if len(args) != 1 {
		return usagef("gw config rm takes KEY")
	}
	return changeStackConfig(ctx, inv, func(cfg *stackConfig) error {
		key, steps, err := configKey(&inv.opts, args[0])
		if err != nil {
			return err
		}
		removed, err := cfg.removePath(key, steps)
		if err == nil && !removed {
			if inv.opts.path {
				key = args[0]
			}
			err = fmt.Errorf("stack %s has no config value %s", inv.opts.stack, key)
		}
		return err
	})
}

// configJSON is a config value as "pulumi config --json" writes it: the
// value as a string (a structure as its JSON), the structure itself, and
// whether it is secret; a secret's value only when it is shown.
type configJSON struct {
	Value       *string `json:"value,omitempty"`
	ObjectValue any     `json:"objectValue,omitempty"`
	Secret      bool    `json:"secret"`
}

// configJSONOf is v as a configJSON, its secrets shown if showSecrets.
func configJSONOf(v resource.PropertyValue, showSecrets bool) configJSON {
	out := configJSON{Secret: v.ContainsSecrets()}
	if out.Secret && !showSecrets {
		return out
	}
	plain := v.Unwrap()
	if plain.IsString() {
		s := plain.StringValue()
		out.Value = &s
		return out
	}
	obj := mappable(plain, true)
	b, err := json.Marshal(obj)
	if err != nil {
		b = []byte(fmt.Sprint(obj))
	}
	s := string(b)
	out.Value, out.ObjectValue = &s, obj
	return out
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// formatValue shows a value on one line: a string as it is, anything else
// as JSON, a secret as [secret] unless showSecrets.
func formatValue(v resource.PropertyValue, showSecrets bool) string {
	if !showSecrets && v.ContainsSecrets() {
		if v.IsSecret() {
			return "[secret]"
		}
		v = maskValue(v)
	}
	plain := v.Unwrap()
	if plain.IsString() {
		return plain.StringValue()
	}
	b, err := json.Marshal(mappable(plain, showSecrets))
	if err != nil {
		return fmt.Sprint(plain.Mappable())
	}
	return string(b)
}

// writeJSONValues writes values as one JSON object, secrets masked unless
// showSecrets.
func writeJSONValues(w io.Writer, values map[string]resource.PropertyValue, keys []string, showSecrets bool) error {
	out := make(map[string]any, len(values))
	for _, k := range keys {
		out[k] = mappable(values[k], showSecrets)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// mappable is v as plain Go values for JSON, secrets as "[secret]" unless
// showSecrets.
func mappable(v resource.PropertyValue, showSecrets bool) any {
	if !showSecrets {
		v = maskValue(v)
	}
	return v.Unwrap().Mappable()
}

// maskValue replaces every secret inside v with "[secret]".
func maskValue(v resource.PropertyValue) resource.PropertyValue {
	switch {
	case !v.ContainsSecrets():
		return v
	case v.IsSecret():
		return resource.NewString("[secret]")
	case v.IsArray():
		a := v.ArrayValue()
		out := make([]resource.PropertyValue, len(a))
		for i, e := range a {
			out[i] = maskValue(e)
		}
		return resource.NewArray(out...)
	case v.IsObject():
		obj := v.ObjectValue()
		out := make(resource.PropertyMap, len(obj))
		for k, e := range obj {
			out[k] = maskValue(e)
		}
		return resource.NewObject(out)
	}
	return v.Unwrap()
}
