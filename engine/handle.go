package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// Resource is the handle of a registration. It is returned at once; its
// URN, ID and outputs become available when the resource's step has
// completed. Pass it (or its Outputs) to other registrations to make them
// depend on it.
type Resource struct {
	ctx    *Context
	typ    string
	name   string
	custom bool
	readID resource.ID
	done   chan struct{}

	// mu guards then: callbacks of registrations waiting for this one,
	// called (and dropped) when it finishes.
	mu   sync.Mutex
	then []func()

	// Set before done is closed; read only after.
	urn     resource.URN
	id      resource.ID
	outputs resource.PropertyMap
	stable  bool
	err     error
}

// DependencyError fails a registration because a resource it depends on
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

// reportedError marks an error the deployment has already counted, so the
// program API does not report it twice.
type reportedError struct{ err error }

func (e *reportedError) Error() string { return e.err.Error() }
func (e *reportedError) Unwrap() error { return e.err }

// finish records the outcome of r's registration and releases everything
// waiting for it. It is called exactly once.
func (r *Resource) finish(res providers.RegisterResult, err error) {
	if err == nil {
		r.urn, r.id, r.outputs, r.stable = res.URN, res.ID, res.Outputs, res.Stable
	}
	r.err = err
	r.mu.Lock()
	close(r.done)
	then := r.then
	r.then = nil
	r.mu.Unlock()
	for _, fn := range then {
		fn()
	}
	r.ctx.fail(err)
	r.ctx.wg.Done()
}

// onFinish calls fn once r's registration has finished: at once if it has.
func (r *Resource) onFinish(fn func()) {
	r.mu.Lock()
	if finished(r) {
		r.mu.Unlock()
		fn()
		return
	}
	r.then = append(r.then, fn)
	r.mu.Unlock()
}

// Done is closed when the registration has finished (successfully or not).
func (r *Resource) Done() <-chan struct{} { return r.done }

// Wait blocks until the registration has finished and returns its error.
func (r *Resource) Wait() error { return r.await(r.ctx.ctx) }

func (r *Resource) await(ctx context.Context) error {
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// awaitDep waits for r as a dependency of another registration.
func (r *Resource) awaitDep(ctx context.Context, of *Resource) error {
	if err := r.await(ctx); err != nil {
		return &DependencyError{Type: of.typ, Name: of.name, Dependency: fmt.Sprintf("%s %q", r.typ, r.name), Err: err}
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

// Stable reports, after the registration, whether its step left the
// resource unchanged.
func (r *Resource) Stable() bool {
	<-r.done
	return r.stable
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
		return "", fmt.Errorf("%s %q is not a provider; register providers with Context.Provider", r.typ, r.name)
	}
	id := r.id
	if id == "" {
		id = providers.UnknownID
	}
	return providers.NewReference(r.urn, id).String(), nil
}

// Output is a future value: one output of a resource, known once the
// resource's step has completed. Use it as an input of other registrations
// or as a stack output.
type Output struct {
	res   *Resource
	key   resource.PropertyKey
	id    bool
	apply []func(resource.PropertyValue) (resource.PropertyValue, error)
}

// Output returns the future value of one of the resource's outputs.
func (r *Resource) Output(key string) Output { return Output{res: r, key: resource.PropertyKey(key)} }

// ID returns the future value of the resource's ID.
func (r *Resource) ID() Output { return Output{res: r, id: true} }

// Apply returns an Output whose value is fn applied to o's value, once it
// is known. fn sees plain values: a secret is unwrapped before and the
// result wrapped again. fn is not called while the value is unknown (in a
// preview); the result is then unknown too.
func (o Output) Apply(fn func(resource.PropertyValue) (resource.PropertyValue, error)) Output {
	o.apply = append(append([]func(resource.PropertyValue) (resource.PropertyValue, error){}, o.apply...), fn)
	return o
}

// Value waits for the resource and returns the output's value. In a
// preview the value may be unknown.
func (o Output) Value() (resource.PropertyValue, error) {
	if err := o.res.Wait(); err != nil {
		return resource.PropertyValue{}, err
	}
	return o.resolved()
}

// resolved computes the value of an output whose resource has finished.
func (o Output) resolved() (resource.PropertyValue, error) {
	r := o.res
	var v resource.PropertyValue
	switch {
	case o.id && r.id == "":
		v = resource.NewUnknown()
	case o.id:
		v = resource.NewString(string(r.id))
	default:
		var ok bool
		if v, ok = r.outputs[o.key]; !ok {
			if r.ctx.Preview() && !r.stable {
				v = resource.NewUnknown()
			} else {
				v = resource.NewNull()
			}
		}
	}
	for _, fn := range o.apply {
		if v.ContainsUnknowns() {
			return resource.NewUnknown(), nil
		}
		secret := v.IsSecret()
		if secret {
			v = v.SecretElement()
		}
		out, err := fn(v)
		if err != nil {
			return resource.PropertyValue{}, fmt.Errorf("applying a function to an output of %s: %w", r.urn, err)
		}
		if secret {
			out = resource.NewSecret(out)
		}
		v = out
	}
	return v, nil
}
