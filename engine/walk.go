package engine

import (
	"context"
	"errors"
	"time"

	"github.com/groundwork-iac/groundwork/executor"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// Every step the generator issues is a vertex of the deployment's walker,
// which runs it once the steps it needs have succeeded and the step before
// it on its resource has ended (Step.Needs and Step.After): those edges are
// the deployment's whole ordering. The walker bounds how many steps run at
// once (the Parallelism option), skips what needs a failed step and, unless
// the operation continues on error, everything not started after a
// failure. Each step's visit (step.go) journals and applies it; how it
// ended is recorded and goes back to the loop as an outcome, which answers
// the registration waiting for it.

// walkStep is a step as the walker holds it: the generator's step, and what
// its visit found, for Ended (the walker calls the two in turn on one
// goroutine).
type walkStep struct {
	*stepgen.Step
	out stepgen.Outcome
	// at is when the step started.
	at time.Time
}

// newWalker returns the walker of the deployment's steps.
func (d *deployment) newWalker() *executor.Walker[*walkStep] {
	return executor.New(executor.Options[*walkStep]{
		Parallelism:     d.opts.parallelism,
		ContinueOnError: d.opts.continueOnError,
		Visit:           d.visit,
		Ended:           d.ended,
		Name:            func(ws *walkStep) string { return string(ws.URN()) },
	})
}

// walk adds a step the generator issued to the walker.
func (d *deployment) walk(ctx context.Context, s *stepgen.Step) {
	ws := &walkStep{Step: s}
	err := d.walker.Add(ctx, executor.Vertex[*walkStep]{ID: s.ID, Needs: s.Needs, After: s.After, Value: ws})
	if err == nil {
		return
	}
	// The walker refused it: the step fails without running.
	ws.out = stepgen.Outcome{Step: s, Err: err}
	d.noteError(&stepError{urn: s.URN(), err: err})
	d.record(ws.out, 0)
	d.inbox.post(event{out: &ws.out})
}

// ended records how a step ended — run, or skipped — and gives the outcome
// to the loop. The walker calls it after its own bookkeeping, so a failure
// is on record before the registration waiting on the step hears of it.
func (d *deployment) ended(ws *walkStep, err error) {
	var skip *executor.SkippedError
	switch {
	case errors.As(err, &skip):
		ws.out = stepgen.Outcome{Step: ws.Step, Err: err, Skipped: true}
	case err != nil && ws.out.Err == nil:
		// The visit panicked.
		ws.out = stepgen.Outcome{Step: ws.Step, Err: err}
	}
	if ws.out.Err == nil {
		d.renamed(ws.out)
	}
	var took time.Duration
	if !ws.at.IsZero() {
		took = time.Since(ws.at)
	}
	d.record(ws.out, took)
	d.inbox.post(event{out: &ws.out})
}
