package executor

import (
	"context"
	"errors"
	"runtime/debug"

	"github.com/groundwork-iac/groundwork/resource"
)

// runChain runs c's steps in order on the calling goroutine. Once one step
// cannot run, or fails, the rest are skipped.
func (e *Executor) runChain(ctx context.Context, c Chain) {
	var cause error // why the rest of the chain is skipped; nil while steps may run
	var dep resource.URN
	for _, s := range c.Steps {
		if cause == nil {
			cause, dep = e.blocked(ctx, c.Needs)
		}
		if cause != nil {
			e.skip(ctx, s, dep, cause)
			continue
		}
		if err := e.runStep(ctx, s); err != nil {
			cause, dep = err, ""
		}
	}
}

// blocked reports why the next step of a chain must not start, or nil if it
// may: ctx is done, the deployment was cancelled by a failure, or a needed
// resource failed or was skipped (then dep names it).
func (e *Executor) blocked(ctx context.Context, needs []resource.URN) (cause error, dep resource.URN) {
	if ctx.Err() != nil {
		cause := context.Cause(ctx)
		e.noteCanceled(cause)
		return cause, ""
	}
	if e.aborted.Load() {
		return e.abortCause, "" // written before aborted was set
	}
	if len(needs) == 0 || !e.anyBad.Load() {
		return nil, ""
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, n := range needs {
		if cause, ok := e.bad[n]; ok {
			return cause, n
		}
	}
	return nil, ""
}

// runStep takes one step through StepStarting, Apply and StepDone, and
// returns its failure as a *StepError, or nil.
func (e *Executor) runStep(ctx context.Context, s Step) error {
	urn := s.URN()
	return e.finishStep(ctx, s, urn, e.starting(ctx, s, urn))
}

// finishStep takes a step whose StepStarting returned err through Apply
// (unless err is set) and StepDone, and returns its failure as a
// *StepError, or nil.
func (e *Executor) finishStep(ctx context.Context, s Step, urn resource.URN, err error) error {
	if err == nil {
		err = apply(ctx, s, urn)
	}
	var failure error
	if err != nil {
		if ctx.Err() != nil {
			e.noteCanceled(context.Cause(ctx))
		}
		// Record before StepDone: StepDone is how the program hears of
		// the result, and a dependent it registers next must see this.
		failure = &StepError{URN: urn, Err: err}
		e.fail(urn, failure)
	}
	if derr := e.done(ctx, s, urn, err); derr != nil {
		derr := &StepError{URN: urn, Err: derr}
		e.fail(urn, derr)
		if failure == nil {
			failure = derr
		}
	}
	return failure
}

// skip reports s as skipped because of cause, and marks its URN so that
// chains needing it are skipped too.
func (e *Executor) skip(ctx context.Context, s Step, dep resource.URN, cause error) {
	urn := s.URN()
	e.markBad(urn, cause)
	reason := &SkippedError{URN: urn, Dependency: dep, Cause: cause}
	if err := e.skipped(ctx, s, urn, reason); err != nil {
		e.fail(urn, &StepError{URN: urn, Err: err})
	}
}

// fail records a step failure: in the list Wait returns, in the set Needs
// are checked against, and — without ContinueOnError — as the cause that
// cancels the deployment.
func (e *Executor) fail(urn resource.URN, failure error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.failures = append(e.failures, failure)
	e.markBadLocked(urn, failure)
	if !e.continueOnError && e.abortCause == nil {
		e.abortCause = failure
		e.aborted.Store(true)
	}
}

// markBad records that urn failed or was skipped because of cause.
func (e *Executor) markBad(urn resource.URN, cause error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.markBadLocked(urn, cause)
}

func (e *Executor) markBadLocked(urn resource.URN, cause error) {
	if _, ok := e.bad[urn]; ok {
		return // keep the first, root cause
	}
	if e.bad == nil {
		e.bad = make(map[resource.URN]error)
	}
	e.bad[urn] = cause
	e.anyBad.Store(true)
}

// noteCanceled remembers the first context cause that stopped a step.
func (e *Executor) noteCanceled(cause error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.canceled == nil {
		e.canceled = cause
	}
}

// The calls below into the step and the hooks each turn a panic into an
// error, so that a bug in one step fails that step and nothing else.

func apply(ctx context.Context, s Step, urn resource.URN) (err error) {
	err = errRunning
	defer recoverPanic(&err, urn, "Apply")
	return s.Apply(ctx)
}

func (e *Executor) starting(ctx context.Context, s Step, urn resource.URN) (err error) {
	if e.hooks == nil {
		return nil
	}
	err = errRunning
	defer recoverPanic(&err, urn, "StepStarting")
	return e.hooks.StepStarting(ctx, s)
}

func (e *Executor) done(ctx context.Context, s Step, urn resource.URN, stepErr error) (err error) {
	if e.hooks == nil {
		return nil
	}
	err = errRunning
	defer recoverPanic(&err, urn, "StepDone")
	return e.hooks.StepDone(ctx, s, stepErr)
}

func (e *Executor) skipped(ctx context.Context, s Step, urn resource.URN, reason error) (err error) {
	if e.hooks == nil {
		return nil
	}
	err = errRunning
	defer recoverPanic(&err, urn, "StepSkipped")
	e.hooks.StepSkipped(ctx, s, reason)
	return nil
}

// errRunning is the error of a call into a step or a hook while it runs:
// every normal return replaces it, so recoverPanic finding it still there
// means the call is panicking (or its goroutine is exiting).
var errRunning = errors.New("step call still running")

// recoverPanic must be deferred directly, after *err is set to errRunning:
// it turns a panic in the deferring function into *err. It calls recover
// only when the function did not return, because recover's frame is large
// enough to make a step goroutine's stack grow (BENCHMARKS.md).
func recoverPanic(err *error, urn resource.URN, fn string) {
	if *err != errRunning {
		return
	}
	if v := recover(); v != nil {
		*err = &PanicError{URN: urn, Func: fn, Value: v, Stack: debug.Stack()}
	}
}
