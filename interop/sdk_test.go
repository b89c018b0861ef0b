package interop

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"example.com/interopprog/scenario"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/langhost"
	"github.com/groundwork-iac/groundwork/langhost/inline"
	"github.com/groundwork-iac/groundwork/plugin"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// The SDK tests deploy the programs under programs/ — one written with
// Pulumi's Go SDK, one with its Node.js SDK, each a copy of the other —
// through langhost, against the in-process package "itest" (a fake cloud
// of things kept in memory) and the plugins under plugins/; the Go program runs as a binary and inline,
// in the test's own process. The config key "interop:scenario" selects
// what a program does.

// language is one SDK the scenarios run in.
type language struct {
	name string
	// program returns the program to run.
	program func() engine.Program
	// procDir is the program's folder.
	procDir string
}

var (
	goprogOnce sync.Once
	goprogBin  string
	goprogErr  error
)

// languages returns the SDKs to run in: Go always, as a binary (built on
// first use) and inline (the same source, in this process), Node.js when
// node and the program's dependencies are installed.
func languages(t *testing.T) []language {
	t.Helper()
	goprogOnce.Do(func() {
		dir := filepath.Join(pluginDir, "goprog")
		goprogBin = filepath.Join(dir, "interop-goprog")
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-o", goprogBin, ".")
		cmd.Dir = filepath.Join("programs", "goprog")
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			goprogErr = fmt.Errorf("building programs/goprog: %v\n%s", err, out)
		}
	})
	if goprogErr != nil {
		t.Fatal(goprogErr)
	}
	langs := []language{{
		name:    "go",
		program: func() engine.Program { return langhost.Command(goprogBin).Run },
		procDir: filepath.Dir(goprogBin),
	}, {
		name:    "go-inline",
		program: func() engine.Program { return inline.Program(scenario.Run) },
	}}
	nodeDir, err := filepath.Abs(filepath.Join("programs", "nodeprog"))
	if err != nil {
		t.Fatal(err)
	}
	langs = append(langs, language{
		name: "nodejs",
		program: func() engine.Program {
			p := langhost.Node(".")
			p.Dir = nodeDir
			return p.Run
		},
		procDir: nodeDir,
	})
	return langs
}

// eachLanguage runs fn as a subtest per SDK. The Node.js subtest skips,
// saying why, where node or the program's dependencies are missing.
func eachLanguage(t *testing.T, fn func(t *testing.T, lang language)) {
	for _, lang := range languages(t) {
		t.Run(lang.name, func(t *testing.T) {
			if lang.name == "nodejs" {
				if _, err := exec.LookPath("node"); err != nil {
					t.Skip("node is not installed: the Node.js program cannot run")
				}
				if _, err := os.Stat(filepath.Join(lang.procDir, "node_modules", "@pulumi", "pulumi", "package.json")); err != nil {
					t.Skip("@pulumi/pulumi is not installed in programs/nodeprog: run .ci/node-setup.sh to test Node.js programs")
				}
			}
			fn(t, lang)
			checkNoProcesses(t)
		})
	}
}

// cloud is the world of the "itest" package: things by ID, and a log of
// the writes made to it.
type cloud struct {
	mu     sync.Mutex
	next   int
	things map[resource.ID]resource.PropertyMap
	writes []string
}

// newCloud returns a cloud that already holds the thing "ext-1", which no
// stack manages.
func newCloud() *cloud {
	return &cloud{things: map[resource.ID]resource.PropertyMap{
		"ext-1": {"value": resource.NewString("outside")},
	}}
}

// takeWrites returns the writes since the last call.
func (c *cloud) takeWrites() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.writes
	c.writes = nil
	return w
}

// provider serves "itest": a Thing keeps its inputs as outputs, and one
// whose value is "fail" cannot be created; the function "itest:index:echo"
// returns its arguments.
func (c *cloud) provider() providers.Provider {
	return &providers.Func{
		CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			if req.Inputs["value"].DeepEquals(resource.NewString("fail")) {
				return providers.CreateResponse{}, fmt.Errorf("itest: %s cannot be created", req.URN.Name())
			}
			if req.Preview {
				return providers.CreateResponse{Outputs: req.Inputs}, nil
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			c.next++
			id := resource.ID(fmt.Sprintf("thing-%d", c.next))
			c.things[id] = req.Inputs
			c.writes = append(c.writes, "create "+req.URN.Name())
			return providers.CreateResponse{ID: id, Outputs: req.Inputs}, nil
		},
		UpdateF: func(_ context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
			if req.Preview {
				return providers.UpdateResponse{Outputs: req.NewInputs}, nil
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			c.things[req.ID] = req.NewInputs
			c.writes = append(c.writes, "update "+req.URN.Name())
			return providers.UpdateResponse{Outputs: req.NewInputs}, nil
		},
		DeleteF: func(_ context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			delete(c.things, req.ID)
			c.writes = append(c.writes, "delete "+req.URN.Name())
			return providers.DeleteResponse{}, nil
		},
		ReadF: func(_ context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			props, ok := c.things[req.ID]
			if !ok {
				return providers.ReadResponse{}, nil
			}
			return providers.ReadResponse{ID: req.ID, Inputs: props, Outputs: props}, nil
		},
		InvokeF: func(_ context.Context, req providers.InvokeRequest) (providers.InvokeResponse, error) {
			if req.Token != "itest:index:echo" {
				return providers.InvokeResponse{}, fmt.Errorf("itest has no function %s", req.Token)
			}
			return providers.InvokeResponse{Return: req.Args}, nil
		},
	}
}

// sdkStack is a stack deployed from an SDK program.
type sdkStack struct {
	t     *testing.T
	lang  language
	name  string
	store state.Store
	cloud *cloud

	mu     sync.Mutex
	events []engine.Event
}

// newStore returns a file store (and its folder) whose stacks each
// have a passphrase of their own.
func newStore(t *testing.T) (state.Store, string) {
	t.Helper()
	dir := t.TempDir()
	store, err := filestore.New(dir, state.WithSecrets(state.SecretsProviderFunc(
		func(ctx context.Context, stack state.StackID, recorded *state.SecretsState) (secrets.Manager, error) {
			return state.PassphraseSecrets("pass-of-"+stack.Stack).SecretsManager(ctx, stack, recorded)
		})))
	if err != nil {
		t.Fatal(err)
	}
	return store, dir
}

func newSDKStack(t *testing.T, lang language, store state.Store, cl *cloud, name string) *sdkStack {
	return &sdkStack{t: t, lang: lang, name: name, store: store, cloud: cl}
}

// compSecret is the value of the secret configuration key
// "interop:secret" of every SDK stack, which the comp plugin's Component
// answers as an output.
const compSecret = "c0mp-s3cr3t"

// engine returns an engine whose configuration is config, keyed in the
// "interop" namespace, and the secret "interop:secret".
func (s *sdkStack) engine(config map[string]string) *engine.Engine {
	s.t.Helper()
	cfg := map[string]resource.PropertyValue{"interop:secret": resource.NewSecret(resource.NewString(compSecret))}
	for k, v := range config {
		cfg["interop:"+k] = resource.NewString(v)
	}
	eng, err := engine.New(engine.Config{
		Project: "interop", Stack: s.name, Store: s.store, Config: cfg,
		Providers: func() *providers.Registry {
			r := providers.NewRegistry(providers.WithResolver(plugin.Resolver(pluginOptions(s.t, testCtx(s.t), s.lang.procDir, cfg))))
			p := s.cloud.provider()
			if err := r.RegisterFactory("itest", "1.0.0", func(context.Context) (providers.Provider, error) { return p, nil }); err != nil {
				s.t.Fatal(err)
			}
			return r
		},
		OnEvent: func(e engine.Event) {
			s.mu.Lock()
			s.events = append(s.events, e)
			s.mu.Unlock()
		},
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return eng
}

// up runs the program with config; preview previews it instead.
func (s *sdkStack) up(config map[string]string) (*engine.Result, error) {
	return s.engine(config).Up(testCtx(s.t), s.lang.program())
}

func (s *sdkStack) preview(config map[string]string) (*engine.Result, error) {
	return s.engine(config).Preview(testCtx(s.t), s.lang.program())
}

// mustUp runs up and fails the test, with the program's diagnostics, if it
// fails.
func (s *sdkStack) mustUp(config map[string]string) *engine.Result {
	s.t.Helper()
	res, err := s.up(config)
	if err != nil {
		s.t.Fatalf("up %v: %v\n%s", config, err, s.diagnostics())
	}
	return res
}

// diagnostics returns the messages of the diagnostic events so far.
func (s *sdkStack) diagnostics() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, e := range s.events {
		if d, ok := e.(engine.DiagnosticEvent); ok {
			out = append(out, string(d.Severity)+": "+d.Message)
		}
	}
	return strings.Join(out, "\n")
}

// byName indexes a snapshot's resources by name.
func byName(snap *state.Snapshot) map[string]*resource.State {
	out := map[string]*resource.State{}
	for _, r := range snap.Resources {
		out[r.URN.Name()] = r
	}
	return out
}

// changes summarizes a result's steps that changed something, sorted.
func changes(res *engine.Result) []string {
	var out []string
	for _, st := range res.Steps {
		switch st.Op {
		case engine.StepSame, engine.StepOutputs, engine.StepRead:
			continue
		}
		out = append(out, string(st.Op)+" "+st.URN.Name())
	}
	slices.Sort(out)
	return out
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
