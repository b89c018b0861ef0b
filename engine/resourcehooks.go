package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/groundwork-iac/groundwork/resource"
)

// Hooks makes hooks known to the operation by name, so that resources
// whose state records them can run them: Destroy needs it for the delete
// hooks of the resources it deletes.
func Hooks(hooks ...*Hook) Option {
	return func(o *options) { o.hooks = append(o.hooks, hooks...) }
}

// hookRegistry holds the hooks an operation knows, by name.
type hookRegistry struct {
	mu     sync.Mutex
	byName map[string]*Hook
	// after holds the after hooks of the components created or updated in
	// this operation, by URN, until their outputs are registered.
	after map[resource.URN]pendingAfter
	// changed, when set, is closed by the next registration, for those
	// waiting for a hook (see await).
	changed chan struct{}
}

// hookWait is how long a step whose resource binds a hook the operation
// does not know yet waits for a program to register it. The SDKs register
// hooks asynchronously: Pulumi's Go SDK sends a hook's registration from a
// goroutine of its own, which only the registrations of resources that
// bind the hook wait for, so the registration of a hook bound only by a
// resource the program no longer declares may reach the engine after the
// program has said it is done.
const hookWait = 10 * time.Second

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
	if r.changed != nil {
		close(r.changed)
		r.changed = nil
	}
	return nil
}

// await returns the hooks named, waiting up to wait for those not known yet
// to be registered (calling waiting once, if it does wait), and then
// failing as lookup does.
func (r *hookRegistry) await(ctx context.Context, urn resource.URN, names []string, wait time.Duration, waiting func(missing string)) ([]*Hook, error) {
	var deadline <-chan time.Time
	for {
		out, err := r.lookup(urn, names)
		var unknown *UnknownHookError
		if err == nil || wait <= 0 || !errors.As(err, &unknown) {
			return out, err
		}
		r.mu.Lock()
		if _, ok := r.byName[unknown.Name]; ok {
			// Registered since the lookup: look again.
			r.mu.Unlock()
			continue
		}
		if r.changed == nil {
			r.changed = make(chan struct{})
		}
		changed := r.changed
		r.mu.Unlock()
		if deadline == nil {
			if waiting != nil {
				waiting(unknown.Name)
			}
			t := time.NewTimer(wait)
			defer t.Stop()
			deadline = t.C
		}
		select {
		case <-changed:
		case <-deadline:
			return nil, err
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the hook %q of %s to be registered: %w", unknown.Name, urn, context.Cause(ctx))
		}
	}
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
