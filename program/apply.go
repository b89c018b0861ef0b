package program

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/groundwork-iac/groundwork/resource"
)

// cell holds the value of a function of other outputs. Once all its
// sources have resolved, it computes its value on a goroutine of its own
// (the function is the program's code, which must not run on the engine's
// goroutines), counted in its Context's pending work.
type cell struct {
	c       *Context // nil when every source was known at creation
	label   string
	sources []*future
	compute func(c *cell, ins []outcome) outcome
	done    chan struct{}

	// mu guards then, as in Resource.
	mu   sync.Mutex
	then []func()

	// running is set while compute runs (guarded by c.graph).
	running bool

	// Set before done is closed.
	out outcome
}

// resolvedCell returns a cell whose value is known at creation.
func resolvedCell(oc outcome) *cell {
	c := &cell{done: make(chan struct{}), out: oc}
	close(c.done)
	return c
}

func (c *cell) finished() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

func (c *cell) onFinish(fn func()) {
	c.mu.Lock()
	if c.finished() {
		c.mu.Unlock()
		fn()
		return
	}
	c.then = append(c.then, fn)
	c.mu.Unlock()
}

func (c *cell) describe() string {
	if c.label == "" {
		return "a value"
	}
	return c.label
}

// newCell makes the Output of compute over sources. The value is computed
// once every source has resolved: at once, on the caller's goroutine, when
// all of them were known at creation; otherwise on a goroutine of the
// operation's Context.
func newCell[T any](what string, sources []*future, compute func(c *cell, ins []outcome) outcome) Output[T] {
	var ctx *Context
	var pending []waitable
	for i, f := range sources {
		if f == nil {
			return Output[T]{f: &future{cell: resolvedCell(outcome{err: fmt.Errorf("%s: source %d: %w", what, i+1, errZeroOutput), own: true})}}
		}
		c := f.context()
		if c != nil && ctx != nil && c != ctx {
			return Output[T]{f: &future{cell: resolvedCell(outcome{err: fmt.Errorf("%s: its sources come from different operations", what), own: true})}}
		}
		if c != nil {
			ctx = c
			if w := f.waitable(); !w.finished() {
				pending = append(pending, w)
			}
		}
	}
	cl := &cell{c: ctx, label: label(what, sources), sources: sources, compute: compute, done: make(chan struct{})}
	if ctx == nil {
		cl.run()
		return Output[T]{f: &future{cell: cl}}
	}
	if !ctx.pending.add() {
		cl.out = outcome{err: fmt.Errorf("%s was made after the program returned", cl.label), own: true}
		close(cl.done)
		return Output[T]{f: &future{cell: cl}}
	}
	var left atomic.Int32
	left.Store(int32(len(pending)) + 1)
	start := func() {
		if left.Add(-1) == 0 {
			go cl.run()
		}
	}
	for _, w := range pending {
		w.onFinish(start)
	}
	start()
	return Output[T]{f: &future{cell: cl}}
}

// run computes the cell's value and releases what waits for it.
func (c *cell) run() {
	ins := make([]outcome, len(c.sources))
	for i, f := range c.sources {
		ins[i] = f.outcome()
	}
	if c.c != nil {
		c.c.graph.Lock()
		c.running = true
		c.c.graph.Unlock()
	}
	out := c.compute(c, ins)
	if c.c != nil {
		c.c.graph.Lock()
		c.running = false
		c.c.graph.Unlock()
	}
	c.out = out
	c.mu.Lock()
	close(c.done)
	then := c.then
	c.then = nil
	c.mu.Unlock()
	for _, fn := range then {
		fn()
	}
	if c.c != nil {
		if out.err != nil && out.own {
			c.c.fail(out.err)
		}
		c.c.pending.done()
	}
}

// label describes a cell by what made it and the resources its sources
// come from: `an Apply on outputs of random:index:Pet "mascot"`.
func label(what string, sources []*future) string {
	var names []string
	var walk func(fs []*future)
	walk = func(fs []*future) {
		for _, f := range fs {
			switch {
			case f == nil:
			case f.res != nil:
				if n := f.res.describe(); !slices.Contains(names, n) {
					names = append(names, n)
				}
			case f.cell != nil:
				walk(f.cell.sources)
			}
		}
	}
	walk(sources)
	if len(names) == 0 {
		return what + " on constant values"
	}
	return what + " on outputs of " + strings.Join(names, ", ")
}

// merge combines the outcomes of a cell's sources: the first error,
// known if all are, secret if any is, and every resource they came from.
// The error is the cell's own to report when it arose in using a
// resource's output (a missing key, a value of the wrong type); one that
// a resource or another cell has reported is not.
func merge(sources []*future, ins []outcome) outcome {
	m := outcome{known: true}
	for i, oc := range ins {
		if oc.err != nil && m.err == nil {
			m.err, m.own = oc.err, oc.own && sources[i].cell == nil
		}
		m.known = m.known && oc.known
		m.secret = m.secret || oc.secret
		for _, d := range oc.deps {
			if !slices.Contains(m.deps, d) {
				m.deps = append(m.deps, d)
			}
		}
	}
	return m
}

// applyN is the shape shared by every function of outputs: merge the
// sources; unless one failed or is unknown, decode each source's value
// and call fn with them, as a callback (a panic becomes an error).
func applyN[U any](what string, sources []*future, fn func(ins []outcome, secret *bool) (U, error)) Output[U] {
	return newCell[U](what, sources, func(self *cell, ins []outcome) outcome {
		m := merge(sources, ins)
		if m.err != nil {
			return m
		}
		if !m.known {
			// fn is not called: the whole result is unknown, and an
			// input made of it is sent as unknown, not left out.
			m.pv = resource.NewUnknown()
			return m
		}
		var u U
		err := runCallback("the function", func() error {
			var err error
			u, err = fn(ins, &m.secret)
			return err
		})
		if err != nil {
			m.err, m.own = maskWithInputs(ins, fmt.Errorf("%s: %w", self.describe(), err)), true
			return m
		}
		m.value, m.fromGo = u, true
		return m
	})
}

// maskWithInputs masks err, the failure of a function applied to ins, with
// the secrets among ins: a function given a secret sees its plaintext and
// may quote it (or panic with it), and that secret may come from
// Secret(Val(...)) and reach no resource the operation's filter learns it
// from.
func maskWithInputs(ins []outcome, err error) error {
	var f *resource.SecretFilter
	for _, in := range ins {
		pv := in.pv
		if in.fromGo {
			v, cerr := resource.NewPropertyValue(in.value)
			if cerr != nil {
				continue
			}
			pv = v
		}
		if in.secret {
			pv = resource.NewSecret(pv)
		}
		if pv.ContainsSecrets() {
			if f == nil {
				f = &resource.SecretFilter{}
			}
			f.Add(pv)
		}
	}
	return f.MaskError(err)
}

// Apply returns an Output whose value is fn of o's value, once o is known.
// fn sees a secret's plain value and its result is secret too. In a
// preview, when o's value is not known yet, fn is not called and the
// result is unknown. The result depends on every resource o came from.
//
// fn runs on a goroutine of the engine's, once. It must not wait for
// other outputs (Await, Resource.Wait): combine them with Apply2, Apply3,
// All or Sprintf, which record them as dependencies too. A panic in fn is
// an error of the operation, naming the resources o came from.
func Apply[T, U any](o Output[T], fn func(T) U) Output[U] {
	return ApplyErr(o, func(v T) (U, error) { return fn(v), nil })
}

// ApplyErr is Apply for a function that may fail; its error fails the
// Output, every registration that uses it, and the operation.
func ApplyErr[T, U any](o Output[T], fn func(T) (U, error)) Output[U] {
	src := []*future{o.f}
	return applyN("an Apply", src, func(ins []outcome, secret *bool) (U, error) {
		a, err := valueAs[T](src[0], ins[0], secret)
		if err != nil {
			var zero U
			return zero, err
		}
		return fn(a)
	})
}

// Apply2 is Apply over two outputs: fn gets both values once both are
// known, and the result depends on the resources of both.
func Apply2[A, B, U any](a Output[A], b Output[B], fn func(A, B) U) Output[U] {
	src := []*future{a.f, b.f}
	return applyN("an Apply", src, func(ins []outcome, secret *bool) (U, error) {
		var zero U
		va, err := valueAs[A](src[0], ins[0], secret)
		if err != nil {
			return zero, err
		}
		vb, err := valueAs[B](src[1], ins[1], secret)
		if err != nil {
			return zero, err
		}
		return fn(va, vb), nil
	})
}

// Apply3 is Apply over three outputs.
func Apply3[A, B, C, U any](a Output[A], b Output[B], c Output[C], fn func(A, B, C) U) Output[U] {
	src := []*future{a.f, b.f, c.f}
	return applyN("an Apply", src, func(ins []outcome, secret *bool) (U, error) {
		var zero U
		va, err := valueAs[A](src[0], ins[0], secret)
		if err != nil {
			return zero, err
		}
		vb, err := valueAs[B](src[1], ins[1], secret)
		if err != nil {
			return zero, err
		}
		vc, err := valueAs[C](src[2], ins[2], secret)
		if err != nil {
			return zero, err
		}
		return fn(va, vb, vc), nil
	})
}

// All returns an Output of the values of outs, in order, once all are
// known. It depends on every resource they came from, is secret if any is
// and unknown if any is.
func All[T any](outs ...Output[T]) Output[[]T] {
	src := make([]*future, len(outs))
	for i, o := range outs {
		src[i] = o.f
	}
	return applyN("All", src, func(ins []outcome, secret *bool) ([]T, error) {
		vals := make([]T, len(ins))
		for i := range ins {
			v, err := valueAs[T](src[i], ins[i], secret)
			if err != nil {
				return nil, err
			}
			vals[i] = v
		}
		return vals, nil
	})
}

// Sprintf formats like fmt.Sprintf, with Outputs among its arguments
// standing for their values. The result depends on every resource those
// came from, is secret if any is and unknown if any is.
func Sprintf(format string, args ...any) Output[string] {
	var src []*future
	var at []int // the argument each source replaces
	for i, a := range args {
		if o, ok := a.(output); ok {
			src = append(src, o.future())
			at = append(at, i)
		}
	}
	return applyN(fmt.Sprintf("Sprintf(%q)", format), src, func(ins []outcome, secret *bool) (string, error) {
		vals := slices.Clone(args)
		for j, oc := range ins {
			v, err := anyValue(src[j], oc, secret)
			if err != nil {
				return "", err
			}
			vals[at[j]] = v
		}
		return fmt.Sprintf(format, vals...), nil
	})
}

// anyValue is a known outcome's value as fmt should see it: the Go value
// of a cell, or the plain form of a property value.
func anyValue(f *future, oc outcome, secret *bool) (any, error) {
	if oc.fromGo {
		return oc.value, nil
	}
	return valueAs[any](f, oc, secret)
}

// errCallbackWait is wrapped by the error of a wait refused inside a
// function the engine calls for the program.
var errCallbackWait = errors.New("a function the engine calls for the program (an Apply function or a transform) is refused, since it could wait for itself; combine outputs with engine.All, Apply2, Apply3 or Sprintf instead")
