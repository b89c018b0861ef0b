package program

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// HookRunner holds the hooks an operation knows, by name, and runs them
// around the steps of the resources that bind them (see Hook). The
// operation makes one with NewHookRunner; the program's Context registers
// hooks in it (Host.RegisterHook), and the deployment loop applies every
// step of a hooked resource through Apply.
type HookRunner struct {
	set HookSettings

	mu     sync.Mutex
	byName map[string]*Hook
	// after holds the after hooks of the components created or updated in
	// this operation, by URN, until their outputs are registered.
	after map[resource.URN]pendingAfter
	// changed, when set, is closed by the next registration, for those
	// waiting for a hook (see await).
	changed chan struct{}
}

// HookSettings is what a HookRunner needs of its operation.
type HookSettings struct {
	// Preview runs only the hooks that run on preview.
	Preview bool
	// Refresh runs no delete hooks around the discard of a resource the
	// program no longer reads (a refresh runs no program).
	Refresh bool
	// NoWait fails a step whose hooks are not known at once, rather than
	// waiting for a program to register them (a destroy runs no program).
	NoWait bool
	// Apply applies a step: the provider's part, between the hooks.
	Apply func(context.Context, *stepgen.Step) stepgen.Outcome
	// Log reports a diagnostic: a failed after hook (a warning), a wait
	// for a hook (a debug message).
	Log func(severity Severity, urn resource.URN, message string)
}

// NewHookRunner returns a HookRunner that knows no hook yet.
func NewHookRunner(s HookSettings) *HookRunner { return &HookRunner{set: s} }

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

// Register makes h known by its name. Two different hooks may not share a
// name.
func (r *HookRunner) Register(h *Hook) error {
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
func (r *HookRunner) await(ctx context.Context, urn resource.URN, names []string, wait time.Duration, waiting func(missing string)) ([]*Hook, error) {
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
func (r *HookRunner) lookup(urn resource.URN, names []string) ([]*Hook, error) {
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
