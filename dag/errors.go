package dag

import (
	"fmt"
	"strings"
)

// SkippedError is the reason given to Options.Ended for a vertex that was
// never visited.
//
// Cause is the root of the trouble: the error of the visit whose failure
// stopped this vertex, or context.Cause of the vertex's context. When the
// vertex was skipped because a vertex it needs failed or was skipped,
// Dependency names that one; Cause is then that vertex's own root cause, so
// a long line of skipped dependents all point at the one real failure.
// Vertices are named as Options.Name names them.
type SkippedError struct {
	Vertex     string
	Dependency string // empty unless skipped because of a need
	Cause      error
}

func (e *SkippedError) Error() string {
	if e.Dependency != "" {
		return fmt.Sprintf("%s skipped: needed %s did not succeed: %v", e.Vertex, e.Dependency, e.Cause)
	}
	return fmt.Sprintf("%s skipped: %v", e.Vertex, e.Cause)
}

// Unwrap returns the cause.
func (e *SkippedError) Unwrap() error { return e.Cause }

// PanicError is a panic recovered from Options.Visit or Options.Ended. It
// counts as that vertex's failure.
type PanicError struct {
	Vertex string
	Func   string // "Visit" or "Ended"
	Value  any    // what was passed to panic
	Stack  []byte // the panicking goroutine's stack
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("%s: panic in %s: %v", e.Vertex, e.Func, e.Value)
}

// Unwrap returns the panic value if it is an error, so that errors.Is and
// errors.As see through a panic(err).
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// CanceledError ends Wait's Failures when a cancelled context kept
// vertices from being visited.
type CanceledError struct{ Cause error }

func (e *CanceledError) Error() string {
	return fmt.Sprintf("the remaining steps were not started: %v", e.Cause)
}

// Unwrap returns the cancellation's cause.
func (e *CanceledError) Unwrap() error { return e.Cause }

// Failures is the error Wait returns: the failures, in the order they
// happened. A single failure reads as itself, several as a list.
type Failures struct {
	Errors []error
}

func (f *Failures) Error() string {
	if len(f.Errors) == 1 {
		return f.Errors[0].Error()
	}
	var b strings.Builder
	what := "steps failed"
	for _, err := range f.Errors {
		if _, ok := err.(*CanceledError); ok {
			what = "errors"
		}
	}
	fmt.Fprintf(&b, "%d %s:", len(f.Errors), what)
	for _, err := range f.Errors {
		b.WriteString("\n  - ")
		b.WriteString(strings.ReplaceAll(err.Error(), "\n", "\n    "))
	}
	return b.String()
}

// Unwrap returns the failures, for errors.Is and errors.As.
func (f *Failures) Unwrap() []error { return f.Errors }
