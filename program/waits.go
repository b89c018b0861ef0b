package program

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
)

// pendingWork counts what a running program has under way (registrations
// not yet finished, outputs not yet computed), so that the operation can
// wait for all of it, watching its context. Once the count has been
// awaited to zero, or the wait gave up, it accepts no more work.
type pendingWork struct {
	mu     sync.Mutex
	n      int
	closed bool
	zero   chan struct{} // closed when n drops to zero while wait waits
}

// add counts one more piece of work; false once the program is over.
func (p *pendingWork) add() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.n++
	return true
}

// done counts one piece of work finished.
func (p *pendingWork) done() {
	p.mu.Lock()
	p.n--
	if p.n == 0 && p.zero != nil {
		close(p.zero)
		p.zero = nil
	}
	p.mu.Unlock()
}

// wait waits until no work is pending, or ctx ends (returning its cause),
// and then refuses new work.
func (p *pendingWork) wait(ctx context.Context) error {
	for {
		p.mu.Lock()
		if p.n == 0 {
			p.closed = true
			p.mu.Unlock()
			return nil
		}
		if p.zero == nil {
			p.zero = make(chan struct{})
		}
		zero := p.zero
		p.mu.Unlock()
		select {
		case <-zero:
		case <-ctx.Done():
			p.mu.Lock()
			p.closed = true
			p.mu.Unlock()
			return context.Cause(ctx)
		}
	}
}

// PanicError is a panic in the program's code — the program function, an
// Apply function or a transform — turned into an error of the operation.
type PanicError struct {
	// Func says whose code panicked: "the program", "the function", "the
	// transform".
	Func string
	// Value is what was passed to panic.
	Value any
	// Location is the file and line that panicked, if found.
	Location string
	// Stack is the goroutine's stack at the panic.
	Stack []byte
}

func (e *PanicError) Error() string {
	if e.Location == "" {
		return fmt.Sprintf("%s panicked: %v", e.Func, e.Value)
	}
	return fmt.Sprintf("%s panicked: %v (at %s)", e.Func, e.Value, e.Location)
}

// Unwrap returns the panic's value if it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// runCallback runs code of the program's that the engine calls (fn says
// whose), turning a panic into a *PanicError. Waits are refused while its
// frame is on the stack (see inCallback).
func runCallback(fn string, call func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = newPanicError(fn, v)
		}
	}()
	return call()
}

func newPanicError(fn string, v any) *PanicError {
	buf := make([]byte, 64<<10)
	buf = buf[:runtime.Stack(buf, false)]
	return &PanicError{Func: fn, Value: v, Location: panicLocation(), Stack: buf}
}

// panicLocation finds the frame that panicked, from a deferred function:
// the first one after the runtime's panic machinery.
func panicLocation() string {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	inPanic := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			inPanic = true
		case inPanic && !strings.HasPrefix(f.Function, "runtime."):
			return fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		if !more {
			return ""
		}
	}
}

// callbackFunc is runCallback's name as the runtime reports it.
var callbackFunc = runtime.FuncForPC(reflect.ValueOf(runCallback).Pointer()).Name()

// inCallback reports whether the calling goroutine is running code of the
// program's that the engine called (an Apply function, a transform): a
// wait there could wait for itself, since what it waits for may be
// waiting for that very function. The program function itself, and the
// goroutines it starts, are not callbacks.
func inCallback() bool {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(2, pcs)
	for n == len(pcs) {
		pcs = make([]uintptr, 2*len(pcs))
		n = runtime.Callers(2, pcs)
	}
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if f.Function == callbackFunc {
			return true
		}
		if !more {
			return false
		}
	}
}

// CycleError reports a wait that could never end: what it waits for is
// itself waiting, through the resources and outputs listed, for the code
// that waits.
type CycleError struct {
	// Cycle lists what waits for what, starting and ending with the same
	// thing: `an Apply on outputs of test:index:Thing "a"`,
	// `test:index:Thing "b"`, ...
	Cycle []string
}

func (e *CycleError) Error() string {
	var b strings.Builder
	b.WriteString("a wait that could never end, refused: ")
	for i, s := range e.Cycle {
		switch {
		case i == 0:
			b.WriteString(s)
		case i == 1:
			b.WriteString(" waits for " + s)
		default:
			b.WriteString(", which waits for " + s)
		}
	}
	b.WriteString("; combine outputs with engine.All, Apply2, Apply3 or Sprintf instead of waiting inside an Apply function or a transform")
	return b.String()
}

// refuseWait refuses a wait for what (which waits for w) made inside a
// callback (see inCallback), describing the cycle when w waits for a
// callback that is running.
func (c *Context) refuseWait(w waitable, what string) error {
	if !inCallback() {
		return nil
	}
	if cycle := c.cycleThrough(w); cycle != nil {
		return &CycleError{Cycle: cycle}
	}
	return fmt.Errorf("waiting for %s inside %w", what, errCallbackWait)
}

// cycleThrough looks, among what w waits for, for a callback that is
// running, and returns the chain from that callback through w back to it.
func (c *Context) cycleThrough(w waitable) []string {
	c.graph.Lock()
	defer c.graph.Unlock()
	seen := map[waitable]bool{}
	var path []waitable
	var search func(x waitable) bool
	search = func(x waitable) bool {
		if x == nil || x.finished() || seen[x] {
			return false
		}
		seen[x] = true
		path = append(path, x)
		switch n := x.(type) {
		case *cell:
			if n.running {
				return true
			}
			for _, f := range n.sources {
				if f != nil && search(f.waitable()) {
					return true
				}
			}
		case *Resource:
			if n.transforming {
				return true
			}
			for _, d := range c.waitingOn[n] {
				if search(d) {
					return true
				}
			}
		}
		path = path[:len(path)-1]
		return false
	}
	if !search(w) {
		return nil
	}
	running := path[len(path)-1]
	names := []string{callbackName(running)}
	for _, x := range path {
		names = append(names, x.describe())
	}
	names[len(names)-1] = names[0]
	return names
}

// callbackName names the running callback a cycle ends in.
func callbackName(x waitable) string {
	if r, ok := x.(*Resource); ok {
		return "a transform of " + r.describe()
	}
	return x.describe()
}
