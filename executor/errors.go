package executor

import (
	"errors"
	"fmt"
	"strings"

	"github.com/groundwork-iac/groundwork/resource"
)

// ErrClosed is returned by Execute once Wait has been called: the executor
// accepts no more work. The rejected chain runs nothing and no hook is
// called for it.
var ErrClosed = errors.New("Execute called after Wait")

// StepError is one step's failure as Wait reports it: the step's resource
// and what went wrong (the error of Apply, StepStarting or StepDone, or a
// *PanicError).
type StepError struct {
	URN resource.URN
	Err error
}

func (e *StepError) Error() string {
	if p, ok := e.Err.(*PanicError); ok && p.URN == e.URN {
		return e.Err.Error() // already names the resource
	}
	return fmt.Sprintf("%s: %v", e.URN, e.Err)
}

// Unwrap returns the underlying error.
func (e *StepError) Unwrap() error { return e.Err }

// SkippedError is the reason given to Hooks.StepSkipped: the step named by
// URN never started, because of Cause.
//
// Cause is the root of the trouble: the *StepError of the step whose failure
// stopped this one, or context.Cause of the chain's context. When the step
// was skipped because of Chain.Needs, Dependency names the needed resource
// that failed or was skipped; Cause is then that resource's own root cause,
// so a long line of skipped dependents all point at the one real failure.
type SkippedError struct {
	URN        resource.URN
	Dependency resource.URN // empty unless skipped because of Chain.Needs
	Cause      error
}

func (e *SkippedError) Error() string {
	if e.Dependency != "" {
		return fmt.Sprintf("%s skipped: needed %s did not succeed: %v", e.URN, e.Dependency, e.Cause)
	}
	return fmt.Sprintf("%s skipped: %v", e.URN, e.Cause)
}

// Unwrap returns the cause.
func (e *SkippedError) Unwrap() error { return e.Cause }

// PanicError is a panic recovered from a step's Apply or from a hook. It
// counts as that step's failure.
type PanicError struct {
	URN   resource.URN
	Func  string // "Apply", "StepStarting", "StepDone" or "StepSkipped"
	Value any    // what was passed to panic
	Stack []byte // the panicking goroutine's stack
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("%s: panic in %s: %v", e.URN, e.Func, e.Value)
}

// Unwrap returns the panic value if it is an error, so that errors.Is and
// errors.As see through a panic(err).
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// canceledError records that a chain's context was cancelled while the
// chain still had steps to run.
type canceledError struct{ cause error }

func (e *canceledError) Error() string {
	return fmt.Sprintf("the remaining steps were not started: %v", e.cause)
}

func (e *canceledError) Unwrap() error { return e.cause }

// formatErrors renders Wait's error: a single failure reads as itself,
// several as a list, one failure an item.
func formatErrors(errs []error) string {
	if len(errs) == 1 {
		return errs[0].Error()
	}
	var b strings.Builder
	what := "steps failed"
	for _, err := range errs {
		if _, ok := err.(*StepError); !ok {
			what = "errors"
		}
	}
	fmt.Fprintf(&b, "%d %s:", len(errs), what)
	for _, err := range errs {
		b.WriteString("\n  - ")
		b.WriteString(strings.ReplaceAll(err.Error(), "\n", "\n    "))
	}
	return b.String()
}
