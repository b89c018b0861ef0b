package program_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/program"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// fakeDeployer answers every registration at once: the URN the goal
// names, an ID for a custom resource, and its inputs as its outputs.
type fakeDeployer struct {
	mu      sync.Mutex
	goals   []resource.Goal
	outputs map[resource.URN]resource.PropertyMap
}

func (f *fakeDeployer) RegisterResource(_ context.Context, goal resource.Goal) (providers.RegisterResult, error) {
	f.mu.Lock()
	f.goals = append(f.goals, goal)
	f.mu.Unlock()
	res := providers.RegisterResult{URN: resource.NewURN("dev", "site", "", goal.Type, goal.Name), Outputs: goal.Inputs}
	if goal.Custom {
		res.ID = resource.ID("id-" + goal.Name)
	}
	return res, nil
}

func (f *fakeDeployer) RegisterResourceAsync(ctx context.Context, goal *resource.Goal, done func(providers.RegisterResult, error)) {
	done(f.RegisterResource(ctx, *goal))
}

func (f *fakeDeployer) RegisterResourceOutputs(_ context.Context, urn resource.URN, outputs resource.PropertyMap) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.outputs == nil {
		f.outputs = map[resource.URN]resource.PropertyMap{}
	}
	f.outputs[urn] = outputs
	return nil
}

func (f *fakeDeployer) ReadResource(ctx context.Context, goal resource.Goal, _ resource.ID) (providers.RegisterResult, error) {
	return f.RegisterResource(ctx, goal)
}

func (f *fakeDeployer) goal(name string) resource.Goal {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, g := range f.goals {
		if g.Name == name {
			return g
		}
	}
	return resource.Goal{}
}

// fakeHost is a program.Host that records what the Context asks of it.
type fakeHost struct {
	mon   *monitor.Monitor
	mu    sync.Mutex
	hooks []string
	logs  []string
}

func (h *fakeHost) Monitor() *monitor.Monitor { return h.mon }

func (h *fakeHost) RegisterHook(hook *program.Hook) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !slices.Contains(h.hooks, hook.Name) {
		h.hooks = append(h.hooks, hook.Name)
	}
	return nil
}

func (h *fakeHost) Log(severity program.Severity, _ resource.URN, message string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.logs = append(h.logs, string(severity)+": "+message)
}

func (h *fakeHost) Mask(s string) string { return s }

func (h *fakeHost) Parameterize(context.Context, string, string, providers.ParameterizeRequest) (providers.ParameterizeResponse, error) {
	return providers.ParameterizeResponse{}, nil
}

// A program runs against a monitor and a Host alone: no engine. What it
// declares reaches the monitor's Deployer as goals whose parents, inputs
// and dependencies come from the handles and Outputs it passed; its
// hooks, logs and deferred functions reach the Host and the Runner.
func TestRunnerNeedsOnlyAMonitorAndAHost(t *testing.T) {
	ctx := context.Background()
	dep := &fakeDeployer{}
	host := &fakeHost{mon: monitor.New(monitor.Config{Deployer: dep})}
	runner := program.NewRunner(ctx, program.Settings{Project: "site", Stack: "dev"}, host)
	var deferred []string
	hook := &program.Hook{Name: "audit", Run: func(context.Context, resource.HookArgs) error { return nil }}

	err := runner.Run(func(c *program.Context) error {
		web := c.Component("my:site:Web", "web")
		a := c.Register("test:index:Thing", "a", program.Props{"size": program.Val(3)},
			program.Parent(web), program.ResourceHooks(resource.HookBeforeCreate, hook))
		n := program.Apply(program.OutputOf[int](a, "size"), func(v int) int { return v + 1 })
		c.Register("test:index:Thing", "b", program.Props{"n": n}, program.Parent(web))
		c.Export("n", n)
		c.Log(program.SeverityInfo, "", "declared "+c.Project()+"/"+c.Stack())
		c.Defer(func() error { deferred = append(deferred, "first"); return nil })
		c.Defer(func() error { deferred = append(deferred, "second"); return nil })
		return nil
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := runner.RunDeferred(); err != nil {
		t.Fatalf("RunDeferred: %v", err)
	}

	web := resource.NewURN("dev", "site", "", "my:site:Web", "web")
	a := resource.NewURN("dev", "site", "", "test:index:Thing", "a")
	root := resource.NewURN("dev", "site", "", resource.RootStackType, "site-dev")
	got := struct {
		AParent, BParent resource.URN
		BInputs          resource.PropertyMap
		BDependencies    []resource.URN
		AHooks           resource.Hooks
		RootOutputs      resource.PropertyMap
		Hooks, Logs      []string
		Deferred         []string
	}{
		AParent: dep.goal("a").Parent, BParent: dep.goal("b").Parent,
		BInputs: dep.goal("b").Inputs, BDependencies: dep.goal("b").Dependencies,
		AHooks: dep.goal("a").Hooks, RootOutputs: dep.outputs[root],
		Hooks: host.hooks, Logs: host.logs, Deferred: deferred,
	}
	want := got
	want.AParent, want.BParent = web, web
	want.BInputs = resource.PropertyMap{"n": resource.NewNumber(4)}
	want.BDependencies = []resource.URN{a}
	want.AHooks = resource.Hooks{resource.HookBeforeCreate: {"audit"}}
	want.RootOutputs = resource.PropertyMap{"n": resource.NewNumber(4)}
	want.Hooks = []string{"audit"}
	want.Logs = []string{"info: declared site/dev"}
	want.Deferred = []string{"second", "first"}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(resource.PropertyValue{})); diff != "" {
		t.Errorf("what the program reached (-want +got):\n%s", diff)
	}
}

// An import's run registers the goals it is given, parented to the
// stack's root, and leaves the stack's outputs alone (KeepOutputs).
func TestRunnerImportKeepsTheStackOutputs(t *testing.T) {
	dep := &fakeDeployer{}
	host := &fakeHost{mon: monitor.New(monitor.Config{Deployer: dep})}
	runner := program.NewRunner(context.Background(), program.Settings{Project: "site", Stack: "dev", KeepOutputs: true}, host)
	err := runner.Run(func(*program.Context) error {
		runner.Import(&resource.Goal{Type: "test:index:Thing", Name: "imp", Custom: true, ImportID: "existing-1"})
		return nil
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	root := resource.NewURN("dev", "site", "", resource.RootStackType, "site-dev")
	g := dep.goal("imp")
	if g.Parent != root || g.ImportID != "existing-1" {
		t.Errorf("the import's goal has parent %q and import ID %q; want %q and %q", g.Parent, g.ImportID, root, "existing-1")
	}
	if outs, ok := dep.outputs[root]; ok {
		t.Errorf("the import registered stack outputs %v; want none", outs)
	}
}
