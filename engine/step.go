package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/groundwork-iac/groundwork/dag"
	"github.com/groundwork-iac/groundwork/deploy"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
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
// A visit waits for the journal without holding a goroutine: it hands the
// entry to the journal and parks (dag.Park), and the journal's
// callback, once the entry is durable, resumes it where it stopped
// (walkStep.stage).
//
// It returns the step's failure naming its resource, for the walker.
func (d *deployment) visit(ctx context.Context, ws *walkStep) error {
	s := ws.out.Step
	switch ws.stage {
	case stageStart:
		if err := d.starting(ws); err != nil {
			ws.out = stepgen.Outcome{Step: s, Err: err}
			return &stepError{urn: s.URN(), err: err}
		}
		if d.journal == nil || s.JournalOp() == "" {
			return d.run(ctx, ws)
		}
		ws.stage = stageBegun
		if p := d.append(ctx, ws, state.Entry{Kind: state.EntryBegin, Op: s.JournalOp(), Old: s.Old, New: s.New}); p != nil {
			return p
		}
		fallthrough
	case stageBegun:
		if ws.jerr != nil {
			err := fmt.Errorf("recording the start of %s of %s: %w", s.Op, s.URN(), ws.jerr)
			ws.out = stepgen.Outcome{Step: s, Err: err}
			return &stepError{urn: s.URN(), err: err}
		}
		return d.run(ctx, ws)
	default:
		return d.stepEnded(ws)
	}
}

// run applies a step whose begin, if it has one, is durable, and hands
// its end to the journal.
func (d *deployment) run(ctx context.Context, ws *walkStep) error {
	s := ws.out.Step
	d.learnStep(s)
	ws.out = d.maskOutcome(d.apply(ctx, s))
	if ws.seq != 0 && isUnanswered(ws.out.Err) {
		d.leftPending(s)
		return &stepError{urn: s.URN(), err: ws.out.Err}
	}
	// The outcome is recorded even once the operation is cancelled: the
	// step did run.
	e, ok := d.endEntry(ws.out, ws.seq)
	if !ok {
		return d.stepEnded(ws)
	}
	ws.stage = stageEnded
	if p := d.append(d.lasting, ws, e); p != nil {
		return p
	}
	return d.stepEnded(ws)
}

// stepEnded returns the failure of a step that has run and whose end, if it
// has one, is durable (or failed to be written).
func (d *deployment) stepEnded(ws *walkStep) error {
	s := ws.out.Step
	var jerr error
	if ws.jerr != nil {
		jerr = &stepError{urn: s.URN(), err: endFailed(ws.out, ws.jerr)}
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

// isUnanswered reports whether err says a provider did not answer in
// time (an *UnansweredError).
func isUnanswered(err error) bool {
	if err == nil {
		return false
	}
	var un *UnansweredError
	return errors.As(err, &un)
}

// asyncJournal is a journal that can call back once an entry is durable
// instead of holding its caller (the stores' journals can).
type asyncJournal interface {
	AppendAsync(ctx context.Context, e state.Entry, done func(seq uint64, err error))
}

// append hands e, the entry ws's visit waits for, to the journal. With a
// journal that calls back it returns dag.Park: the visit resumes once
// e is durable. Otherwise it appends e at once and returns nil. Either
// way ws.jerr then holds the journal's error, and for a begin ws.seq its
// Seq.
func (d *deployment) append(ctx context.Context, ws *walkStep, e state.Entry) error {
	aj, ok := d.journal.(asyncJournal)
	if !ok {
		ws.journaled(d.journal.Append(ctx, e))
		return nil
	}
	return dag.Park(func(resume func()) {
		aj.AppendAsync(ctx, e, func(seq uint64, err error) {
			ws.journaled(seq, err)
			resume()
		})
	})
}

// journaled takes the journal's answer to the entry ws's visit handed it.
func (ws *walkStep) journaled(seq uint64, err error) {
	if ws.stage == stageBegun {
		ws.seq = seq
	}
	ws.jerr = err
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
		return deploy.Apply(ctx, s, boundedSource{d}, now)
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
