package deploy

import (
	"context"
	"errors"
	"time"

	"github.com/groundwork-iac/groundwork/dag"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// Every step the generator issues is a vertex of the host's walker,
// which runs it once the steps it needs have succeeded and the step before
// it on its resource has ended (Step.Needs and Step.After): those edges are
// the operation's whole ordering. The walker bounds how many steps run at
// once (the Parallelism option), skips what needs a failed step and, unless
// the operation continues on error, everything not started after a
// failure. Each step's visit (step.go) journals and applies it; how it
// ended is recorded and goes back to the loop as an outcome, which answers
// the registration waiting for it.

// walkStep is a step as the walker holds it, in the vertex's own storage:
// the step's outcome — out.Step is the step, until its visit fills in the
// rest for Ended (the walker calls the two in turn on one goroutine) — and
// when it started.
type walkStep struct {
	out stepgen.Outcome
	// began is when the step started, as the time since the operation
	// began; zero until it starts.
	began time.Duration
	// stage is how far the step's visit got (step.go); seq is its begin's
	// Seq, and jerr what the journal answered the last entry the visit
	// handed it.
	stage stepStage
	seq   uint64
	jerr  error
	// park hands the journal the entry of the visit's stage and answered
	// takes its answer and calls resume, the walker's for the park under
	// way (append); made at the step's first hand-off, dropped after its
	// last.
	park     func(resume func())
	answered func(seq uint64, err error)
	resume   func()
}

// stepStage is how far a step's visit got.
type stepStage uint8

const (
	stageStart stepStage = iota // not visited yet
	stageBegun                  // its begin was handed to the journal
	stageEnded                  // its end was handed to the journal
)

// took returns how long the step has run: zero if it never started.
func (ws *walkStep) took(h *Host) time.Duration {
	if ws.began == 0 {
		return 0
	}
	return time.Since(h.cfg.Start) - ws.began
}

// newWalker returns the walker of the operation's steps.
func (h *Host) newWalker() *dag.Walker[walkStep] {
	return dag.New(dag.Options[walkStep]{
		Parallelism:     h.cfg.Parallelism,
		ContinueOnError: h.cfg.ContinueOnError,
		Visit:           h.visit,
		Ended:           h.ended,
		Name:            func(ws *walkStep) string { return string(ws.out.Step.URN()) },
		// A run usually takes a step for every recorded resource.
		SizeHint: h.cfg.ExpectedSteps,
		// A step's visit declares its provider calls (Apply) and hooks.
		DeclaredBlocking: true,
	})
}

// walk adds a step the generator issued to the walker.
func (h *Host) walk(ctx context.Context, s *stepgen.Step) {
	err := h.walker.Add(ctx, dag.Vertex[walkStep]{ID: s.ID, Needs: s.Needs, After: s.After, Value: walkStep{out: stepgen.Outcome{Step: s}}})
	if err == nil {
		return
	}
	// The walker refused it: the step fails without running.
	h.NoteError(&StepError{URN: s.URN(), Err: err})
	h.over(&stepgen.Outcome{Step: s, Err: err}, 0)
}

// ended records how a step ended — run, or skipped — and gives the outcome
// to the loop. The walker calls it after its own bookkeeping, so a failure
// is on record before the registration waiting on the step hears of it.
func (h *Host) ended(ws *walkStep, err error) {
	switch {
	case err == nil:
	case isSkip(err):
		ws.out = stepgen.Outcome{Step: ws.out.Step, Err: err, Skipped: true}
	case ws.out.Err == nil:
		// The visit panicked.
		ws.out = stepgen.Outcome{Step: ws.out.Step, Err: err}
	}
	if ws.out.Err == nil {
		h.renamed(ws.out)
	}
	h.over(&ws.out, ws.took(h))
}

// over is the one place a step ends, whoever ran it (the walker; refuse,
// for a delete the generator refused; FinishStackOutputs, for the stack's
// outputs): it records the outcome (the operation's result and the step's
// event) and tells the generator, through the loop while it runs. Once the
// loop has returned, the inbox refuses every event and only the
// operation's body is left to touch the generator: it is told directly,
// and has nothing left to ask for.
func (h *Host) over(o *stepgen.Outcome, took time.Duration) {
	h.record(*o, took)
	if !h.inbox.post((*stepEnded)(o)) {
		h.gen.Done(*o)
	}
}

// isSkip reports whether err says the walker skipped a step.
func isSkip(err error) bool {
	var skip *dag.SkippedError
	return errors.As(err, &skip)
}
