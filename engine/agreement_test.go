package engine_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/plan"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// TestPreviewPredictsTheUpdate is the agreement oracle over the typed
// program API: for programs drawn from Val, Apply, ApplyErr, Apply2,
// Apply3, All, Sprintf, Secret, OutputOf, As, StackOutput, typed
// resources and Props, components and explicit providers — run one after
// another on one stack, so that each updates, replaces and deletes what
// the last left, with outputs of resources created, updated and replaced
// in the same run — against a provider whose Check requires its inputs:
// when the update succeeds, the preview before it succeeded and predicts
// it.
//
// The update runs with the preview's plan (engine.UsePlan): any refusal
// is a disagreement. Beyond the plan's own rules, the oracle checks that:
//
//   - the preview and the update touch the same resources;
//   - each resource's steps are the same, in the same order (a
//     replacement's order included), except that where the preview could
//     not know a value — the resource's inputs held an unknown, or a
//     resource it depends on took a lesser step than predicted — a
//     predicted replacement may turn out an update or a same, and a
//     predicted update a same;
//   - a resource whose last recorded copy depended, directly or through
//     others, on one replaced delete-before-replace is the exception the
//     schedule makes (see cascadeReached): its steps need only come to
//     the same (replaced, or deleted) in any order, and the update may
//     refuse the plan where the cascade takes it although the preview
//     saw it stay;
//   - every input value the preview knew, as the provider's Check saw it,
//     is the value the update's Check sees (an unknown stands for any
//     value), and so is every stack output the preview knew.
//
// GROUNDWORK_AGREEMENT_CHECKS sets the number of cases (default 200;
// rapid's -rapid.checks and -rapid.seed work too).
func TestPreviewPredictsTheUpdate(t *testing.T) {
	checks := os.Getenv("GROUNDWORK_AGREEMENT_CHECKS")
	if f := flag.Lookup("rapid.checks"); checks == "" && f != nil && f.Value.String() == f.DefValue {
		checks = "200"
	}
	if checks != "" {
		if err := flag.Set("rapid.checks", checks); err != nil {
			t.Fatal(err)
		}
	}
	rapid.Check(t, agreement)
}

// agreement runs one case: up to three programs, each previewed and then
// applied with the preview's plan.
func agreement(t *rapid.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	w := newPTWorld()
	store := memstore.New()
	registry := func() *providers.Registry {
		r := providers.NewRegistry()
		p := w.provider()
		_ = r.RegisterFactory("pt", "1.0.0", func(context.Context) (providers.Provider, error) { return p, nil })
		return r
	}
	other, err := engine.New(engine.Config{Project: "test", Stack: "other", Store: store, Providers: registry})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Up(ctx, func(c *engine.Context) error {
		c.Export("plain", "o1")
		c.Export("hidden", engine.Secret(engine.Val("s1")))
		return nil
	}); err != nil {
		t.Fatalf("the other stack: %v", err)
	}
	var mu sync.Mutex
	var events []engine.Event
	eng, err := engine.New(engine.Config{Project: "test", Stack: "dev", Store: store, Providers: registry,
		OnEvent: func(e engine.Event) {
			mu.Lock()
			events = append(events, e)
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	versions := rapid.IntRange(1, 3).Draw(t, "versions")
	var prev *state.Snapshot
	for i := range versions {
		label := fmt.Sprintf("v%d", i+1)
		ds := drawProgram(t, label, 6)
		for _, d := range ds {
			t.Logf("%s: %v", label, d)
		}
		program := agreementProgram(ds, "other")

		w.begin()
		preview, previewErr := eng.Preview(ctx, program, engine.GeneratePlan())
		previewChecks := w.checks()

		w.begin()
		var opts []engine.Option
		if previewErr == nil {
			opts = append(opts, engine.UsePlan(preview.Plan))
		}
		up, upErr := eng.Up(ctx, program, opts...)
		reached := cascadeReached(prev, preview, up)
		switch {
		case previewErr != nil && upErr == nil:
			t.Fatalf("%s: the preview failed but the update succeeded: %v", label, previewErr)
		case upErr != nil:
			var v *plan.ViolationError
			var stale *plan.StaleError
			if errors.As(upErr, &v) && reached[v.URN] && cascadeTook(v) {
				// Whether a dependent registered before the cascade was
				// decided is the schedule's doing: a cascade took a
				// resource the preview saw stay, and the plan refused
				// that before touching it.
				t.Logf("%s: the update refused the preview's plan for a resource a delete-before-replace cascade reached: %v", label, upErr)
				return
			}
			if v != nil || errors.As(upErr, &stale) {
				t.Fatalf("%s: the update refused the preview's plan: %v", label, upErr)
			}
			t.Fatalf("%s: the update failed: %v", label, upErr)
		}
		if err := agree(preview, up, previewChecks, w.checks(), reached); err != nil {
			t.Fatalf("%s: the preview does not predict the update: %v", label, err)
		}
		prev = up.Snapshot
	}
}

// cascadeReached lists the resources whose last recorded copy (in prev)
// depended, directly or through others, on a resource that the preview or
// the update replaced delete-before-replace. Such a resource's steps
// depend on whether the program registered it before that cascade was
// decided, which a preview cannot know: registered before, it is
// replaced create-before-delete and its old copy deleted in the cascade;
// after, the cascade deletes it and its registration creates it again,
// or replaces what the cascade might change.
func cascadeReached(prev *state.Snapshot, results ...*engine.Result) map[resource.URN]bool {
	reached := map[resource.URN]bool{}
	if prev == nil {
		return reached
	}
	var roots []resource.URN
	for _, res := range results {
		if res == nil {
			continue
		}
		for urn, ops := range opsByURN(res) {
			if i := slices.Index(ops, engine.StepDeleteReplaced); i >= 0 && slices.Contains(ops[i:], engine.StepCreate) {
				roots = append(roots, urn)
			}
		}
	}
	dependents := map[resource.URN][]resource.URN{}
	for urn, deps := range dependencies(prev) {
		for _, d := range deps {
			dependents[d] = append(dependents[d], urn)
		}
	}
	for len(roots) > 0 {
		r := roots[len(roots)-1]
		roots = roots[:len(roots)-1]
		for _, d := range dependents[r] {
			if !reached[d] {
				reached[d] = true
				roots = append(roots, d)
			}
		}
	}
	return reached
}

// cascadeTook reports whether a refusal is of a cascade taking a
// resource the preview planned to stay (or to be updated): a
// replacement or a delete where the plan has a same or an update.
func cascadeTook(v *plan.ViolationError) bool {
	stays := v.Planned == plan.OpSame || v.Planned == plan.OpUpdate
	takes := v.Op == plan.OpDeleteReplaced || v.Op == plan.OpCreateReplacement || v.Op == plan.OpDelete
	return stays && takes && v.Option == "" && len(v.Properties) == 0
}

// settled is what a resource's steps come to, for one a cascade reached:
// replaced or deleted, whichever order the steps took.
func settled(ops []engine.StepOp) string {
	switch {
	case slices.Contains(ops, engine.StepCreateReplacement) ||
		slices.Contains(ops, engine.StepDeleteReplaced) && slices.Contains(ops, engine.StepCreate):
		return "replaced"
	case !slices.ContainsFunc(ops, func(op engine.StepOp) bool { return op != engine.StepDelete && op != engine.StepDeleteReplaced }):
		return "deleted"
	}
	return fmt.Sprint(ops)
}

// agree checks that the preview's result predicts the update's.
// The steps of a resource a delete-before-replace cascade reached
// (reached) need only come to the same (settled).
func agree(preview, up *engine.Result, previewChecks, upChecks map[resource.URN]resource.PropertyMap, reached map[resource.URN]bool) error {
	pre, got := opsByURN(preview), opsByURN(up)
	var errs []error
	for urn := range got {
		if _, ok := pre[urn]; !ok {
			errs = append(errs, fmt.Errorf("%s: the update %v, the preview nothing", urn, got[urn]))
		}
	}
	for urn := range pre {
		if _, ok := got[urn]; !ok {
			errs = append(errs, fmt.Errorf("%s: the preview %v, the update nothing", urn, pre[urn]))
		}
	}
	// The resources whose steps may be lesser than predicted, to a
	// fixpoint: unknown inputs, or a dependency that took a lesser step.
	deps := dependencies(up.Snapshot)
	lesser := map[resource.URN]bool{}
	for changed := true; changed; {
		changed = false
		for urn, ops := range got {
			if lesser[urn] || slices.Equal(pre[urn], ops) || !weaker(pre[urn], ops) {
				continue
			}
			unknown := previewChecks[urn].ContainsUnknowns()
			for _, d := range deps[urn] {
				unknown = unknown || lesser[d]
			}
			if unknown {
				lesser[urn], changed = true, true
			}
		}
	}
	for urn, ops := range got {
		if p, ok := pre[urn]; ok && reached[urn] && settled(p) == settled(ops) {
			continue
		}
		if p, ok := pre[urn]; ok && !slices.Equal(p, ops) && !lesser[urn] {
			errs = append(errs, fmt.Errorf("%s: the preview %v, the update %v", urn, p, ops))
		}
	}
	for urn, in := range upChecks {
		if p, ok := previewChecks[urn]; ok {
			if err := predicts(resource.NewObject(p), resource.NewObject(in)); err != nil {
				errs = append(errs, fmt.Errorf("%s: inputs: %w", urn, err))
			}
		}
	}
	if err := predicts(resource.NewObject(preview.Outputs), resource.NewObject(up.Outputs)); err != nil {
		errs = append(errs, fmt.Errorf("stack outputs: %w", err))
	}
	return errors.Join(errs...)
}

// opsByURN lists each resource's steps, in order.
func opsByURN(res *engine.Result) map[resource.URN][]engine.StepOp {
	out := map[resource.URN][]engine.StepOp{}
	for _, s := range res.Steps {
		out[s.URN] = append(out[s.URN], s.Op)
	}
	return out
}

// weaker reports whether got is a lesser step than pre predicted: a
// replacement that turned out an update or a same, or an update a same.
func weaker(pre, got []engine.StepOp) bool {
	single := func(ops []engine.StepOp, op engine.StepOp) bool { return len(ops) == 1 && ops[0] == op }
	replacing := slices.ContainsFunc(pre, func(op engine.StepOp) bool {
		return op == engine.StepReplace || op == engine.StepCreateReplacement || op == engine.StepDeleteReplaced
	})
	switch {
	case replacing:
		return single(got, engine.StepUpdate) || single(got, engine.StepSame)
	case single(pre, engine.StepUpdate):
		return single(got, engine.StepSame)
	}
	return false
}

// dependencies lists what each recorded resource depends on.
func dependencies(snap *state.Snapshot) map[resource.URN][]resource.URN {
	out := map[resource.URN][]resource.URN{}
	for _, s := range snap.Resources {
		ds := append([]resource.URN{}, s.Dependencies...)
		if s.Parent != "" {
			ds = append(ds, s.Parent)
		}
		for _, pd := range s.PropertyDependencies {
			ds = append(ds, pd...)
		}
		out[s.URN] = ds
	}
	return out
}

// predicts reports whether a value a preview gave, pre, stands for got:
// equal, an unknown standing for any value.
func predicts(pre, got resource.PropertyValue) error {
	switch {
	case pre.IsUnknown():
		return nil
	case pre.IsSecret() && got.IsSecret():
		return predicts(pre.SecretElement(), got.SecretElement())
	case pre.IsObject() && got.IsObject():
		po, gp := pre.ObjectValue(), got.ObjectValue()
		var errs []error
		for _, k := range unionKeys(po, gp) {
			if err := predicts(po[k], gp[k]); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", k, err))
			}
		}
		return errors.Join(errs...)
	case pre.IsArray() && got.IsArray() && len(pre.ArrayValue()) == len(got.ArrayValue()):
		for i, e := range pre.ArrayValue() {
			if err := predicts(e, got.ArrayValue()[i]); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return nil
	case pre.DeepEquals(got):
		return nil
	}
	return fmt.Errorf("the preview has %v, the update %v", pre, got)
}

func unionKeys(a, b resource.PropertyMap) []resource.PropertyKey {
	var ks []resource.PropertyKey
	for k := range a {
		ks = append(ks, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}

// The oracle finds the bug it was written for: with the fix undone, a
// case whose input is an Apply of an output not known yet fails. This is
// the deterministic form of such a case.
func TestAgreementOfAComputedInput(t *testing.T) {
	w := newPTWorld()
	env := enginetest.New(t)
	env.Provider("pt", "", w.provider())
	ds := []*decl{
		{name: "a", kind: kindTyped, v: &expr{op: "val", s: "p"}, r: "x", provider: -1, parent: -1, dependOn: -1},
		{name: "b", kind: kindProps, v: &expr{op: "apply", args: []*expr{{op: "out", ref: 0, key: "out"}}}, r: "x", provider: -1, parent: -1, dependOn: -1},
	}
	program := agreementProgram(ds, "")
	w.begin()
	preview, err := env.Preview(program, engine.GeneratePlan())
	if err != nil {
		t.Fatalf("preview: %v", err)
	}
	previewChecks := w.checks()
	w.begin()
	up, err := env.Up(program, engine.UsePlan(preview.Plan))
	if err != nil {
		t.Fatalf("up: %v", err)
	}
	if err := agree(preview, up, previewChecks, w.checks(), nil); err != nil {
		t.Fatal(err)
	}
	if got := up.Outputs["last"].StringValue(); !strings.HasPrefix(got, "P#") {
		t.Errorf("b's out = %q", got)
	}
}
