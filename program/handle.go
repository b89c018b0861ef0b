package program

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// Resource is the handle of a registration. It is returned at once; its
// URN, ID and outputs become available when the resource's step has
// completed. Pass it (or its outputs) to other registrations to make them
// depend on it.
type Resource struct {
	ctx  *Context
	typ  string
	name string
	// readID is set for a read of an existing resource: the ID of the
	// resource read. Few registrations are reads, so it is apart.
	readID *resource.ID
	custom bool
	// counted is set when the registration holds a count of the
	// Context's pending work, which finish gives back.
	counted bool
	// transforming is guarded by ctx.graph: whether the registration's
	// transforms are running.
	transforming bool
	// ended is set by the first finish; a second is ignored.
	ended atomic.Bool
	// fin is set once the registration has finished: urn, id, outputs,
	// stable and err are set before it, and read only after it.
	fin    atomic.Bool
	stable bool

	// mu guards then, callbacks of what waits for this registration,
	// called (and dropped) when it finishes, and done.
	mu   sync.Mutex
	then []func()
	// done is made by the first Done or blocking wait, and closed when the
	// registration finishes: most registrations are never waited for
	// that way (launch waits with then), and make no channel.
	done chan struct{}

	urn     resource.URN
	id      resource.ID
	outputs resource.PropertyMap
	err     error
}

// Handle stands for a registered resource: a *Resource, or a typed
// resource (a struct that embeds *Resource, see NewResource). Options
// such as DependsOn and Parent take Handles.
type Handle interface {
	handle() *Resource
}

func (r *Resource) handle() *Resource { return r }

// handleOf returns the *Resource h stands for, or nil for a nil handle:
// a nil interface, a nil pointer, or a typed resource that embeds none.
func handleOf(h Handle) *Resource {
	if h == nil {
		return nil
	}
	if v := reflect.ValueOf(h); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil
	}
	return h.handle()
}

// describe names the resource for messages: its type and name.
func (r *Resource) describe() string { return fmt.Sprintf("%s %q", r.typ, r.name) }

// finish records the outcome of r's registration and releases everything
// waiting for it. The first call counts; the engine makes exactly one.
func (r *Resource) finish(res providers.RegisterResult, err error) {
	if r.ended.Swap(true) {
		return
	}
	if err == nil {
		r.urn, r.id, r.outputs, r.stable = res.URN, res.ID, res.Outputs, res.Stable
	}
	r.err = err
	r.mu.Lock()
	r.fin.Store(true)
	if r.done != nil {
		close(r.done)
	}
	then := r.then
	r.then = nil
	r.mu.Unlock()
	for _, fn := range then {
		fn()
	}
	r.ctx.fail(err)
	if r.counted {
		r.ctx.pending.done()
	}
}

// onFinish calls fn once r's registration has finished: at once if it has.
func (r *Resource) onFinish(fn func()) {
	r.mu.Lock()
	if r.finished() {
		r.mu.Unlock()
		fn()
		return
	}
	r.then = append(r.then, fn)
	r.mu.Unlock()
}

// finished reports whether r's registration has finished.
func (r *Resource) finished() bool { return r.fin.Load() }

// Done is closed when the registration has finished (successfully or not).
func (r *Resource) Done() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done == nil {
		r.done = make(chan struct{})
		if r.fin.Load() {
			close(r.done)
		}
	}
	return r.done
}

// Wait blocks until the registration has finished and returns its error.
// It watches the operation's context. Like every wait, it is refused
// inside a function the engine calls for the program (an Apply function
// or a transform): combine outputs with All, Apply2 or Sprintf instead.
func (r *Resource) Wait() error {
	if err := r.ctx.refuseWait(r, r.describe()); err != nil {
		return err
	}
	return r.await(r.ctx.ctx)
}

// await waits for r, watching ctx.
func (r *Resource) await(ctx context.Context) error {
	if r.finished() {
		return r.err
	}
	select {
	case <-r.Done():
		return r.err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// awaitDep waits for r as a dependency of another registration.
func (r *Resource) awaitDep(ctx context.Context, of *Resource) error {
	if err := r.await(ctx); err != nil {
		return dependencyError(of, r.describe(), err)
	}
	return nil
}

// URN waits for the registration and returns the resource's URN.
func (r *Resource) URN() (resource.URN, error) {
	err := r.Wait()
	return r.urn, err
}

// Outputs waits for the registration and returns the resource's outputs.
// In a preview, outputs that are not known yet are absent.
func (r *Resource) Outputs() (resource.PropertyMap, error) {
	err := r.Wait()
	return r.outputs, err
}

// Stable waits for the registration and reports whether its step left
// the resource unchanged (false if it failed).
func (r *Resource) Stable() bool {
	return r.Wait() == nil && r.stable
}

// Output returns the future value of one of the resource's outputs, as a
// property value. OutputOf gives a typed one. Using it when the provider
// returned no such output is an error naming the resource and the key
// (in a preview the value is unknown instead, until the resource exists).
func (r *Resource) Output(key string) Output[resource.PropertyValue] {
	return OutputOf[resource.PropertyValue](r, key)
}

// ID returns the future value of the resource's ID; it is unknown in a
// preview until the resource exists.
func (r *Resource) ID() Output[resource.ID] {
	return Output[resource.ID]{f: &future{res: r, id: true}}
}

// referenceFor returns the provider reference of r, a provider resource,
// for a registration that uses it.
func (r *Resource) referenceFor(ctx context.Context, of *Resource) (string, error) {
	if err := r.awaitDep(ctx, of); err != nil {
		return "", err
	}
	return r.ref()
}

func (r *Resource) reference(ctx context.Context) (string, error) {
	if err := r.await(ctx); err != nil {
		return "", err
	}
	return r.ref()
}

func (r *Resource) ref() (string, error) {
	if !resource.IsProviderType(r.typ) {
		return "", fmt.Errorf("%s is not a provider; register providers with Context.Provider", r.describe())
	}
	id := r.id
	if id == "" {
		id = providers.UnknownID
	}
	return providers.NewReference(r.urn, id).String(), nil
}

// DependencyError fails a registration because something it depends on
// failed. It is not reported as a failure of its own: the one real error
// is.
type DependencyError struct {
	Type, Name string
	Dependency string
	Err        error
}

func (e *DependencyError) Error() string {
	return fmt.Sprintf("%s %q was not registered because %s failed", e.Type, e.Name, e.Dependency)
}

// Unwrap returns the dependency's error.
func (e *DependencyError) Unwrap() error { return e.Err }

func dependencyError(of *Resource, dep string, err error) error {
	if of == nil {
		return err
	}
	return &DependencyError{Type: of.typ, Name: of.name, Dependency: dep, Err: err}
}

// ArgumentError fails a registration, at once, for a bad argument: an
// empty name or one containing "::", a malformed type, a nil handle in an
// option, a zero Output in the inputs, inputs that are not a struct or
// Props.
type ArgumentError struct {
	Type, Name string
	// Argument names what is wrong: "the name", "the type", "option
	// DependsOn", `input "content"`, `input "tags.env"`.
	Argument string
	// Reason says what is wrong with it, as a clause that follows the
	// argument: "is empty".
	Reason string
}

func (e *ArgumentError) Error() string {
	return fmt.Sprintf("%s %q: %s %s", e.Type, e.Name, e.Argument, e.Reason)
}

// MissingOutputError reports the use of an output the provider did not
// return: a mistyped key, or an output the resource does not have.
type MissingOutputError struct {
	Type, Name string
	Key        string
	// Keys are the outputs the resource has.
	Keys []string
}

func (e *MissingOutputError) Error() string {
	have := "none"
	if len(e.Keys) > 0 {
		have = strings.Join(e.Keys, ", ")
	}
	return fmt.Sprintf("%s %q has no output %q (its outputs: %s)", e.Type, e.Name, e.Key, have)
}
