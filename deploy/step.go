package deploy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/groundwork-iac/groundwork/dag"
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
//     operation naming its resource;
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
func (h *Host) visit(ctx context.Context, ws *walkStep) error {
	s := ws.out.Step
	switch ws.stage {
	case stageStart:
		if err := h.starting(ws); err != nil {
			ws.out = stepgen.Outcome{Step: s, Err: err}
			return &StepError{URN: s.URN(), Err: err}
		}
		if h.journal == nil || s.JournalOp() == "" {
			return h.run(ctx, ws)
		}
		ws.stage = stageBegun
		if p := h.append(ctx, ws); p != nil {
			return p
		}
		fallthrough
	case stageBegun:
		if ws.jerr != nil {
			err := fmt.Errorf("recording the start of %s of %s: %w", s.Op, s.URN(), ws.jerr)
			ws.out = stepgen.Outcome{Step: s, Err: err}
			return &StepError{URN: s.URN(), Err: err}
		}
		return h.run(ctx, ws)
	default:
		return h.stepEnded(ws)
	}
}

// run applies a step whose begin, if it has one, is durable, and hands
// its end to the journal.
func (h *Host) run(ctx context.Context, ws *walkStep) error {
	s := ws.out.Step
	h.learnStep(s)
	ws.out = h.maskOutcome(h.apply(ctx, s))
	if ws.seq != 0 && h.isUnanswered(ws.out.Err) {
		h.leftPending(s)
		return &StepError{URN: s.URN(), Err: ws.out.Err}
	}
	if h.journal == nil {
		return h.stepEnded(ws)
	}
	h.dropUnrecordable(ws.out)
	if _, ok := h.endEntry(ws.out, ws.seq); !ok {
		return h.stepEnded(ws)
	}
	ws.stage = stageEnded
	if p := h.append(ctx, ws); p != nil {
		return p
	}
	return h.stepEnded(ws)
}

// lasting returns ctx without its cancellation, under which a step's
// outcome is recorded even once the operation is cancelled. A context
// that cannot be cancelled is its own lasting form, so that an operation
// that cannot be cancelled pays nothing for it per step.
func lasting(ctx context.Context) context.Context {
	if ctx.Done() == nil {
		return ctx
	}
	return context.WithoutCancel(ctx)
}

// stepEnded returns the failure of a step that has run and whose end, if it
// has one, is durable (or failed to be written).
func (h *Host) stepEnded(ws *walkStep) error {
	s := ws.out.Step
	var jerr error
	if ws.jerr != nil {
		jerr = &StepError{URN: s.URN(), Err: endFailed(ws.out, ws.jerr)}
	}
	switch {
	case ws.out.Err != nil && jerr != nil:
		return errors.Join(&StepError{URN: s.URN(), Err: ws.out.Err}, jerr)
	case ws.out.Err != nil:
		return &StepError{URN: s.URN(), Err: ws.out.Err}
	case jerr != nil:
		ws.out.Err = jerr
		return jerr
	}
	return nil
}

// isUnanswered reports whether err says a provider did not answer in
// time (an *UnansweredError).
func (h *Host) isUnanswered(err error) bool {
	var un *UnansweredError
	return err != nil && errors.As(err, &un)
}

// asyncJournal is a journal that can call back once an entry is durable
// instead of holding its caller (the stores' journals can).
type asyncJournal interface {
	AppendAsync(ctx context.Context, e state.Entry, done func(seq uint64, err error))
}

// append hands the journal the entry ws's visit waits for at its stage
// (entry): a step's begin, under ctx, or its end, under ctx without its
// cancellation, since the outcome is recorded even once the operation is
// cancelled: the step did run. With a journal that calls back it returns
// dag.Park: the visit resumes once the entry is durable. Otherwise it
// appends the entry at once and returns nil. Either way ws.jerr then
// holds the journal's error, and for a begin ws.seq its Seq.
//
// ctx is the step's, the same at each stage: the functions a park needs
// are made once per step, for its begin and its end, and build the entry
// when the walker parks the visit, so that a hand-off copies nothing.
func (h *Host) append(ctx context.Context, ws *walkStep) error {
	aj, ok := h.journal.(asyncJournal)
	if !ok {
		ws.journaled(h.journal.Append(ws.stageContext(ctx), h.entry(ws)))
		return nil
	}
	if ws.park == nil {
		ws.answered = func(seq uint64, err error) {
			ws.journaled(seq, err)
			resume := ws.resume
			if ws.stage == stageEnded {
				// Its last hand-off: nothing of it is needed again.
				ws.park, ws.answered, ws.resume = nil, nil, nil
			}
			resume()
		}
		ws.park = func(resume func()) {
			ws.resume = resume
			aj.AppendAsync(ws.stageContext(ctx), h.entry(ws), ws.answered)
		}
	}
	return dag.Park(ws.park)
}

// stageContext returns the context the entry of ws's stage is appended
// under: ctx for a begin, ctx without its cancellation for an end.
func (ws *walkStep) stageContext(ctx context.Context) context.Context {
	if ws.stage == stageEnded {
		return lasting(ctx)
	}
	return ctx
}

// entry returns the entry ws's visit hands the journal at its stage.
func (h *Host) entry(ws *walkStep) state.Entry {
	s := ws.out.Step
	if ws.stage == stageBegun {
		return state.Entry{Kind: state.EntryBegin, Op: s.JournalOp(), Old: s.Old, New: s.New}
	}
	e, _ := h.endEntry(ws.out, ws.seq)
	return e
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
func (h *Host) starting(ws *walkStep) error {
	s := ws.out.Step
	if h.cfg.Forbid != nil {
		if err := h.cfg.Forbid(s); err != nil {
			return err
		}
	}
	h.cfg.Observer.StepStarted(s)
	ws.began = time.Since(h.cfg.Start)
	return nil
}

// apply applies a step, with the resource hooks bound to its resource
// around it (Config.ApplyHooked).
func (h *Host) apply(ctx context.Context, s *stepgen.Step) stepgen.Outcome {
	if h.cfg.ApplyHooked == nil || !hooked(s) {
		return Apply(ctx, s, h.cfg.Source, time.Now)
	}
	return h.cfg.ApplyHooked(ctx, s)
}

// hooked reports whether a step's resource has hooks bound.
func hooked(s *stepgen.Step) bool {
	return (s.New != nil && len(s.New.Hooks) > 0) || (s.Old != nil && len(s.Old.Hooks) > 0)
}

// leftPending notes a step left pending: its provider did not answer in
// time, and its begin stays recorded.
func (h *Host) leftPending(s *stepgen.Step) {
	h.mu.Lock()
	h.pending = append(h.pending, string(s.JournalOp())+" "+string(s.URN()))
	h.mu.Unlock()
}

// StepError is a step's failure as the operation reports it: the step's
// resource, named once, and what went wrong.
type StepError struct {
	URN resource.URN
	Err error
}

// Error names the resource, unless the failure already does.
func (e *StepError) Error() string {
	msg := e.Err.Error()
	if e.URN == "" || strings.Contains(msg, string(e.URN)) {
		return msg
	}
	return string(e.URN) + ": " + msg
}

// Unwrap returns the underlying error.
func (e *StepError) Unwrap() error { return e.Err }

// refuse reports a step the generator refused as a failed step. It does
// not go through the walker: the refusal calls no provider and journals
// nothing, and it must not stop the steps that can go ahead, as the
// failure of a step the walker ran would. It ends as every step ends
// (over), and its error is noted (Errors).
func (h *Host) refuse(ctx context.Context, s *stepgen.Step) {
	ws := &walkStep{out: stepgen.Outcome{Step: s}}
	err := h.starting(ws)
	if err == nil {
		err = Apply(ctx, s, h.cfg.Source, time.Now).Err // calls no provider: the refusal
	}
	h.over(&stepgen.Outcome{Step: s, Err: err}, ws.took(h))
	h.NoteError(err)
}
