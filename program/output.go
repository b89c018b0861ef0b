package program

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/groundwork-iac/groundwork/resource"
)

// Output is a value of type T that becomes known during the operation: an
// output of a resource (once its step has completed), a constant (Val), or
// the result of a function of other outputs (Apply, All, Sprintf). An
// Output remembers the resources its value came from, and whether the
// value is secret or, in a preview, not known yet.
//
// Use an Output as an input of other registrations (in a typed resource's
// arguments or in Props), as a stack output (Context.Export), or as the
// source of another Output. The registration that takes it waits for it
// and records a dependency on every resource it came from, so that the
// resource is created after them and deleted before them. A secret value
// stays secret through every function applied to it; an unknown one stays
// unknown, and the functions are not called.
//
// The zero Output holds nothing: as a field of a typed resource's
// arguments it means "not set"; anywhere else it is an error.
type Output[T any] struct {
	f *future
}

// output is what every Output[T] is to code that does not know T.
type output interface {
	future() *future
}

func (o Output[T]) future() *future { return o.f }

// ErrUnknown is returned by Output.Await for a value that is not known
// until the resources it comes from are deployed, which happens only in a
// preview.
var ErrUnknown = errors.New("the value is not known until the resource is deployed (this is a preview)")

// future is where an Output's value comes from: an output (or the ID) of
// a resource, or a cell, the result of a function of other outputs.
// Constants are cells resolved at creation.
type future struct {
	res      *Resource
	key      resource.PropertyKey
	id       bool
	optional bool

	cell *cell
}

// outcome is the value of a future once it is resolved.
type outcome struct {
	// value is the Go value of a cell (set when fromGo); pv is the raw
	// property value of a resource's output.
	value  any
	fromGo bool
	pv     resource.PropertyValue
	known  bool
	secret bool
	// deps are the resources the value came from.
	deps []*Resource
	// err is why there is no value; own is set when the error arose
	// here, not in a resource or output this one depends on.
	err error
	own bool
}

// waitable is something a wait can be for: a registration or a cell.
type waitable interface {
	finished() bool
	onFinish(fn func())
	describe() string
}

// waitable returns what f waits for.
func (f *future) waitable() waitable {
	if f.cell != nil {
		return f.cell
	}
	return f.res
}

// context returns the Context of the operation f belongs to; nil for a
// value that was known when it was made.
func (f *future) context() *Context {
	if f.cell != nil {
		return f.cell.c
	}
	return f.res.ctx
}

func (f *future) describe() string {
	switch {
	case f.cell != nil:
		return f.cell.describe()
	case f.id:
		return "the ID of " + f.res.describe()
	}
	return fmt.Sprintf("output %q of %s", f.key, f.res.describe())
}

// outcome returns f's value; f must be resolved.
func (f *future) outcome() outcome {
	if f.cell != nil {
		return f.cell.out
	}
	r := f.res
	deps := []*Resource{r}
	if r.err != nil {
		return outcome{err: r.err, deps: deps}
	}
	var pv resource.PropertyValue
	switch {
	case f.id && r.id == "":
		pv = resource.NewUnknown()
	case f.id:
		pv = resource.NewString(string(r.id))
	default:
		var ok bool
		if pv, ok = r.outputs[f.key]; !ok {
			switch {
			case r.ctx.Preview() && !r.stable:
				pv = resource.NewUnknown()
			case f.optional:
				pv = resource.NewNull()
			default:
				keys := make([]string, 0, len(r.outputs))
				for k := range r.outputs {
					keys = append(keys, string(k))
				}
				slices.Sort(keys)
				return outcome{err: &MissingOutputError{Type: r.typ, Name: r.name, Key: string(f.key), Keys: keys}, own: true, deps: deps}
			}
		}
	}
	return outcome{pv: pv, known: !pv.ContainsUnknowns(), secret: pv.IsSecret(), deps: deps}
}

// valueAs converts a known outcome to T. A raw property value may hold
// secrets inside it: a PropertyValue keeps them, any other T loses them,
// so decoding into one sets *secret (when secret is not nil) to keep the
// result secret.
func valueAs[T any](f *future, oc outcome, secret *bool) (T, error) {
	var v T
	if oc.fromGo {
		if oc.value != nil {
			v = oc.value.(T)
		}
		return v, nil
	}
	if p, ok := any(&v).(*resource.PropertyValue); ok {
		// The outer secret is the outcome's to carry.
		*p = oc.pv
		if p.IsSecret() {
			*p = p.SecretElement()
		}
		return v, nil
	}
	if secret != nil && oc.pv.ContainsSecrets() {
		*secret = true
	}
	if err := oc.pv.Decode(&v); err != nil {
		return v, fmt.Errorf("%s: %w", f.describe(), err)
	}
	return v, nil
}

// Val returns an Output whose value is v, known at once. Use it for
// constant arguments of typed resources: Path: program.Val("./site").
func Val[T any](v T) Output[T] {
	return Output[T]{f: &future{cell: resolvedCell(outcome{value: v, fromGo: true, known: true})}}
}

// Secret returns an Output with o's value, marked secret: it is encrypted
// in the state, masked in events, and so is every value made from it.
func Secret[T any](o Output[T]) Output[T] {
	src := []*future{o.f}
	return newCell[T]("Secret", src, func(_ *cell, ins []outcome) outcome {
		m := merge(src, ins)
		if m.err != nil {
			return m
		}
		oc := ins[0]
		oc.secret, oc.deps = true, m.deps
		return oc
	})
}

// OutputOf returns the future value of the output key of the resource h,
// typed: it is decoded into T (see resource.PropertyValue.Decode) when the
// resource's step has completed. It is how a program reads a typed value
// from a resource registered with Context.Register. A key the provider did
// not return, or a value that does not decode into T, is an error naming
// the resource and the key.
func OutputOf[T any](h Handle, key string) Output[T] {
	r := handleOf(h)
	if r == nil {
		return Output[T]{f: &future{cell: resolvedCell(outcome{err: errors.New("OutputOf: the resource handle is nil"), own: true})}}
	}
	return Output[T]{f: &future{res: r, key: resource.PropertyKey(key)}}
}

// As returns o's value decoded into T (see resource.PropertyValue.Decode),
// for values that come untyped: Resource.Output, StackOutput. A value that
// does not decode is an error of the Output, naming where it came from. A
// secret anywhere inside the value makes the result secret.
func As[T any](o Output[resource.PropertyValue]) Output[T] {
	src := []*future{o.f}
	return applyN("As", src, func(ins []outcome, secret *bool) (T, error) {
		var v T
		pv, err := valueAs[resource.PropertyValue](src[0], ins[0], secret)
		if err != nil {
			return v, err
		}
		if pv.ContainsSecrets() {
			*secret = true
		}
		if err := pv.Decode(&v); err != nil {
			return v, err
		}
		return v, nil
	})
}

// Await waits until the value is known and returns it. It watches ctx and
// the operation's context. A secret is returned in plain text. In a
// preview, a value that depends on a resource not deployed yet gives
// ErrUnknown.
//
// Call Await from the program's function (or from goroutines it waits
// for), never inside a function the engine calls for the program (an
// Apply function or a transform): such a wait could wait for itself, and
// it is refused with an error (a *CycleError where it would have). Combine
// outputs with All, Apply2, Apply3 or Sprintf instead.
func (o Output[T]) Await(ctx context.Context) (T, error) {
	var zero T
	f := o.f
	if f == nil {
		return zero, errZeroOutput
	}
	if c := f.context(); c != nil {
		w := f.waitable()
		if err := c.refuseWait(w, f.describe()); err != nil {
			return zero, err
		}
		if !w.finished() {
			done := make(chan struct{})
			w.onFinish(func() { close(done) })
			select {
			case <-done:
			case <-ctx.Done():
				return zero, context.Cause(ctx)
			case <-c.ctx.Done():
				return zero, context.Cause(c.ctx)
			}
		}
	}
	oc := f.outcome()
	switch {
	case oc.err != nil:
		return zero, oc.err
	case !oc.known:
		return zero, ErrUnknown
	}
	return valueAs[T](f, oc, nil)
}

var errZeroOutput = errors.New("the Output is the zero Output, which holds no value: make Outputs with Val, OutputOf, Apply or a resource's fields")
