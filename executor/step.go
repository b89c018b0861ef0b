package executor

import (
	"context"

	"github.com/groundwork-iac/groundwork/resource"
)

// Step is one unit of work the engine built — a create, an update, a delete
// and so on. The executor knows nothing of what a step does: it only calls
// Apply at the right moment and reports the outcome through Hooks.
type Step interface {
	// URN names the resource the step acts on. Several steps may share a
	// URN (a replacement's create and delete, say). The executor calls URN
	// often and expects it to be cheap and to always return the same value.
	URN() resource.URN

	// Apply performs the step. ctx is the context the chain was submitted
	// with: a failure elsewhere in the deployment never cancels it, only the
	// submitter's own cancellation does. A panic in Apply is recovered and
	// becomes the step's failure (a *PanicError).
	Apply(ctx context.Context) error
}

// Chain is a sequence of steps that must run one after another, in order.
// Different chains run concurrently.
type Chain struct {
	// Steps run serially in this order. A chain with no steps is accepted
	// and does nothing.
	Steps []Step

	// Needs lists resources whose steps must not have failed, nor been
	// skipped, for this chain's steps to run. The executor checks Needs
	// just before each step starts; when one of them has failed or been
	// skipped, that step and the rest of the chain are skipped, and their
	// URNs in turn count as skipped for chains that need them.
	//
	// Needs is a check, not a wait: a chain whose need is still running
	// when the chain starts is not held back. The engine does not need
	// more, because it submits a registration only after the steps of its
	// dependencies have reported through StepDone, and it runs delete
	// antichains one after another with WaitIdle in between.
	//
	// Needs matters with Options.ContinueOnError. Without it, the first
	// failure stops every step that has not started yet anyway.
	Needs []resource.URN

	// Quick marks a chain whose steps and hooks are known to be short and
	// never to wait on anything outside the process (a resource found
	// unchanged, say). Execute runs such a chain on the caller's goroutine
	// before it returns, outside the parallelism limit, so that it costs
	// no goroutine of its own.
	Quick bool
}

// Hooks observes the life of every step. A host uses it to journal each
// step and to answer the program that is waiting for the step's result.
//
// Every step submitted with Execute gets exactly one of two histories:
//
//   - StepStarting, then (if StepStarting succeeded) Apply, then StepDone; or
//   - StepSkipped alone, when the step is never started.
//
// Hooks for the steps of one chain are called one at a time, on one
// goroutine, in the chain's order. Hooks for different chains are called
// concurrently, so an implementation must be safe for concurrent use. Every
// hook call for a chain has returned before WaitIdle or Wait observes that
// chain as finished. A panic in a hook is recovered and becomes the step's
// failure (a *PanicError).
type Hooks interface {
	// StepStarting is called before the step's Apply and happens-before
	// it: this is where a host journals "step began" so that a crash
	// during Apply leaves a trace. If StepStarting returns an error, the
	// executor never calls Apply; the step fails with that error, and
	// StepDone is still called with it so the waiting program hears back.
	StepStarting(ctx context.Context, s Step) error

	// StepDone is called once the step has finished: after Apply returned,
	// or after StepStarting failed. It happens-before the next step of the
	// same chain starts. err is the step's failure — the error of Apply or
	// of StepStarting, or a *PanicError — and nil on success. This is
	// where a host journals "step ended" and reports the result back to
	// the program.
	//
	// A failure has already been recorded when StepDone is called, so a
	// chain submitted in response (for a resource that needs this one)
	// sees it. A non-nil return counts as a failure of the step as well,
	// recorded after StepDone returns.
	StepDone(ctx context.Context, s Step, err error) error

	// StepSkipped is called instead of StepStarting and StepDone for a
	// step that will never start, because an earlier step failed, a needed
	// resource failed or was skipped, or ctx was cancelled. reason is a
	// *SkippedError. A skip is not a failure: Wait does not report it.
	StepSkipped(ctx context.Context, s Step, reason error)
}

// NoopHooks implements Hooks by doing nothing. Embed it in a struct to
// implement only the hooks you need.
type NoopHooks struct{}

var _ Hooks = NoopHooks{}

// StepStarting returns nil.
func (NoopHooks) StepStarting(context.Context, Step) error { return nil }

// StepDone returns nil.
func (NoopHooks) StepDone(context.Context, Step, error) error { return nil }

// StepSkipped does nothing.
func (NoopHooks) StepSkipped(context.Context, Step, error) {}
