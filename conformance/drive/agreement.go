package drive

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/groundwork-iac/groundwork/conformance/spec"
	"github.com/groundwork-iac/groundwork/conformance/world"
	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/plan"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// Agreement runs p through groundwork alone, holding it to the promise
// that a preview predicts the update: each version is previewed with a
// plan (engine.GeneratePlan), then updated with that plan (engine.UsePlan).
// It returns the disagreements, each naming its run:
//
//   - the preview failed where the update, run without the plan, succeeds;
//   - the update refused the plan (a *plan.ViolationError or
//     *plan.StaleError);
//   - the update succeeded, and the preview touched other resources, or
//     took other steps on one, than it (in another order, a replacement's
//     order included), except a lesser step where the preview could not
//     know a value (see predicted);
//   - an input value or stack output the preview knew is not the one the
//     update recorded.
//
// An update that fails for a failure the program injects is not compared
// (nothing says what it would have done); the next version is previewed
// against the state it left. The destroy is not run.
func Agreement(ctx context.Context, p *spec.Program) []string {
	w := world.New()
	store := memstore.New()
	var mu sync.Mutex
	var events []engine.Event
	eng, err := engine.New(engine.Config{
		Project: spec.Project, Stack: spec.Stack, Store: store,
		Providers: func() *providers.Registry {
			r := providers.NewRegistry()
			_ = r.RegisterFactory(spec.Package, "1.0.0", func(context.Context) (providers.Provider, error) {
				return groundworkProvider(w), nil
			})
			return r
		},
		OnEvent: func(ev engine.Event) {
			mu.Lock()
			events = append(events, ev)
			mu.Unlock()
		},
	})
	if err != nil {
		return []string{err.Error()}
	}
	took := func() []engine.Event {
		mu.Lock()
		defer mu.Unlock()
		evs := events
		events = nil
		return evs
	}
	var out []string
	for i := range p.Versions {
		run := fmt.Sprintf("up %d", i+1)
		version := i
		program := func(c *engine.Context) error { return serve(c, p, version) }
		opts := []engine.Option{engine.Parallelism(Parallelism)}

		w.Begin(i, nil) // a preview calls no provider that could fail
		preview, previewErr := eng.Preview(ctx, program, append(opts, engine.GeneratePlan())...)
		previewEvents := took()
		w.Begin(i, p.Versions[i].Failures)
		if previewErr != nil {
			up, upErr := eng.Up(ctx, program, opts...)
			took()
			if upErr == nil && up != nil {
				out = append(out, fmt.Sprintf("%s: the preview failed, the update succeeded: %v", run, previewErr))
			}
			continue
		}
		up, upErr := eng.Up(ctx, program, append(opts, engine.UsePlan(preview.Plan))...)
		upEvents := took()
		var violation *plan.ViolationError
		var stale *plan.StaleError
		switch {
		case errors.As(upErr, &violation) || errors.As(upErr, &stale):
			out = append(out, fmt.Sprintf("%s: the update refused the preview's plan: %v", run, upErr))
			continue
		case upErr != nil:
			continue
		}
		for _, d := range predicted(preview, up, previewEvents, upEvents) {
			out = append(out, run+": "+d)
		}
	}
	return out
}

// predicted compares a preview with the update that followed it; see
// Agreement. Where the preview could not know a value — the resource's
// inputs held an unknown, or a resource it depends on took a lesser step
// than predicted — a predicted replacement may turn out an update or a
// same, and a predicted update a same.
func predicted(preview, up *engine.Result, previewEvents, upEvents []engine.Event) []string {
	pre, got := opsByURN(preview), opsByURN(up)
	preIn, gotIn := inputsByURN(previewEvents), inputsByURN(upEvents)
	var out []string
	for _, urn := range slices.Sorted(maps.Keys(got)) {
		if _, ok := pre[urn]; !ok {
			out = append(out, fmt.Sprintf("%s: the update took %v, the preview nothing", urn, got[urn]))
		}
	}
	for _, urn := range slices.Sorted(maps.Keys(pre)) {
		if _, ok := got[urn]; !ok {
			out = append(out, fmt.Sprintf("%s: the preview took %v, the update nothing", urn, pre[urn]))
		}
	}
	deps := dependsOn(up.Snapshot)
	lesser := map[resource.URN]bool{}
	for changed := true; changed; {
		changed = false
		for urn, ops := range got {
			if lesser[urn] || slices.Equal(pre[urn], ops) || !weaker(pre[urn], ops) {
				continue
			}
			unknown := preIn[urn].ContainsUnknowns()
			for _, d := range deps[urn] {
				unknown = unknown || lesser[d]
			}
			if unknown {
				lesser[urn], changed = true, true
			}
		}
	}
	for _, urn := range slices.Sorted(maps.Keys(got)) {
		if p, ok := pre[urn]; ok && !slices.Equal(p, got[urn]) && !lesser[urn] {
			out = append(out, fmt.Sprintf("%s: the preview took %v, the update %v", urn, p, got[urn]))
		}
	}
	for _, urn := range slices.Sorted(maps.Keys(gotIn)) {
		if p, ok := preIn[urn]; ok {
			if err := predicts(resource.NewObject(p), resource.NewObject(gotIn[urn])); err != nil {
				out = append(out, fmt.Sprintf("%s: inputs: %v", urn, err))
			}
		}
	}
	if err := predicts(resource.NewObject(preview.Outputs), resource.NewObject(up.Outputs)); err != nil {
		out = append(out, fmt.Sprintf("stack outputs: %v", err))
	}
	return out
}

// opsByURN lists each resource's steps, in order.
func opsByURN(res *engine.Result) map[resource.URN][]engine.StepOp {
	out := map[resource.URN][]engine.StepOp{}
	for _, s := range res.Steps {
		out[s.URN] = append(out[s.URN], s.Op)
	}
	return out
}

// inputsByURN returns the new inputs of each resource's last step that
// had any.
func inputsByURN(evs []engine.Event) map[resource.URN]resource.PropertyMap {
	out := map[resource.URN]resource.PropertyMap{}
	for _, e := range evs {
		if d, ok := e.(engine.StepDoneEvent); ok && d.NewInputs != nil && d.Custom {
			out[d.URN] = d.NewInputs
		}
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

// dependsOn lists what each recorded resource depends on.
func dependsOn(snap *state.Snapshot) map[resource.URN][]resource.URN {
	out := map[resource.URN][]resource.URN{}
	if snap == nil {
		return out
	}
	for _, s := range snap.Resources {
		ds := slices.Clone(s.Dependencies)
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

// predicts reports whether pre, a value a preview gave, stands for got:
// equal, an unknown standing for any value.
func predicts(pre, got resource.PropertyValue) error {
	switch {
	case pre.IsUnknown():
		return nil
	case pre.IsSecret() && got.IsSecret():
		return predicts(pre.SecretElement(), got.SecretElement())
	case pre.IsObject() && got.IsObject():
		po, gp := pre.ObjectValue(), got.ObjectValue()
		keys := slices.Sorted(maps.Keys(po))
		for k := range gp {
			if _, ok := po[k]; !ok {
				keys = append(keys, k)
			}
		}
		var errs []error
		for _, k := range keys {
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
