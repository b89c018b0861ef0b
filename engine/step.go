package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// visit runs one step on a walker's goroutine. The ordering rules that keep
// the state true bind here:
//
//   - a step that changes the world is journaled as begun before its
//     provider is called, durably, so a crash during the call leaves it as
//     a pending operation;
//   - its end is journaled before its outcome goes to the loop, so that
//     the registration waiting on it, answered from there, never sees an
//     outcome the state lacks, and nothing that needs the step starts
//     before its end is recorded;
//   - a failed step that left a resource behind is recorded with its init
//     errors, never dropped;
//   - a step whose provider did not answer in time (an *UnansweredError,
//     bounds.go) journals no end: its begin stays recorded as a pending
//     operation naming its resource.
//   - the operation's filter learns the secrets a step hands its provider
//     before the call, and the secrets it produced before anything is
//     built from its outcome, whose error and init errors are masked
//     before they are journaled or reported (secrets.go).
//
// It returns the step's failure naming its resource, for the walker.
func (d *deployment) visit(ctx context.Context, ws *walkStep) error {
	s := ws.out.Step
	if err := d.starting(ws); err != nil {
		ws.out = stepgen.Outcome{Step: s, Err: err}
		return &stepError{urn: s.URN(), err: err}
	}
	var seq uint64
	if d.journal != nil && s.JournalOp() != "" {
		var err error
		if seq, err = d.journalBegin(ctx, s); err != nil {
			ws.out = stepgen.Outcome{Step: s, Err: err}
			return &stepError{urn: s.URN(), err: err}
		}
	}
	d.learnStep(s)
	ws.out = d.maskOutcome(d.apply(ctx, s))
	var un *UnansweredError
	if seq != 0 && errors.As(ws.out.Err, &un) {
		d.leftPending(s)
		return &stepError{urn: s.URN(), err: ws.out.Err}
	}
	// The outcome is recorded even once the operation is cancelled: the
	// step did run.
	jerr := d.journalEnd(ws.out, seq)
	if jerr != nil {
		jerr = &stepError{urn: s.URN(), err: jerr}
	}
	switch {
	case ws.out.Err != nil && jerr != nil:
		return errors.Join(&stepError{urn: s.URN(), err: ws.out.Err}, jerr)
	case ws.out.Err != nil:
		return &stepError{urn: s.URN(), err: ws.out.Err}
	case jerr != nil:
		ws.out.Err = jerr
		return jerr
	}
	return nil
}

// starting is what every start of a step does before its begin is
// journaled: refuse a change the operation expects not to make, report
// the start, note the time.
func (d *deployment) starting(ws *walkStep) error {
	s := ws.out.Step
	if d.opts.expectNoChanges && changes(s.Op) {
		return &ChangesError{URN: s.URN(), Op: StepOp(s.Op)}
	}
	if d.events.enabled() {
		d.events.emit(StepStartEvent{StepEvent: stepEvent(s)})
	}
	ws.began = time.Since(d.start)
	return nil
}

// apply applies a step, with the resource hooks bound to its resource
// around it (resourcehooks_run.go).
func (d *deployment) apply(ctx context.Context, s *stepgen.Step) stepgen.Outcome {
	if !hooked(s) {
		return stepgen.Apply(ctx, s, boundedSource{d}, now)
	}
	return d.applyHooked(ctx, s)
}

// leftPending notes a step left pending: its provider did not answer in
// time, and its begin stays recorded.
func (d *deployment) leftPending(s *stepgen.Step) {
	d.mu.Lock()
	d.pending = append(d.pending, string(s.JournalOp())+" "+string(s.URN()))
	d.mu.Unlock()
}

// ChangesError fails an operation run with ExpectNoChanges when a step
// would change something.
type ChangesError struct {
	URN resource.URN
	Op  StepOp
}

func (e *ChangesError) Error() string {
	return fmt.Sprintf("resource %s would %s, but the operation expects no changes", e.URN, e.Op)
}

// changes reports whether an operation changes something.
func changes(op stepgen.Op) bool {
	switch op {
	case stepgen.OpSame, stepgen.OpRead, stepgen.OpOutputs, stepgen.OpRefresh:
		return false
	}
	return true
}

// stepError is a step's failure as the operation reports it: the step's
// resource, named once, and what went wrong.
type stepError struct {
	urn resource.URN
	err error
}

func (e *stepError) Error() string { return aboutResource(e.urn, e.err) }

// Unwrap returns the underlying error.
func (e *stepError) Unwrap() error { return e.err }
