package engine

import (
	"context"

	"github.com/groundwork-iac/groundwork/dag"
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
// asks for: each call is a vertex that needs nothing, made by Visit, which
// posts its answer to the loop. A call never fails as a vertex: its error is
// part of its answer. One that is skipped (the operation was cancelled) is
// answered with the reason.
//
// A program that registers thousands of resources at once has thousands of
// calls waiting for one of the maxCalls workers: each waits as the vertex
// holding the call alone, and its answer is allocated once it is made.
func (d *deployment) newCaller() *dag.Walker[*stepgen.Call] {
	return dag.New(dag.Options[*stepgen.Call]{
		Parallelism:     maxCalls,
		ContinueOnError: true,
		Visit: func(ctx context.Context, c **stepgen.Call) error {
			d.inbox.post(d.ask(ctx, *c))
			return nil
		},
		Ended: func(c **stepgen.Call, err error) {
			if err != nil {
				d.inbox.post(&stepgen.Answer{Call: *c, Err: err})
			}
		},
		Name: func(c **stepgen.Call) string { return string((*c).Reg.URN) },
	})
}

// call has the calls walker make c.
func (d *deployment) call(ctx context.Context, c *stepgen.Call) {
	if err := d.calls.Add(ctx, dag.Vertex[*stepgen.Call]{Value: c}); err != nil {
		d.inbox.post(&stepgen.Answer{Call: c, Err: err})
	}
}

// ask makes the provider call c asks for: an analyzer run is the
// engine's own (analyzer.go), a Check or Diff the provider's (stepgen.Ask),
// within the operation's bounds (bounds.go).
func (d *deployment) ask(ctx context.Context, c *stepgen.Call) *stepgen.Answer {
	if c.Kind == stepgen.CallAnalyze {
		return &stepgen.Answer{Call: c, Err: d.analyze(ctx, c.New)}
	}
	d.learnCall(c)
	a := stepgen.Ask(ctx, c, boundedSource{d})
	d.maskAnswer(&a)
	return &a
}
