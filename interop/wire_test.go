package interop

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/langhost"
	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/monitor/grpcserver"
	"github.com/groundwork-iac/groundwork/plugin"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// nodeWireProgram lays programs/nodewire out in a folder of its own with
// the @pulumi/pulumi that .ci/node-setup.sh installed for programs/nodeprog,
// or skips t, saying what is missing.
func nodeWireProgram(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the Node.js program cannot run")
	}
	modules, err := filepath.Abs(filepath.Join("programs", "nodeprog", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(modules, "@pulumi", "pulumi", "package.json")); err != nil {
		t.Skip("@pulumi/pulumi is not installed in programs/nodeprog: run .ci/node-setup.sh to test Node.js programs")
	}
	dir := t.TempDir()
	for _, name := range []string{"index.js", "package.json"} {
		b, err := os.ReadFile(filepath.Join("programs", "nodewire", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// logsOnly is the monitor of the server plugins built with Pulumi's SDKs
// are given as their engine: they only log through it.
type logsOnly struct{}

var errLogsOnly = errors.New("this server takes only log messages")

func (logsOnly) RegisterResource(context.Context, resource.Goal) (providers.RegisterResult, error) {
	return providers.RegisterResult{}, errLogsOnly
}

func (logsOnly) RegisterResourceOutputs(context.Context, resource.URN, resource.PropertyMap) error {
	return errLogsOnly
}

func (logsOnly) ReadResource(context.Context, resource.Goal, resource.ID) (providers.RegisterResult, error) {
	return providers.RegisterResult{}, errLogsOnly
}

func (logsOnly) Invoke(context.Context, monitor.InvokeRequest) (providers.InvokeResponse, error) {
	return providers.InvokeResponse{}, errLogsOnly
}

func (logsOnly) Call(context.Context, monitor.CallRequest) (providers.CallResponse, error) {
	return providers.CallResponse{}, errLogsOnly
}

// TestNodeDynamicProviderAndRemoteComponent runs a Node.js program that
// uses, over the wire:
//   - a dynamic provider (Pulumi's pulumi-resource-pulumi-nodejs, a shell
//     script that starts node) whose code reads the stack's configuration,
//     which it gets only if the engine configures it with the whole of it;
//   - a read of a dynamic resource, which works only if the read's inputs
//     (holding the serialized provider) reach the provider;
//   - a dynamic resource whose ID the provider reads from PULUMI_CONFIG in
//     its environment (Pulumi's TestPulumiConfig: the key
//     "pulumi-nodejs:id"), which it finds only if the plugin starts with
//     the environment Pulumi's engine gives it;
//   - a remote component of the comp plugin (Pulumi's Go component
//     provider), whose Construct and Call read the stack's configuration
//     and its secret keys.
//
// Then a rerun changes nothing, a destroy deletes what was made and not
// what was read, and no process is left behind.
func TestNodeDynamicProviderAndRemoteComponent(t *testing.T) {
	progDir := nodeWireProgram(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	files := t.TempDir()
	eng, diags := wireEngine(t, ctx, progDir, map[string]resource.PropertyValue{
		"interop:dir":      resource.NewString(files),
		"interop:prefix":   resource.NewString("pre-"),
		"pulumi-nodejs:id": resource.NewString("testing123"),
	}, filepath.Join(progDir, "node_modules", "@pulumi", "pulumi"))
	prog := langhost.Node(".")
	prog.Dir, prog.NoTypeScript = progDir, true

	res, err := eng.Up(ctx, prog.Run)
	if err != nil {
		t.Fatalf("up: %v\n%s", err, strings.Join(diags(), "\n"))
	}
	want := map[string]any{
		"written": "pre-hello", "readBack": "pre-hello", "rid": "testing123",
		"message": "hello, node", "tokenIsSecret": true, "shout": "HELLO!",
	}
	if diff := cmp.Diff(want, res.Outputs.Mappable()); diff != "" {
		t.Errorf("stack outputs (-want +got):\n%s", diff)
	}
	if b, err := os.ReadFile(filepath.Join(files, "made.txt")); err != nil || string(b) != "pre-hello" {
		t.Errorf("made.txt = %q, %v; want pre-hello", b, err)
	}
	var external []string
	for _, r := range res.Snapshot.Resources {
		if r.External {
			external = append(external, r.URN.Name())
		}
	}
	if !slices.Equal(external, []string{"read"}) {
		t.Errorf("external resources %v, want the read", external)
	}

	res, err = eng.Up(ctx, prog.Run)
	if err != nil {
		t.Fatalf("rerun: %v\n%s", err, strings.Join(diags(), "\n"))
	}
	for _, st := range res.Steps {
		if st.Op != engine.StepSame && st.Op != engine.StepRead && st.Op != engine.StepOutputs {
			t.Errorf("the rerun made a step %s %s", st.Op, st.URN)
		}
	}

	if _, err := eng.Destroy(ctx); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	if _, err := os.Stat(filepath.Join(files, "made.txt")); !os.IsNotExist(err) {
		t.Errorf("destroy left made.txt: %v", err)
	}
	checkNoProcesses(t)
}

// wireEngine returns an engine for the stack interop/dev whose providers
// are plugins: those of the plugin folder, and those that dirs hold (for
// a Node.js program, its @pulumi/pulumi package, with the dynamic
// provider's plugin). Plugins start in progDir, with an engine address to
// log to and the stack's settings in their environment, as gw starts
// them. The configuration is config plus the greeting and secret token the
// comp plugin reads. diags returns the diagnostics so far.
func wireEngine(t *testing.T, ctx context.Context, progDir string, config map[string]resource.PropertyValue, dirs ...string) (_ *engine.Engine, diags func() []string) {
	t.Helper()
	config["interop:greeting"] = resource.NewString("hello")
	config["interop:token"] = resource.NewSecret(resource.NewString("t0k"))
	opts := pluginOptions(t, ctx, progDir, config, dirs...)
	var (
		mu  sync.Mutex
		got []string
	)
	eng, err := engine.New(engine.Config{
		Project: "interop", Stack: "dev", Store: memstore.New(), Config: config,
		Providers: func() *providers.Registry {
			return providers.NewRegistry(providers.WithResolver(plugin.Resolver(opts)))
		},
		OnEvent: func(e engine.Event) {
			if d, ok := e.(engine.DiagnosticEvent); ok {
				mu.Lock()
				got = append(got, d.Message)
				mu.Unlock()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return eng, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// pluginOptions are the options plugins start with, as gw starts them: in
// progDir, with an engine address to log to (a server that lives as long as
// t) and the stack interop's configuration in their environment; found in
// the plugin folder and in dirs.
func pluginOptions(t *testing.T, ctx context.Context, progDir string, config map[string]resource.PropertyValue, dirs ...string) plugin.Options {
	t.Helper()
	logs, err := grpcserver.Start(ctx, grpcserver.Config{Monitor: logsOnly{}, Log: func(m grpcserver.LogMessage) {
		t.Logf("plugin %s: %s", m.Severity, m.Message)
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logs.Stop() })
	return plugin.Options{
		Dirs:          append([]string{pluginDir}, dirs...),
		EngineAddress: logs.Addr(), Dir: progDir, Diagnostics: func(line string) { t.Log("plugin:", line) },
		Project: "interop", Config: config,
	}
}

// TestGoRemoteComponent runs a Go program that builds a remote component
// of the comp plugin and calls its method: Construct and Call get the
// stack's configuration and know its secret keys. A rerun changes
// nothing, and no process is left behind.
func TestGoRemoteComponent(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "gowire")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	build.Dir = filepath.Join("programs", "gowire")
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building programs/gowire: %v\n%s", err, out)
	}
	eng, diags := wireEngine(t, ctx, filepath.Dir(bin), map[string]resource.PropertyValue{})
	prog := langhost.Command(bin)
	res, err := eng.Up(ctx, prog.Run)
	if err != nil {
		t.Fatalf("up: %v\n%s", err, strings.Join(diags(), "\n"))
	}
	want := map[string]any{"message": "hello, go", "tokenIsSecret": true, "shout": "HELLO?"}
	if diff := cmp.Diff(want, res.Outputs.Mappable()); diff != "" {
		t.Errorf("stack outputs (-want +got):\n%s", diff)
	}
	res, err = eng.Up(ctx, prog.Run)
	if err != nil {
		t.Fatalf("rerun: %v\n%s", err, strings.Join(diags(), "\n"))
	}
	if res.HasChanges() {
		t.Errorf("the rerun changed something: %v", res.Steps)
	}
	if _, err := eng.Destroy(ctx); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	checkNoProcesses(t)
}
