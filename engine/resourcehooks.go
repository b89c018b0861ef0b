package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/groundwork-iac/groundwork/resource"
)

// Hook is a resource hook: a function the engine runs around the steps of
// the resources it is bound to (with the ResourceHooks option), as Pulumi's
// resource hooks run:
//
//   - before and after a create (a replacement's create included), an
//     update, and a delete (a replaced copy's, and the forgetting of a
//     resource retained on delete, included);
//   - a before hook runs after the step's start is journaled and before its
//     provider is called; if it fails, the step fails and the provider is
//     not called;
//   - an after hook runs once the step has succeeded; if it fails, the
//     failure is reported as a warning and the step stands. The after hooks
//     of a component's create or update run when its outputs are
//     registered (Context.RegisterOutputs), since that is when it is done;
//   - in a preview, only hooks with OnPreview run (and must change
//     nothing).
//
// A hook is known by its name, which the state records with each resource
// it is bound to: a resource deleted after the program stopped declaring
// it runs the hooks recorded with it, which the operation must know by
// then — bound to another resource, registered with Context.RegisterHook,
// or passed with the Hooks option (the only way for Destroy, which runs no
// program). A step whose hooks the operation does not know fails before
// its provider is called. Two different hooks may not share a name in one
// operation.
type Hook struct {
	Name string
	// Run is called with what the step knows of the resource; see
	// resource.HookArgs. It runs on the step's goroutine, possibly at the
	// same time as hooks of other resources. A panic is a failure.
	Run func(ctx context.Context, args resource.HookArgs) error
	// OnPreview runs the hook in previews too.
	OnPreview bool
}

// ResourceHooks binds hooks of one kind to the resource: they run, in
// order, around the resource's steps of that kind (see Hook).
func ResourceHooks(kind resource.HookKind, hooks ...*Hook) ResourceOption {
	return func(o *resourceOptions) {
		if o.hooks == nil {
			o.hooks = map[resource.HookKind][]*Hook{}
		}
		o.hooks[kind] = append(o.hooks[kind], hooks...)
	}
}

// Hooks makes hooks known to the operation by name, so that resources
// whose state records them can run them: Destroy needs it for the delete
// hooks of the resources it deletes.
func Hooks(hooks ...*Hook) Option {
	return func(o *options) { o.hooks = append(o.hooks, hooks...) }
}

// RegisterHook makes a hook known to the operation by name (see Hook). A
// runner of an out-of-process program registers the program's hooks with
// it.
func (c *Context) RegisterHook(h *Hook) error { return c.d.hooks.register(h) }

// hookRegistry holds the hooks an operation knows, by name.
type hookRegistry struct {
	mu     sync.Mutex
	byName map[string]*Hook
	// after holds the after hooks of the components created or updated in
	// this operation, by URN, until their outputs are registered.
	after map[resource.URN]pendingAfter
}

// pendingAfter is what a component's after hooks need of its create or
// update.
type pendingAfter struct {
	kind resource.HookKind
	old  *resource.State
}

func (r *hookRegistry) register(h *Hook) error {
	switch {
	case h == nil:
		return fmt.Errorf("a nil hook cannot be registered")
	case h.Name == "":
		return fmt.Errorf("a hook needs a name")
	case h.Run == nil:
		return fmt.Errorf("hook %q has no function to run", h.Name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.byName[h.Name]; ok && old != h {
		return fmt.Errorf("another hook is already registered under the name %q; give each hook a name of its own", h.Name)
	}
	if r.byName == nil {
		r.byName = map[string]*Hook{}
	}
	r.byName[h.Name] = h
	return nil
}

// bind registers the hooks a resource option binds and returns their
// names, for the resource's goal.
func (r *hookRegistry) bind(hooks map[resource.HookKind][]*Hook) (resource.Hooks, error) {
	if len(hooks) == 0 {
		return nil, nil
	}
	out := resource.Hooks{}
	for kind, hs := range hooks {
		for _, h := range hs {
			if err := r.register(h); err != nil {
				return nil, err
			}
			out[kind] = append(out[kind], h.Name)
		}
	}
	return out, nil
}

// lookup returns the hooks named, or an error naming the first unknown.
func (r *hookRegistry) lookup(urn resource.URN, names []string) ([]*Hook, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Hook, len(names))
	for i, n := range names {
		h, ok := r.byName[n]
		if !ok {
			return nil, &UnknownHookError{URN: urn, Name: n}
		}
		out[i] = h
	}
	return out, nil
}

// UnknownHookError fails a step whose resource has a hook bound that the
// operation does not know.
type UnknownHookError struct {
	URN  resource.URN
	Name string
}

func (e *UnknownHookError) Error() string {
	return fmt.Sprintf("%s has the hook %q bound, which this operation does not know: register it (Context.RegisterHook, or the Hooks option for a destroy) before the resource's steps run", e.URN, e.Name)
}

// HookError is the failure of a before hook, which failed its step. Its
// text does not name the resource: the step's failure does, once.
type HookError struct {
	URN  resource.URN
	Kind resource.HookKind
	Name string
	Err  error
}

func (e *HookError) Error() string {
	return fmt.Sprintf("the %s hook %q failed: %v", e.Kind, e.Name, e.Err)
}

// Unwrap returns the hook's error.
func (e *HookError) Unwrap() error { return e.Err }
