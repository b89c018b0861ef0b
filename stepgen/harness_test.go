package stepgen_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/deploy"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// The tests drive the generator by hand, as the engine loop does: they feed
// it a registration, answer each provider call it asks for from a
// providers.Func, and look at the steps it issues, gathered into chains (a
// step and the steps after it that need it). No goroutine is involved: the
// generator is a pure state machine.

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
	// done holds the steps whose outcome the generator has been given;
	// steps every step issued through register.
	done  map[uint64]bool
	steps map[uint64]*stepgen.Step
}

// newHost builds a generator for cfg (stack, project, clock and provider
// source filled in when unset) around prov (nil: a Func with defaults).
func newHost(t *testing.T, cfg stepgen.Config, prov *providers.Func) *host {
	t.Helper()
	if prov == nil {
		prov = &providers.Func{}
	}
	h := &host{t: t, prov: prov, done: map[uint64]bool{}, steps: map[uint64]*stepgen.Step{}}
	if cfg.Stack == "" {
		cfg.Stack = testStack
	}
	if cfg.Project == "" {
		cfg.Project = testProject
	}
	gen, err := stepgen.New(cfg)
	if err != nil {
		t.Fatalf("stepgen.New: %v", err)
	}
	h.gen = gen
	return h
}

// Provider implements deploy.ProviderSource.
func (h *host) Provider(ref, typ string) (providers.Provider, error) { return h.prov, nil }

// register registers g and answers calls until the generator issues its
// steps or fails the registration.
func (h *host) register(g resource.Goal) (*stepgen.Registration, [][]*stepgen.Step, error) {
	reg := &stepgen.Registration{Goal: &g}
	acts, err := h.gen.Register(reg)
	chains, err := h.drive(acts, err)
	return reg, chains, err
}

// mustRegister is register for registrations that must succeed.
func (h *host) mustRegister(g resource.Goal) [][]*stepgen.Step {
	h.t.Helper()
	_, chains, err := h.register(g)
	if err != nil {
		h.t.Fatalf("registering %s %q: %v", g.Type, g.Name, err)
	}
	return chains
}

// drive answers calls until none is left, gathering the steps into chains.
// The create (or read) of a replacement is reported done, as if it had
// succeeded without changing anything, so that the chain holds the replace
// step the generator issues then.
func (h *host) drive(acts stepgen.Actions, err error) ([][]*stepgen.Step, error) {
	h.t.Helper()
	var steps []*stepgen.Step
	for err == nil {
		steps = append(steps, acts.Steps...)
		if len(acts.Calls) == 0 {
			break
		}
		if len(acts.Calls) != 1 {
			h.t.Fatalf("the generator asked for %d calls at once for one registration, want 1", len(acts.Calls))
		}
		acts, err = h.gen.Answer(h.answer(acts.Calls[0]))
	}
	if err != nil {
		return nil, err
	}
	for i := 0; i < len(steps); i++ {
		h.steps[steps[i].ID] = steps[i]
		if s := steps[i]; (s.Op == stepgen.OpCreateReplacement || s.Op == stepgen.OpReadReplacement) && s.Refused() == nil {
			steps = append(steps, h.succeed(s).Steps...)
		}
	}
	return chainsOf(steps), nil
}

// succeed gives the generator the outcome of s as if it had succeeded
// without changing anything, and returns what follows.
func (h *host) succeed(s *stepgen.Step) stepgen.Actions {
	h.t.Helper()
	if h.done[s.ID] {
		h.t.Fatalf("step %d (%s %s) reported twice", s.ID, s.Op, s.URN())
	}
	h.done[s.ID] = true
	return h.gen.Done(stepgen.Outcome{Step: s, New: s.New})
}

// urnsOf returns the URNs of the steps ids name (among those register
// issued).
func (h *host) urnsOf(ids []uint64) []resource.URN {
	var out []resource.URN
	for _, id := range ids {
		if s, ok := h.steps[id]; ok {
			out = append(out, s.URN())
		} else {
			out = append(out, resource.URN(fmt.Sprint("unknown step ", id)))
		}
	}
	return out
}

// chainsOf gathers steps into chains: each step after the first of a chain
// needs the one before it.
func chainsOf(steps []*stepgen.Step) [][]*stepgen.Step {
	var chains [][]*stepgen.Step
	where := map[uint64]int{} // step ID → its chain
	for _, s := range steps {
		c := -1
		for _, n := range s.Needs {
			if i, ok := where[n]; ok && chains[i][len(chains[i])-1].ID == n {
				c = i
			}
		}
		if c < 0 {
			c = len(chains)
			chains = append(chains, nil)
		}
		chains[c] = append(chains[c], s)
		where[s.ID] = c
	}
	return chains
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

// now is the clock steps are applied with.
func now() time.Time { return fixedNow }

// apply applies every step of chains in order, as a walker would (without
// the concurrency), gives the generator each outcome it has not had yet,
// and returns the outcomes, failing the test on an error.
func (h *host) apply(chains [][]*stepgen.Step) []stepgen.Outcome {
	h.t.Helper()
	var outs []stepgen.Outcome
	for _, ch := range chains {
		for _, s := range ch {
			o := deploy.Apply(context.Background(), s, h, now)
			if o.Err != nil {
				h.t.Fatalf("%s of %s: %v", s.Op, s.URN(), o.Err)
			}
			if !h.done[s.ID] {
				h.done[s.ID] = true
				h.gen.Done(o)
			}
			outs = append(outs, o)
		}
	}
	return outs
}

// applyOne applies s and returns its outcome, without giving it to the
// generator.
func (h *host) applyOne(s *stepgen.Step) stepgen.Outcome {
	return deploy.Apply(context.Background(), s, h, now)
}

// deletes asks for the deletes and returns their antichains as the
// generator issues them: it starts them and reports each delete done (as
// if it had succeeded without changing anything) to get the next, and
// checks they are the antichains Deletes announced.
func (h *host) deletes() ([][]*stepgen.Step, error) {
	h.t.Helper()
	want, err := h.gen.Deletes()
	if err != nil {
		return nil, err
	}
	acts := h.gen.StartDeletes()
	var layers [][]*stepgen.Step
	for len(acts.Steps) > 0 {
		layer := acts.Steps
		layers = append(layers, layer)
		acts = stepgen.Actions{}
		for _, s := range layer {
			next := h.succeed(s)
			acts.Steps = append(acts.Steps, next.Steps...)
		}
	}
	if diff := cmp.Diff(antichainNames(want), antichainNames(layers)); diff != "" {
		h.t.Errorf("the antichains issued differ from those Deletes announced (-announced +issued):\n%s", diff)
	}
	return layers, nil
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
func opNames(chains [][]*stepgen.Step) [][]string {
	var out [][]string
	for _, ch := range chains {
		var ops []string
		for _, s := range ch {
			ops = append(ops, string(s.Op)+" "+s.URN().Name())
		}
		out = append(out, ops)
	}
	return out
}

// stepsByID indexes the steps of layers by ID.
func stepsByID(layers [][]*stepgen.Step) map[uint64]*stepgen.Step {
	out := map[uint64]*stepgen.Step{}
	for _, layer := range layers {
		for _, s := range layer {
			out[s.ID] = s
		}
	}
	return out
}

// antichainNames renders the result of deletes.
func antichainNames(layers [][]*stepgen.Step) [][]string {
	var out [][]string
	for _, layer := range layers {
		var names []string
		for _, s := range layer {
			names = append(names, string(s.Op)+" "+s.URN().Name())
		}
		out = append(out, names)
	}
	return out
}

// onlyStep returns the single step of chains, failing the test if there is
// not exactly one.
func onlyStep(t *testing.T, chains [][]*stepgen.Step) *stepgen.Step {
	t.Helper()
	if len(chains) != 1 || len(chains[0]) != 1 {
		t.Fatalf("want one chain of one step, got %v", opNames(chains))
	}
	return chains[0][0]
}

// result renders what a step records should it succeed as issued, in terms
// of the step's own Old and New: "old→new", "nil→new", "old→nil",
// "nil→nil", or the URN of any other state.
func result(s *stepgen.Step) string {
	return outcomeResult(stepgen.Outcome{Step: s, New: s.New})
}

// outcomeResult renders what an outcome records (see result); "new" is
// the outcome's New.
func outcomeResult(o stepgen.Outcome) string {
	old, new := o.Record()
	name := func(st *resource.State) string {
		switch {
		case st == nil:
			return "nil"
		case st == o.Step.Old:
			return "old"
		case st == o.New:
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

// condemns reports whether s, should it succeed as issued, condemns the old
// copy (Outcome.Condemns).
func condemns(s *stepgen.Step) bool {
	return stepgen.Outcome{Step: s, New: s.New}.Condemns()
}
