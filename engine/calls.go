package engine

import (
	"context"

	"github.com/groundwork-iac/groundwork/executor"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// maxCalls bounds the provider calls (Check, Diff, analyzer runs) in flight
// at once. Calls for different resources overlap, so a slow provider never
// serializes a deployment (1,000 resources whose Check and Diff take 5 ms
// each are checked in a few tens of milliseconds, not 10 s); the bound
// keeps a program that registers thousands of resources at once from
// starting thousands of goroutines, each with a stack of its own, faster
// than a busy machine can run them.
const maxCalls = 256

// newCaller returns the walker that makes the provider calls the generator
// asks for: each call is a vertex that needs nothing, held as the answer it
// will get (its Call is the call to make), which Visit fills in and posts to
// the loop. A call never fails as a vertex: its error is part of its
// answer. One that is skipped (the operation was cancelled) is answered
// with the reason.
func (d *deployment) newCaller() *executor.Walker[stepgen.Answer] {
	return executor.New(executor.Options[stepgen.Answer]{
		Parallelism:     maxCalls,
		ContinueOnError: true,
		Visit: func(ctx context.Context, a *stepgen.Answer) error {
			d.ask(ctx, a)
			d.inbox.post(event{ans: a})
			return nil
		},
		Ended: func(a *stepgen.Answer, err error) {
			if err != nil {
				*a = stepgen.Answer{Call: a.Call, Err: err}
				d.inbox.post(event{ans: a})
			}
		},
		Name: func(a *stepgen.Answer) string { return string(a.Call.Reg.URN) },
	})
}

// call has the calls walker make c.
func (d *deployment) call(ctx context.Context, c *stepgen.Call) {
	if err := d.calls.Add(ctx, executor.Vertex[stepgen.Answer]{Value: stepgen.Answer{Call: c}}); err != nil {
		d.inbox.post(event{ans: &stepgen.Answer{Call: c, Err: err}})
	}
}

// ask makes the provider call a.Call asks for, and fills in a: an analyzer
// run is the engine's own (analyzer.go), a Check or Diff the provider's
// (stepgen.Ask).
func (d *deployment) ask(ctx context.Context, a *stepgen.Answer) {
	if c := a.Call; c.Kind == stepgen.CallAnalyze {
		a.Err = d.analyze(ctx, c.New)
		return
	}
	*a = stepgen.Ask(ctx, a.Call, d)
}
