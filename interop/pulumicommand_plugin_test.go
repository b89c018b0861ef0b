package interop

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/langhost"
	"github.com/groundwork-iac/groundwork/plugin"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/command"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
)

// pulumiCommandPluginVar names a pulumi-resource-command binary built from
// pulumi-command's provider module, for TestPulumiCommandAgainstPlugin.
// The Go module proxy does not serve that module, so CI has none; see
// TESTING.md for how to build one.
const pulumiCommandPluginVar = "GROUNDWORK_PULUMI_COMMAND_PLUGIN"

// recordedCommand is a command resource's record, reduced to what both
// providers must agree on: inputs and outputs as plain values (assets by
// hash and path), the keys whose values are secret, and whether the ID
// has pulumi-command's shape.
type recordedCommand struct {
	Inputs, Outputs             map[string]any
	SecretInputs, SecretOutputs []string
	IDShaped                    bool
}

func secretKeys(m resource.PropertyMap) []string {
	var out []string
	for _, k := range m.StableKeys() {
		if m[k].ContainsSecrets() {
			out = append(out, string(k))
		}
	}
	return out
}

// TestPulumiCommandAgainstPlugin runs programs/gocommand through the
// engine twice, once on the built-in command provider and once on the
// real pulumi-resource-command plugin named by
// GROUNDWORK_PULUMI_COMMAND_PLUGIN, through the same lifecycle as
// TestPulumiCommandSDK, and compares what the commands did and the state
// each leaves after every step. The one difference expected is the
// documented one: the built-in records the stdout and stderr of a command
// given a secret as secrets.
func TestPulumiCommandAgainstPlugin(t *testing.T) {
	bin := os.Getenv(pulumiCommandPluginVar)
	if bin == "" {
		t.Skipf("set %s to a pulumi-resource-command binary built from pulumi-command v1.2.1 to compare with it (TESTING.md)", pulumiCommandPluginVar)
	}
	pluginDir := t.TempDir()
	b, err := os.ReadFile(bin)
	if err == nil {
		err = os.WriteFile(filepath.Join(pluginDir, "pulumi-resource-command"), b, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	p := newCommandProject(t, "go") // builds the program
	builtin := func() *providers.Registry {
		r := providers.NewRegistry()
		if err := command.Register(r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	real := func() *providers.Registry {
		return providers.NewRegistry(providers.WithResolver(plugin.Resolver(plugin.Options{Dirs: []string{pluginDir}})))
	}
	// Both run in the same work folder (one after the other), so that
	// the paths they record agree.
	got := runCommandLifecycle(t, builtin, filepath.Join(p.dir, "cmdprog"), p.work)
	want := runCommandLifecycle(t, real, filepath.Join(p.dir, "cmdprog"), p.work)
	for i := range want {
		// The documented difference: the built-in keeps a command's
		// output secret when an input is.
		if tok, ok := want[i].state["token"]; ok {
			tok.SecretOutputs = slices.Compact(slices.Sorted(slices.Values(append(tok.SecretOutputs, "stderr", "stdout"))))
			want[i].state["token"] = tok
		}
		if diff := cmp.Diff(want[i], got[i], cmp.AllowUnexported(lifecycleStep{})); diff != "" {
			t.Errorf("%s: the plugin (-) and the built-in (+) differ:\n%s", want[i].name, diff)
		}
	}
	checkNoProcesses(t)
}

// lifecycleStep is what one operation of the lifecycle left.
type lifecycleStep struct {
	name    string
	log     []string
	outputs map[string]any
	state   map[string]recordedCommand
}

// runCommandLifecycle runs the program bin on the providers the registry
// gives, through create, a rerun, an update, a replacement and a destroy,
// with its commands working in work.
func runCommandLifecycle(t *testing.T, registry func() *providers.Registry, bin, work string) []lifecycleStep {
	t.Helper()
	store, err := filestore.New(t.TempDir(), state.WithSecrets(state.PassphraseSecrets("interop-command")))
	if err != nil {
		t.Fatal(err)
	}
	cfg := map[string]string{"dir": work, "msg": "1", "gen": "1"}
	ops := []struct {
		name    string
		set     map[string]string
		destroy bool
	}{{name: "create"}, {name: "rerun"}, {name: "update", set: map[string]string{"msg": "2"}}, {name: "replace", set: map[string]string{"gen": "2"}}, {name: "destroy", destroy: true}}
	var steps []lifecycleStep
	for _, op := range ops {
		for k, v := range op.set {
			cfg[k] = v
		}
		config := map[string]resource.PropertyValue{}
		for k, v := range cfg {
			config["cmdprog:"+k] = resource.NewString(v)
		}
		eng, err := engine.New(engine.Config{Project: "cmdprog", Stack: "dev", Store: store, Config: config, Providers: registry})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		var res *engine.Result
		if op.destroy {
			res, err = eng.Destroy(ctx)
		} else {
			res, err = eng.Up(ctx, langhost.Command(bin).Run)
		}
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", op.name, err)
		}
		step := lifecycleStep{name: op.name, state: map[string]recordedCommand{}}
		if b, err := os.ReadFile(filepath.Join(work, "log.txt")); err == nil {
			step.log = strings.Split(strings.TrimSpace(string(b)), "\n")
			slices.Sort(step.log)
			os.Remove(filepath.Join(work, "log.txt"))
		}
		for _, r := range res.Snapshot.Resources {
			switch {
			case r.Type == "pulumi:pulumi:Stack":
				step.outputs = r.Outputs.Mappable()
			case r.Type == command.LocalCommandType:
				name := r.URN.Name()
				step.state[name] = recordedCommand{
					Inputs: r.Inputs.Mappable(), Outputs: r.Outputs.Mappable(),
					SecretInputs: secretKeys(r.Inputs), SecretOutputs: secretKeys(r.Outputs),
					IDShaped: regexp.MustCompile("^" + name + "[0-9a-f]{8}$").MatchString(string(r.ID)),
				}
			}
		}
		steps = append(steps, step)
	}
	return steps
}
