package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/display"
	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/internal/leaktest"
	"github.com/groundwork-iac/groundwork/migrate"
	"github.com/groundwork-iac/groundwork/plan"
	"github.com/groundwork-iac/groundwork/plugin"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/command"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/secrets"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// leak is the secret every case of TestSecretsDoNotLeak hands a provider
// or a function, which quotes it back in its failure.
const leak = "pa55-w0rd-l3ak"

// plainText is a secret's plaintext, as a provider that reads it sees it.
func plainText(v resource.PropertyValue) string {
	if v.IsSecret() {
		v = v.SecretElement()
	}
	return v.StringValue()
}

// leakCase is one source of a message that quotes a secret.
type leakCase struct {
	name string
	// provider serves package "test"; config is the stack's.
	provider *providers.Func
	config   map[string]resource.PropertyValue
	// setup, when set, is deployed first and must succeed; program then
	// fails.
	setup, program engine.Program
	// plugin has the case use the test plugin (package "gwtest").
	plugin bool
	// wraps, when set, reports whether the error returned still wraps
	// the error the case's source made: masking keeps error types.
	wraps func(error) bool
}

// manyPlainThen returns a program that registers many resources holding
// no secret, one after the other, before it runs then.
func manyPlainThen(then engine.Program) engine.Program {
	return func(ctx *engine.Context) error {
		for i := range 300 {
			ctx.Register(leakType, fmt.Sprintf("plain-%d", i), engine.Props{"name": resource.NewString(fmt.Sprintf("plain-%d", i))})
		}
		return then(ctx)
	}
}

// wraps returns a function reporting whether an error wraps an E.
func wraps[E error]() func(error) bool {
	return func(err error) bool {
		var target E
		return errors.As(err, &target)
	}
}

const leakType = "test:index:Thing"

func secretProps(extra engine.Props) engine.Props {
	p := engine.Props{"password": resource.NewSecret(resource.NewString(leak))}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

func leakCases() []leakCase {
	register := func(extra engine.Props) engine.Program {
		return func(ctx *engine.Context) error {
			ctx.Register(leakType, "a", secretProps(extra))
			return nil
		}
	}
	creates := func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
		return providers.CreateResponse{ID: "id-1", Outputs: req.Inputs}, nil
	}
	// usesOutput registers a resource whose input is what fn makes of a
	// secret the program itself declared, which no resource receives
	// (combined with another resource's output, so that the function runs
	// as part of the operation).
	usesOutput := func(fn func(engine.Output[string]) engine.Output[string]) engine.Program {
		return func(ctx *engine.Context) error {
			src := ctx.Register(leakType, "src", engine.Props{"name": resource.NewString("src")})
			secret := engine.Apply2(engine.OutputOf[string](src, "name"), engine.Secret(engine.Val(leak)), func(_, s string) string { return s })
			ctx.Register(leakType, "a", engine.Props{"derived": fn(secret)})
			return nil
		}
	}
	return []leakCase{
		{
			name: "Create",
			provider: &providers.Func{CreateF: func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
				return providers.CreateResponse{}, fmt.Errorf("cannot log in with password %q", plainText(req.Inputs["password"]))
			}},
			program: register(nil),
		},
		{
			name: "Check",
			provider: &providers.Func{CheckF: func(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
				return providers.CheckResponse{Failures: []providers.CheckFailure{
					{Property: "password", Reason: "too weak: " + plainText(req.News["password"])},
				}}, nil
			}},
			program: register(nil),
			wraps:   wraps[*stepgen.CheckFailedError](),
		},
		{
			// The host learns the secrets of every Check, however many
			// plain ones came first.
			name: "Check after many without secrets",
			provider: &providers.Func{CheckF: func(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
				if v, ok := req.News["password"]; ok {
					return providers.CheckResponse{Failures: []providers.CheckFailure{
						{Property: "password", Reason: "too weak: " + plainText(v)},
					}}, nil
				}
				return providers.CheckResponse{Inputs: req.News}, nil
			}},
			program: manyPlainThen(register(nil)),
			wraps:   wraps[*stepgen.CheckFailedError](),
		},
		{
			// A secret a Check adds to the inputs it was given is
			// learned, however many Checks added none.
			name: "Diff of a secret a Check added after many without",
			provider: &providers.Func{
				CheckF: func(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
					if req.URN.Name() != "a" || req.News["size"].NumberValue() != 2 {
						return providers.CheckResponse{Inputs: req.News}, nil
					}
					ins := resource.PropertyMap{"token": resource.NewSecret(resource.NewString(leak))}
					for k, v := range req.News {
						ins[k] = v
					}
					return providers.CheckResponse{Inputs: ins}, nil
				},
				DiffF: func(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
					if t, ok := req.NewInputs["token"]; ok {
						return providers.DiffResponse{}, errors.New("cannot compare with " + plainText(t))
					}
					return providers.DiffResponse{}, nil
				},
				CreateF: creates,
			},
			setup: manyPlainThen(func(ctx *engine.Context) error {
				ctx.Register(leakType, "a", engine.Props{"size": resource.NewNumber(1)})
				return nil
			}),
			program: manyPlainThen(func(ctx *engine.Context) error {
				ctx.Register(leakType, "a", engine.Props{"size": resource.NewNumber(2)})
				return nil
			}),
		},
		{
			name: "Diff",
			provider: &providers.Func{
				CreateF: creates,
				DiffF: func(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
					return providers.DiffResponse{}, errors.New("cannot compare with " + plainText(req.OldInputs["password"]))
				},
			},
			setup:   register(nil),
			program: register(engine.Props{"size": resource.NewNumber(2)}),
		},
		{
			name: "Delete",
			provider: &providers.Func{
				CreateF: creates,
				DeleteF: func(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
					return providers.DeleteResponse{}, errors.New("still in use by " + plainText(req.Outputs["password"]))
				},
			},
			setup:   register(nil),
			program: func(ctx *engine.Context) error { return nil },
		},
		{
			name:   "Configure",
			config: map[string]resource.PropertyValue{"test:apiKey": resource.NewSecret(resource.NewString(leak))},
			provider: &providers.Func{ConfigureF: func(ctx context.Context, req providers.ConfigureRequest) (providers.ConfigureResponse, error) {
				return providers.ConfigureResponse{}, fmt.Errorf("the API key %s is revoked", plainText(req.Inputs["apiKey"]))
			}},
			program: func(ctx *engine.Context) error {
				ctx.Register(leakType, "a", engine.Props{})
				return nil
			},
		},
		{
			// The provider's secret input is in the state alone: it is
			// configured from there as the operation loads, before any
			// step or call hands the input to a provider.
			name: "Configure of a provider loaded from the state",
			provider: func() *providers.Func {
				var configured atomic.Int32
				return &providers.Func{ConfigureF: func(ctx context.Context, req providers.ConfigureRequest) (providers.ConfigureResponse, error) {
					if configured.Add(1) == 1 {
						return providers.ConfigureResponse{}, nil
					}
					return providers.ConfigureResponse{}, fmt.Errorf("the API key %s is revoked", plainText(req.Inputs["apiKey"]))
				}, CreateF: creates}
			}(),
			setup: func(ctx *engine.Context) error {
				p := ctx.Provider("test", "keyed", engine.Props{"apiKey": resource.NewSecret(resource.NewString(leak))})
				ctx.Register(leakType, "a", engine.Props{}, engine.Provider(p))
				return nil
			},
			program: func(ctx *engine.Context) error { return nil },
		},
		{
			name: "InitError",
			provider: &providers.Func{CreateF: func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
				return providers.CreateResponse{}, &providers.InitError{
					ID: "id-1", Outputs: req.Inputs,
					Reasons: []string{"the database refused the password " + plainText(req.Inputs["password"])},
				}
			}},
			program: register(nil),
			wraps:   wraps[*providers.InitError](),
		},
		{
			name:     "ApplyErr",
			provider: &providers.Func{CreateF: creates},
			program: usesOutput(func(o engine.Output[string]) engine.Output[string] {
				return engine.ApplyErr(o, func(s string) (string, error) { return "", fmt.Errorf("%s is not a valid key", s) })
			}),
		},
		{
			name:     "ApplyErr on a constant",
			provider: &providers.Func{CreateF: creates},
			program: func(ctx *engine.Context) error {
				ctx.Register(leakType, "a", engine.Props{"derived": engine.ApplyErr(engine.Secret(engine.Val(leak)), func(s string) (string, error) {
					return "", fmt.Errorf("%s is not a valid key", s)
				})})
				return nil
			},
		},
		{
			name:     "a panic in Apply",
			provider: &providers.Func{CreateF: creates},
			program: usesOutput(func(o engine.Output[string]) engine.Output[string] {
				return engine.Apply(o, func(s string) string { panic("cannot use " + s) })
			}),
			wraps: wraps[*engine.PanicError](),
		},
		{
			name: "the command provider's stderr",
			program: func(ctx *engine.Context) error {
				ctx.Register(command.CommandType, "cmd", engine.Props{
					"create":      resource.NewString(`echo "logging in with $TOKEN" >&2; exit 3`),
					"shell":       resource.NewBool(true),
					"environment": resource.NewObject(resource.PropertyMap{"TOKEN": resource.NewSecret(resource.NewString(leak))}),
				})
				return nil
			},
			wraps: wraps[*command.ExitError](),
		},
		{
			name:   "a plugin's stderr",
			plugin: true,
			program: func(ctx *engine.Context) error {
				ctx.Register("gwtest:index:Thing", "p", engine.Props{"leak": resource.NewSecret(resource.NewString(leak)), "leakIn": resource.NewString("stderr")})
				return nil
			},
			wraps: wraps[*plugin.ExitError](),
		},
	}
}

// TestSecretsDoNotLeak runs operations whose providers and functions quote a
// secret in their failures, and looks for its plaintext everywhere the
// operation leaves a message: the error returned, the steps' errors, the
// events, the plain and JSON displays, a plugin's stderr as the host
// prints it, every file of the state folder, the stack's export and a
// saved plan.
func TestSecretsDoNotLeak(t *testing.T) {
	pluginPath := buildTestPlugin(t)
	var plans atomic.Int32
	t.Cleanup(func() {
		if plans.Load() == 0 && !t.Failed() {
			t.Error("no preview saved a plan to look at")
		}
	})
	for _, tc := range leakCases() {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			root := t.TempDir()
			store, err := filestore.New(root, state.WithSecrets(state.PassphraseSecrets("pass", secrets.WithIterations(1000))))
			if err != nil {
				t.Fatal(err)
			}
			env := enginetest.New(t)
			env.Store, env.Config = store, tc.config
			if tc.provider != nil {
				env.Provider("test", "", tc.provider)
			}
			env.Provider(command.Package, "", command.New())
			// The host masks what it prints beside the operation (a
			// plugin's stderr) with the operation's filter.
			filter := &resource.SecretFilter{}
			var mu sync.Mutex
			var printed []string
			if tc.plugin {
				p, err := plugin.Start(ctx, "gwtest", pluginPath, plugin.Options{Secrets: filter, Diagnostics: func(line string) {
					mu.Lock()
					defer mu.Unlock()
					printed = append(printed, line)
				}})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { p.Close(context.Background()) })
				env.Provider("gwtest", "1.2.3", p)
			}
			if tc.setup != nil {
				if _, err := env.Up(tc.setup); err != nil {
					t.Fatalf("setup: %v", err)
				}
			}
			finder := leaktest.New(leak)
			look := finder.Look
			// A preview that saves its plan (but for the plugin, which
			// the end of an operation closes), then the update.
			if !tc.plugin && previewWithPlan(t, env, tc.program, look) {
				plans.Add(1)
			}
			res, err := env.Up(tc.program, engine.MaskSecrets(filter))
			if err == nil {
				t.Fatal("the update succeeded; want it to fail quoting the secret")
			}
			t.Logf("error: %v", err)
			look("the error returned", err.Error())
			if res != nil {
				for _, s := range res.Steps {
					if s.Err != nil {
						look("the error of step "+string(s.Op)+" "+string(s.URN), s.Err.Error())
					}
				}
			}
			lookAtEvents(look, "the update's", env.Events)
			mu.Lock()
			look("the plugin's stderr as the host prints it", strings.Join(printed, "\n"))
			if tc.plugin && !strings.Contains(strings.Join(printed, "\n"), "testplugin: given "+resource.Masked) {
				t.Errorf("the plugin's stderr as the host prints it:\n%s\nwant the line quoting the secret, masked", strings.Join(printed, "\n"))
			}
			mu.Unlock()
			finder.LookInFolder(t, "the state folder", root)
			exported, xerr := migrate.ExportStack(ctx, store, env.StackID(), migrate.ToOptions{Passphrase: "pass"})
			if xerr != nil {
				t.Fatalf("exporting the stack: %v", xerr)
			}
			look("the export", string(exported))
			finder.Check(t)
			if tc.wraps != nil && !tc.wraps(err) {
				t.Errorf("error = %#v; want it to wrap the error its source made", err)
			}
			if !strings.Contains(err.Error(), resource.Masked) {
				t.Errorf("error = %v; want the secret masked as %s in it", err, resource.Masked)
			}
		})
	}
}

// previewWithPlan previews program, saving its plan, and looks at the
// plan, the preview's error and its events. It reports whether there was a
// plan to look at.
func previewWithPlan(t *testing.T, env *enginetest.Env, program engine.Program, look func(where, text string)) (planned bool) {
	t.Helper()
	defer lookAtEvents(look, "the preview's", env.Events)
	res, err := env.Preview(program, engine.GeneratePlan())
	switch {
	case err != nil:
		look("the preview's error", err.Error())
	case res.Plan != nil:
		mgr, err := secrets.NewPassphrase("pass", secrets.WithIterations(1000))
		if err != nil {
			t.Fatal(err)
		}
		b, err := plan.Marshal(context.Background(), res.Plan, mgr)
		if err != nil {
			t.Fatal(err)
		}
		look("the plan", string(b))
		return true
	}
	return false
}

// lookAtEvents looks at the events themselves and at both displays of them.
func lookAtEvents(look func(where, text string), op string, eventsOf func() []engine.Event) {
	events := eventsOf()
	var plain, jsonOut bytes.Buffer
	for _, r := range []*display.Renderer{
		display.New(&plain, display.Options{Mode: display.ModePlain}),
		display.New(&jsonOut, display.Options{Mode: display.ModeJSON}),
	} {
		for _, e := range events {
			r.Event(e)
		}
		r.Close()
	}
	var all strings.Builder
	for _, e := range events {
		fmt.Fprintf(&all, "%#v\n", e)
	}
	look(op+" events", all.String())
	look(op+" plain display", plain.String())
	look(op+" JSON display", jsonOut.String())
}

// buildTestPlugin builds the plugin package's test plugin into a folder of
// the test's.
func buildTestPlugin(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pulumi-resource-gwtest")
	goCmd := "go"
	if _, err := exec.LookPath(goCmd); err != nil {
		goCmd = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, goCmd, "build", "-o", path, "github.com/groundwork-iac/groundwork/plugin/internal/testplugin").CombinedOutput()
	if err != nil {
		t.Fatalf("building the test plugin: %v\n%s", err, out)
	}
	return path
}
