package providers

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/groundwork-iac/groundwork/resource"
)

// instState is where a registry instance is in the provider lifecycle.
type instState int

const (
	// instLazy: loaded from state; started and configured on first call.
	instLazy instState = iota
	// instConfigured: started and configured; calls go to the provider.
	instConfigured
	// instUnconfigured: started, not configured, because its configuration
	// had unknowns in a preview; answers what it can without the provider.
	instUnconfigured
	// instFailed: starting or configuring it from state failed; every call
	// returns that failure.
	instFailed
)

// instance is a provider instance the registry owns, as Get hands it out:
// it enforces the lifecycle (configured before use, nothing after close),
// counts calls in flight so that closing can wait for them, and recovers
// panics (its provider is wrapped with Recover).
type instance struct {
	reg          *Registry
	ref          Reference
	pkg, version string
	param        *parameterization // recorded parameterization, for lazy starts
	config       resource.PropertyMap

	configuring sync.Mutex // serializes the lazy start

	// calls counts the calls in flight, plus closedCalls once the
	// instance is closed: every call adds itself on entry and takes itself
	// away on release, without the lock.
	calls atomic.Int64
	// started is set, once, when the instance is started and either
	// configured or unconfigured for good: calls are then admitted without
	// the lock. Every provider call and step passes through enter, from
	// goroutines on every core, so a lock here was contended.
	started atomic.Pointer[startedInner]

	mu       sync.Mutex
	state    instState
	cfgErr   error
	inner    full          // nil until started
	closed   bool          // no new calls
	released bool          // inner has been handed to Close
	drained  chan struct{} // closed when the calls in flight reach 0 after close
}

// closedCalls marks instance.calls once the instance is closed.
const closedCalls = 1 << 62

// startedInner is a started instance's provider and its state
// (instConfigured or instUnconfigured).
type startedInner struct {
	p  full
	st instState
}

var _ full = (*instance)(nil)

func newInstance(r *Registry, ref Reference, pkg, version string, config resource.PropertyMap) *instance {
	return &instance{reg: r, ref: ref, pkg: pkg, version: version, config: config}
}

// serves reports whether the instance is, or will lazily be, configured
// with version and config.
func (i *instance) serves(version string, config resource.PropertyMap) bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	usable := !i.closed && (i.state == instLazy || i.state == instConfigured)
	return usable && i.version == version && i.config.DeepEquals(config)
}

// name identifies the instance in errors and panics.
func instanceName(ref Reference, info FactoryInfo) string {
	return ref.String() + " (" + info.String() + ")"
}

// enter admits one call: it refuses calls after close, starts a lazy
// instance, and counts the call in flight until release is called. A call
// to a started instance, nearly every call, is admitted without the lock;
// enterSlow takes it for the rest.
func (i *instance) enter(ctx context.Context, method string, urn resource.URN) (full, instState, error) {
	if s := i.started.Load(); s != nil && ctx.Err() == nil {
		if i.calls.Add(1)&closedCalls == 0 {
			return s.p, s.st, nil
		}
		i.release() // closed meanwhile
	}
	return i.enterSlow(ctx, method, urn)
}

// markStarted lets calls in without the lock from now on. Called with
// i.mu held, once i.inner and i.state say the instance is started.
func (i *instance) markStarted() {
	if i.inner != nil && (i.state == instConfigured || i.state == instUnconfigured) {
		i.started.Store(&startedInner{p: i.inner, st: i.state})
	}
}

// enterSlow is enter for a canceled call, a closed, lazy or failed
// instance.
func (i *instance) enterSlow(ctx context.Context, method string, urn resource.URN) (p full, st instState, err error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, fmt.Errorf("provider %s: %s %s: %w", i.ref, method, urn, err)
	}
	i.mu.Lock()
	if i.closed {
		i.mu.Unlock()
		return nil, 0, &LifecycleError{Provider: i.ref.String(), Method: method, URN: urn, Reason: ErrClosed}
	}
	i.calls.Add(1)
	st = i.state
	i.mu.Unlock()
	if st == instLazy {
		i.start(ctx)
	}
	i.mu.Lock()
	st, p, cfgErr := i.state, i.inner, i.cfgErr
	i.mu.Unlock()
	switch {
	case st == instLazy: // the start was cut short by ctx; a later call retries
		i.release()
		return nil, 0, fmt.Errorf("provider %s: %s %s: %w", i.ref, method, urn, cfgErr)
	case st == instFailed:
		i.release()
		return nil, 0, &LifecycleError{Provider: i.ref.String(), Method: method, URN: urn, Reason: ErrNotConfigured, Err: cfgErr}
	case p == nil: // closed while it was starting
		i.release()
		return nil, 0, &LifecycleError{Provider: i.ref.String(), Method: method, URN: urn, Reason: ErrClosed}
	}
	return p, st, nil
}

func (i *instance) release() {
	if i.calls.Add(-1) == closedCalls {
		i.signalDrained()
	}
}

// signalDrained tells a drainAndClose waiting for the calls in flight
// that there are none left.
func (i *instance) signalDrained() {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.drained != nil {
		close(i.drained)
		i.drained = nil
	}
}

// start starts and configures a lazy instance from its recorded inputs. A
// failure is permanent unless ctx ended (then a later call tries again).
func (i *instance) start(ctx context.Context) {
	i.configuring.Lock()
	defer i.configuring.Unlock()
	i.mu.Lock()
	st := i.state
	i.mu.Unlock()
	if st != instLazy {
		return
	}
	p, err := i.reg.start(ctx, i.ref, i.pkg, i.version, i.param)
	if err == nil {
		req := ConfigureRequest{URN: i.ref.URN, ID: i.ref.ID, Inputs: i.config, AcceptSecrets: true, AcceptResources: true}
		if _, cerr := Configure(ctx, p, req); cerr != nil {
			err = errors.Join(fmt.Errorf("configure from recorded state: %w", cerr), Close(ctx, p))
			p = nil
		}
	}
	i.mu.Lock()
	switch {
	case err != nil && ctx.Err() != nil:
		i.cfgErr = err // retried by the next call
	case err != nil:
		i.state, i.cfgErr = instFailed, err
	case i.released:
		// Closed while starting, and Close has already run: close p here.
		defer func() { _ = Close(context.WithoutCancel(ctx), p) }()
		i.state = instConfigured
	default:
		i.inner, i.state = p, instConfigured
		i.markStarted()
	}
	i.mu.Unlock()
}

// stop refuses new calls. It returns the started provider and whether this
// was the first stop (only the first one goes on to close it).
func (i *instance) stop() (full, bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closed {
		return nil, false
	}
	i.closed = true
	i.calls.Add(closedCalls)
	return i.inner, true
}

// drainAndClose waits for the calls in flight (until ctx ends), then
// closes the provider.
func (i *instance) drainAndClose(ctx context.Context) error {
	i.mu.Lock()
	var wait chan struct{}
	if i.calls.Load()&^closedCalls > 0 {
		if i.drained == nil {
			i.drained = make(chan struct{})
		}
		wait = i.drained
	}
	i.mu.Unlock()
	var errs []error
	if wait != nil {
		select {
		case <-wait:
		case <-ctx.Done():
			errs = append(errs, fmt.Errorf("close provider %s: calls were still in flight: %w", i.ref, ctx.Err()))
		}
	}
	i.mu.Lock()
	p := i.inner
	i.released = true
	i.mu.Unlock()
	if p != nil {
		if err := Close(ctx, p); err != nil {
			errs = append(errs, fmt.Errorf("close provider %s: %w", i.ref, err))
		}
	}
	return errors.Join(errs...)
}

// shutdown is the whole provider shutdown for one instance: refuse new
// calls, signal cancellation, wait for calls in flight, close.
func (i *instance) shutdown(ctx context.Context) error {
	p, first := i.stop()
	if !first {
		return nil
	}
	var errs []error
	if p != nil {
		if err := SignalCancellation(ctx, p); err != nil {
			errs = append(errs, fmt.Errorf("signal provider %s: %w", i.ref, err))
		}
	}
	return errors.Join(append(errs, i.drainAndClose(ctx))...)
}

func (i *instance) notConfigured(method string, urn resource.URN) *LifecycleError {
	return &LifecycleError{Provider: i.ref.String(), Method: method, URN: urn, Reason: ErrNotConfigured}
}

// guard runs one of the less frequent calls: call on a configured
// instance, or ifUnconfigured on one whose configuration had unknowns (nil
// means the call is refused).
func guard[Resp any](ctx context.Context, i *instance, method string, urn resource.URN,
	ifUnconfigured func(p full) (Resp, error), call func(p full) (Resp, error)) (Resp, error) {
	var zero Resp
	p, st, err := i.enter(ctx, method, urn)
	if err != nil {
		return zero, err
	}
	defer i.release()
	if st == instUnconfigured {
		if ifUnconfigured == nil {
			return zero, i.notConfigured(method, urn)
		}
		return ifUnconfigured(p)
	}
	return call(p)
}

// Unwrap returns the provider the instance runs (wrapped with Recover), or
// nil if it has not been started.
func (i *instance) Unwrap() Provider {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.inner == nil {
		return nil
	}
	return i.inner
}

// The calls below are admitted by enter and released when they return. An
// instance whose configuration had unknowns (a preview) answers what it can
// without its provider and refuses the rest. They are written out rather
// than through a shared helper taking a closure, which would allocate on
// every provider call.

func (i *instance) Check(ctx context.Context, req CheckRequest) (CheckResponse, error) {
	p, st, err := i.enter(ctx, "Check", req.URN)
	if err != nil {
		return CheckResponse{}, err
	}
	defer i.release()
	if st == instUnconfigured {
		return CheckResponse{Inputs: req.News}, nil
	}
	return p.Check(ctx, req)
}

func (i *instance) Diff(ctx context.Context, req DiffRequest) (DiffResponse, error) {
	p, st, err := i.enter(ctx, "Diff", req.URN)
	if err != nil {
		return DiffResponse{}, err
	}
	defer i.release()
	if st == instUnconfigured {
		return DiffResponse{Changes: resource.DiffUnknown}, nil
	}
	return p.Diff(ctx, req)
}

func (i *instance) Create(ctx context.Context, req CreateRequest) (CreateResponse, error) {
	p, st, err := i.enter(ctx, "Create", req.URN)
	if err != nil {
		return CreateResponse{}, err
	}
	defer i.release()
	if st == instUnconfigured {
		if !req.Preview {
			return CreateResponse{}, i.notConfigured("Create", req.URN)
		}
		return CreateResponse{Outputs: req.Inputs.Copy()}, nil
	}
	return p.Create(ctx, req)
}

func (i *instance) Read(ctx context.Context, req ReadRequest) (ReadResponse, error) {
	p, st, err := i.enter(ctx, "Read", req.URN)
	if err != nil {
		return ReadResponse{}, err
	}
	defer i.release()
	if st == instUnconfigured {
		return ReadResponse{ID: req.ID, Inputs: req.Inputs, Outputs: req.State}, nil
	}
	return p.Read(ctx, req)
}

func (i *instance) Update(ctx context.Context, req UpdateRequest) (UpdateResponse, error) {
	p, st, err := i.enter(ctx, "Update", req.URN)
	if err != nil {
		return UpdateResponse{}, err
	}
	defer i.release()
	if st == instUnconfigured {
		if !req.Preview {
			return UpdateResponse{}, i.notConfigured("Update", req.URN)
		}
		return UpdateResponse{Outputs: req.NewInputs.Copy()}, nil
	}
	return p.Update(ctx, req)
}

func (i *instance) Delete(ctx context.Context, req DeleteRequest) (DeleteResponse, error) {
	p, st, err := i.enter(ctx, "Delete", req.URN)
	if err != nil {
		return DeleteResponse{}, err
	}
	defer i.release()
	if st == instUnconfigured {
		return DeleteResponse{}, i.notConfigured("Delete", req.URN)
	}
	return p.Delete(ctx, req)
}
