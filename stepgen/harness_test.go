package stepgen_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// The tests drive the generator by hand, as the engine loop does: they feed
// it a registration, answer each provider call it asks for from a
// providers.Func, and look at the chains it issues. No goroutine is
// involved: the generator is a pure state machine.

const (
	testStack   = "dev"
	testProject = "proj"
	thing       = "test:index:Thing"
	group       = "test:index:Group"
)

var (
	provURN = resource.NewURN(testStack, testProject, "", providers.ProviderType("test"), "explicit")
	provRef = providers.NewReference(provURN, "prov-1").String()
	// otherRef names a second, explicit provider instance of the same
	// package.
	otherRef = providers.NewReference(resource.NewURN(testStack, testProject, "", providers.ProviderType("test"), "other"), "prov-2").String()
	// fixedNow is the clock of every generator the tests build.
	fixedNow = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
)

// urn is the URN of a top-level Thing.
func urn(name string) resource.URN {
	return resource.NewURN(testStack, testProject, "", thing, name)
}

// groupURN is the URN of a top-level Group component.
func groupURN(name string) resource.URN {
	return resource.NewURN(testStack, testProject, "", group, name)
}

// props builds a property map from plain Go values (and property values,
// for secrets and unknowns).
func props(m map[string]any) resource.PropertyMap {
	pm, err := resource.NewPropertyMapFromMap(m)
	if err != nil {
		panic(err)
	}
	return pm
}

// recorded is a Thing as the last snapshot holds it: created by provRef with
// outputs equal to its inputs.
func recorded(name string, inputs map[string]any, opts ...func(*resource.State)) *resource.State {
	s := &resource.State{
		Type: thing, URN: urn(name), Custom: true, ID: resource.ID("id-" + name),
		Inputs: props(inputs), Outputs: props(inputs), Provider: provRef,
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// dependsOn records a plain (dependsOn) dependency.
func dependsOn(urns ...resource.URN) func(*resource.State) {
	return func(s *resource.State) { s.Dependencies = append(s.Dependencies, urns...) }
}

// knownAs records the URNs a renamed resource was known by.
func knownAs(urns ...resource.URN) func(*resource.State) {
	return func(s *resource.State) { s.Aliases = append(s.Aliases, urns...) }
}

// inputFrom records that input key came from the resources urns (and so
// depends on them).
func inputFrom(key string, urns ...resource.URN) func(*resource.State) {
	return func(s *resource.State) {
		if s.PropertyDependencies == nil {
			s.PropertyDependencies = map[resource.PropertyKey][]resource.URN{}
		}
		s.PropertyDependencies[resource.PropertyKey(key)] = urns
		s.Dependencies = append(s.Dependencies, urns...)
	}
}

// goal is the registration of a Thing managed by provRef.
func goal(name string, inputs map[string]any, opts ...func(*resource.Goal)) resource.Goal {
	g := resource.Goal{Type: thing, Name: name, Custom: true, Inputs: props(inputs), Provider: provRef}
	for _, o := range opts {
		o(&g)
	}
	return g
}

// host plays the engine's part. It answers the generator's calls from prov
// (Check and Diff for resources, CheckConfig and DiffConfig for provider
// resources, as the registry would), records each call, and serves prov to
// steps as their provider.
type host struct {
	t    *testing.T
	gen  *stepgen.Generator
	prov *providers.Func
	// analyze answers analyzer calls; nil accepts everything.
	analyze func(*resource.State) error
	// eager makes the Diff a Check call's DiffAfterCheck asks for at
	// once, as the engine does, and records it in diffed.
	eager  bool
	diffed []providers.DiffRequest
	calls  []*stepgen.Call
}

// newHost builds a generator for cfg (stack, project, clock and provider
// source filled in when unset) around prov (nil: a Func with defaults).
func newHost(t *testing.T, cfg stepgen.Config, prov *providers.Func) *host {
	t.Helper()
	if prov == nil {
		prov = &providers.Func{}
	}
	h := &host{t: t, prov: prov}
	if cfg.Stack == "" {
		cfg.Stack = testStack
	}
	if cfg.Project == "" {
		cfg.Project = testProject
	}
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return fixedNow }
	}
	if cfg.Providers == nil {
		cfg.Providers = h
	}
	gen, err := stepgen.New(cfg)
	if err != nil {
		t.Fatalf("stepgen.New: %v", err)
	}
	h.gen = gen
	return h
}

// Provider implements stepgen.ProviderSource.
func (h *host) Provider(ref, typ string) (providers.Provider, error) { return h.prov, nil }

// register registers g and answers calls until the generator issues its
// chains or fails the registration.
func (h *host) register(g resource.Goal) (*stepgen.Registration, []stepgen.Chain, error) {
	reg := &stepgen.Registration{Goal: &g}
	acts, err := h.gen.Register(reg)
	chains, err := h.drive(acts, err)
	return reg, chains, err
}

// mustRegister is register for registrations that must succeed.
func (h *host) mustRegister(g resource.Goal) []stepgen.Chain {
	h.t.Helper()
	_, chains, err := h.register(g)
	if err != nil {
		h.t.Fatalf("registering %s %q: %v", g.Type, g.Name, err)
	}
	return chains
}

// drive answers calls until none is left, gathering the chains.
func (h *host) drive(acts stepgen.Actions, err error) ([]stepgen.Chain, error) {
	h.t.Helper()
	var chains []stepgen.Chain
	for err == nil {
		chains = append(chains, acts.Chains...)
		if len(acts.Calls) == 0 {
			break
		}
		if len(acts.Calls) != 1 {
			h.t.Fatalf("the generator asked for %d calls at once for one registration, want 1", len(acts.Calls))
		}
		acts, err = h.gen.Answer(h.answer(acts.Calls[0]))
	}
	return chains, err
}

// answer makes one call against the provider.
func (h *host) answer(c *stepgen.Call) stepgen.Answer {
	h.calls = append(h.calls, c)
	ctx := context.Background()
	a := stepgen.Answer{Call: c}
	isProvider := resource.IsProviderType(c.Type)
	switch {
	case c.Kind == stepgen.CallCheck && isProvider:
		a.Check, a.Err = h.prov.CheckConfig(ctx, c.Check)
	case c.Kind == stepgen.CallCheck:
		a.Check, a.Err = h.prov.Check(ctx, c.Check)
		if h.eager && c.DiffAfterCheck && a.Err == nil && len(a.Check.Failures) == 0 {
			req := c.Diff
			if req.NewInputs = a.Check.Inputs; req.NewInputs == nil {
				req.NewInputs = resource.PropertyMap{}
			}
			h.diffed = append(h.diffed, req)
			a.Diff, a.DiffErr = h.prov.Diff(ctx, req)
			a.Diffed = true
		}
	case c.Kind == stepgen.CallDiff && isProvider:
		a.Diff, a.Err = h.prov.DiffConfig(ctx, c.Diff)
	case c.Kind == stepgen.CallDiff:
		a.Diff, a.Err = h.prov.Diff(ctx, c.Diff)
	case c.Kind == stepgen.CallAnalyze && h.analyze != nil:
		a.Err = h.analyze(c.New)
	}
	return a
}

// apply runs every step of chains in order, as an executor would (without
// the concurrency), and fails the test on an error.
func (h *host) apply(chains []stepgen.Chain) {
	h.t.Helper()
	for _, ch := range chains {
		for _, s := range ch.Steps {
			if err := s.Apply(context.Background()); err != nil {
				h.t.Fatalf("%s of %s: %v", s.Op, s.URN(), err)
			}
		}
	}
}

// callNames renders the calls made so far as "<kind> <resource name>":
// "check a", "diff a", "analyze a", and "diff-config <provider name>" for
// the comparison of two default providers.
func (h *host) callNames() []string {
	var out []string
	for _, c := range h.calls {
		switch c.Kind {
		case stepgen.CallCheck:
			out = append(out, "check "+c.Check.URN.Name())
		case stepgen.CallDiff:
			verb := "diff "
			if resource.IsProviderType(c.Type) {
				verb = "diff-config "
			}
			out = append(out, verb+c.Diff.URN.Name())
		case stepgen.CallAnalyze:
			out = append(out, "analyze "+c.New.URN.Name())
		default:
			out = append(out, fmt.Sprintf("call %d", c.Kind))
		}
	}
	return out
}

// opNames renders chains as "<op> <resource name>", one slice per chain.
func opNames(chains []stepgen.Chain) [][]string {
	var out [][]string
	for _, ch := range chains {
		var ops []string
		for _, s := range ch.Steps {
			ops = append(ops, string(s.Op)+" "+s.URN().Name())
		}
		out = append(out, ops)
	}
	return out
}

// antichainNames renders the result of Deletes.
func antichainNames(layers [][]stepgen.Chain) [][]string {
	var out [][]string
	for _, layer := range layers {
		var names []string
		for _, ch := range layer {
			for _, s := range ch.Steps {
				names = append(names, string(s.Op)+" "+s.URN().Name())
			}
		}
		out = append(out, names)
	}
	return out
}

// onlyStep returns the single step of chains, failing the test if there is
// not exactly one.
func onlyStep(t *testing.T, chains []stepgen.Chain) *stepgen.Step {
	t.Helper()
	if len(chains) != 1 || len(chains[0].Steps) != 1 {
		t.Fatalf("want one chain of one step, got %v", opNames(chains))
	}
	return chains[0].Steps[0]
}

// result renders what a step's Result records, in terms of the step's own
// Old and New: "old→new", "nil→new", "old→nil", "nil→nil", or the URN of
// any other state.
func result(s *stepgen.Step) string {
	old, new := s.Result()
	name := func(st *resource.State) string {
		switch {
		case st == nil:
			return "nil"
		case st == s.Old:
			return "old"
		case st == s.New:
			return "new"
		}
		return string(st.URN)
	}
	return name(old) + "→" + name(new)
}

// failOn returns provider functions that fail the test if called.
func failOnCreate(t *testing.T) func(context.Context, providers.CreateRequest) (providers.CreateResponse, error) {
	return func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
		t.Errorf("Create called for %s", req.URN)
		return providers.CreateResponse{}, fmt.Errorf("unexpected")
	}
}

func failOnUpdate(t *testing.T) func(context.Context, providers.UpdateRequest) (providers.UpdateResponse, error) {
	return func(_ context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
		t.Errorf("Update called for %s", req.URN)
		return providers.UpdateResponse{}, fmt.Errorf("unexpected")
	}
}

func failOnDelete(t *testing.T) func(context.Context, providers.DeleteRequest) (providers.DeleteResponse, error) {
	return func(_ context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
		t.Errorf("Delete called for %s", req.URN)
		return providers.DeleteResponse{}, fmt.Errorf("unexpected")
	}
}

func failOnDiff(t *testing.T) func(context.Context, providers.DiffRequest) (providers.DiffResponse, error) {
	return func(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
		t.Errorf("Diff called for %s", req.URN)
		return providers.DiffResponse{}, fmt.Errorf("unexpected")
	}
}

// diffBy answers Diff with a fixed result per resource name, and with the
// default (inputs compared, never a replacement) for other resources.
func diffBy(results map[string]resource.DiffResult) func(context.Context, providers.DiffRequest) (providers.DiffResponse, error) {
	return func(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
		if d, ok := results[req.URN.Name()]; ok {
			return d, nil
		}
		return providers.DiffInputs(req.OldInputs, req.NewInputs), nil
	}
}

// replaceKeys is a Diff answer that replaces the resource for keys.
func replaceKeys(keys ...resource.PropertyKey) resource.DiffResult {
	return resource.DiffResult{Changes: resource.DiffSome, ReplaceKeys: keys}
}

// childOf makes a resource a child of parent, its URN qualified by the
// parent's type.
func childOf(parent resource.URN) func(*resource.State) {
	return func(s *resource.State) {
		s.URN, s.Parent = resource.NewURN(testStack, testProject, parent.QualifiedType(), s.Type, s.URN.Name()), parent
	}
}
