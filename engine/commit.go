package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/groundwork-iac/groundwork/plan"
)

// commit waits for every step, records the stack outputs and commits the
// journal into a new snapshot, and has the host join the errors
// (deploy.Host.JoinErrors). The loop has stopped: nothing else touches
// the generator.
func (d *deployment) commit(ctx context.Context, opErr error) (*Result, error) {
	execErr := d.host.Wait()
	failed := opErr != nil || execErr != nil || !d.healthy() || ctx.Err() != nil
	outputs, outErr := d.host.FinishStackOutputs(ctx, failed)
	d.outputs = outputs
	if outErr != nil {
		d.noteError(outErr)
	}
	stackErr := d.analyzeStack(ctx)
	counts, _ := d.rec.tally()
	res := &Result{Counts: counts, Steps: d.rec.steps(), Outputs: d.outputs}
	var commitErr error
	if d.journal != nil {
		if d.clearPending && d.healthy() && opErr == nil {
			commitErr = d.clearPendingOperations(ctx)
		}
		if commitErr == nil {
			res.Snapshot, commitErr = d.journal.Commit(context.WithoutCancel(ctx))
		}
		if cerr := d.journal.Close(context.WithoutCancel(ctx)); cerr != nil && commitErr == nil {
			commitErr = cerr
		}
		if commitErr != nil {
			commitErr = fmt.Errorf("writing the stack's state: %w", commitErr)
		}
	} else {
		res.Snapshot = d.base
	}
	errs := []error{opErr, execErr, stackErr, commitErr}
	errs = append(errs, d.host.Errors()...)
	if ctx.Err() != nil {
		// What only echoes the cancellation (the program stopped, steps
		// not started) is said once, by the CancelledError.
		pending := slices.Sorted(slices.Values(d.host.Pending()))
		cancelled := &CancelledError{Operation: d.op, Cause: context.Cause(ctx), Recorded: maps.Clone(counts), Preview: d.preview, Pending: pending}
		errs = slices.DeleteFunc(errs, func(err error) bool {
			var unreturned *unreturnedError
			if errors.As(err, &unreturned) {
				cancelled.ProgramRunning = true
			}
			return err != nil && (errors.Is(err, cancelled.Cause) || errors.Is(err, ctx.Err()))
		})
		errs = append(errs, cancelled)
	}
	err := d.host.JoinErrors(errs...)
	if err == nil && d.opts.generatePlan {
		res.Plan = d.gen.Plan()
		res.Plan.State = plan.Fingerprint(d.base)
	}
	return res, err
}

// CancelledError reports an operation stopped by its context: steps in
// flight finished and were recorded, nothing new started.
type CancelledError struct {
	Operation Operation
	Cause     error
	// Recorded counts the changes completed before the operation
	// stopped, by kind, as Result.Counts does (in a preview, nothing was
	// recorded).
	Recorded map[StepOp]int
	Preview  bool
	// ProgramRunning is set when the program had not returned when the
	// operation ended.
	ProgramRunning bool
	// Pending names the steps whose provider did not answer in time (see
	// GracePeriod and UnansweredError), as "<kind> <urn>": each stays
	// recorded as a pending operation, which a refresh resolves.
	Pending []string
}

// Error says what was stopped and what was recorded.
func (e *CancelledError) Error() string {
	what := "the " + string(e.Operation)
	if e.Preview && e.Operation != OpPreview {
		what = "the preview of the " + string(e.Operation)
	}
	msg := fmt.Sprintf("%s was cancelled (%v): no new step was started", what, e.Cause)
	if e.ProgramRunning {
		msg += ", the program did not return before the operation ended"
	}
	if e.Preview {
		return msg + ", and nothing was changed"
	}
	var done []string
	for _, op := range slices.Sorted(maps.Keys(e.Recorded)) {
		if n := e.Recorded[op]; n > 0 && op != StepSame && op != StepOutputs {
			done = append(done, fmt.Sprintf("%s: %d", op, n))
		}
	}
	if len(e.Pending) > 0 {
		if len(done) > 0 {
			msg += "; the state records every change made (" + strings.Join(done, ", ") + ")"
		}
		return msg + "; " + pendingText(e.Pending)
	}
	if len(done) == 0 {
		return msg + ", and no change had been made"
	}
	return msg + "; the steps already running finished, and the state records every change made (" + strings.Join(done, ", ") + ")"
}

// pendingText says which steps were left pending.
func pendingText(pending []string) string {
	if len(pending) == 1 {
		return "a step in flight did not answer in time and is recorded as a pending operation (" +
			pending[0] + "), which a refresh resolves"
	}
	return fmt.Sprintf("%d steps in flight did not answer in time and are recorded as pending operations (%s), which a refresh resolves",
		len(pending), strings.Join(pending, ", "))
}

// Unwrap returns the cancellation cause.
func (e *CancelledError) Unwrap() error { return e.Cause }

func (d *deployment) summarize(err error) {
	if !d.events.enabled() {
		return
	}
	ev := SummaryEvent{Operation: d.op, Duration: time.Since(d.start)}
	ev.Counts, ev.Failed = d.rec.tally()
	if err != nil {
		ev.Error = err.Error()
	} else if d.op == OpUp || d.op == OpPreview {
		ev.Outputs = d.outputs.MaskSecrets()
	}
	d.events.emit(ev)
}
