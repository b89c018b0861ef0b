package drive

import (
	"context"
	"fmt"
	"sync"

	"github.com/groundwork-iac/groundwork/conformance/spec"
	"github.com/groundwork-iac/groundwork/conformance/world"
	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/internal/agreement"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// Agreement runs p through groundwork alone, holding it to the promise
// that a preview predicts the update: each version is previewed with a
// plan (engine.GeneratePlan), then updated with that plan (engine.UsePlan).
// It returns the disagreements, each naming its run:
//
//   - the preview failed where the update, run without the plan, succeeds;
//   - the update refused the plan (a *plan.ViolationError or
//     *plan.StaleError), but for the refusal a delete-before-replace
//     cascade makes (agreement.IsCascadeRefusal);
//   - the update succeeded, and the preview does not predict it, as
//     agreement.Compare judges by the inputs each step recorded.
//
// An update that fails for a failure the program injects, or that makes
// the cascade's refusal, is not compared (nothing says what it would have
// done); the next version is previewed against the state it left. The
// destroy is not run.
func Agreement(ctx context.Context, p *spec.Program) []string {
	w := world.New()
	store := memstore.New()
	var mu sync.Mutex
	var events []engine.Event
	eng, err := engine.New(engine.Config{
		Project: spec.Project, Stack: spec.Stack, Store: store,
		Providers: groundworkProviders(w),
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
		reached := agreement.CascadeReached(preview.Snapshot, preview, up)
		switch {
		case agreement.IsCascadeRefusal(upErr, reached):
			continue
		case agreement.IsRefusal(upErr):
			out = append(out, fmt.Sprintf("%s: the update refused the preview's plan: %v", run, upErr))
			continue
		case upErr != nil:
			continue
		}
		for _, d := range agreement.Compare(preview, up, inputsByURN(previewEvents), inputsByURN(upEvents), reached) {
			out = append(out, run+": "+d)
		}
	}
	return out
}

// inputsByURN returns the new inputs of each resource's last step that
// had any.
func inputsByURN(evs []engine.Event) agreement.Inputs {
	out := agreement.Inputs{}
	for _, e := range evs {
		if d, ok := e.(engine.StepDoneEvent); ok && d.NewInputs != nil && d.Custom {
			out[d.URN] = d.NewInputs
		}
	}
	return out
}
