package deploy

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/groundwork-iac/groundwork/providers"
)

// The provider calls of steps and of the generator's calls are bounded
// (Bounds): none holds the operation past its grace period, and none
// that changes the world is forgotten.
//
//   - A call that changes the world (Create, Update, Delete) is not
//     cancelled with the operation: the operation signals its providers
//     to cancel, and the call has the grace period to answer; its answer,
//     whatever it is, is journaled. Its context ends at the resource's
//     custom timeout for the operation, or when the grace period after
//     the operation's cancellation ends.
//   - Any other call (Check, Diff, Read) runs under the operation's
//     context, with nothing to record if it is cut short.
//   - Whatever a provider does with its context, the operation waits for
//     its answer no longer than the grace period after the call's context
//     ended (the operation was cancelled, or the custom timeout passed).
//   - A call that changes the world and did not answer in time (the
//     operation stopped waiting, or the provider answered only with the
//     end of the context it was given), or whose provider was lost before
//     it answered (a plugin that died), fails with an *UnansweredError.
//     Its step journals no end (step.go): its begin stays recorded as a
//     pending operation naming the resource, which the next operation
//     warns of and a refresh resolves.
//
// A call the operation stopped waiting for goes on in its goroutine: Go
// cannot stop it. It belongs to the provider that holds it. Bounds only
// counts it (Stray), so that the operation closes the providers without
// waiting for it forever; once the provider returns, the goroutine hands
// the answer to a buffered channel that nobody reads any more and ends.
// Nothing it does reaches the state, the events or the result.

// DefaultGracePeriod is the grace period of Bounds made with a negative
// one.
const DefaultGracePeriod = time.Minute

// Bounds is a providers.ProviderSource that resolves providers through
// another and makes every call of theirs within one operation's bounds
// (see the top of this file). Give it as Config.Source, and to Apply for
// the steps an operation applies itself.
type Bounds struct {
	src   providers.ProviderSource
	grace time.Duration
	// running counts the calls running on goroutines of their own.
	running runningCalls
	// cache holds the bounded form of each provider
	// (providers.Provider → *boundedProvider).
	cache sync.Map
}

// NewBounds returns the bounds of one operation's calls to the providers
// src resolves, with the grace period grace (DefaultGracePeriod if
// negative).
func NewBounds(src providers.ProviderSource, grace time.Duration) *Bounds {
	if grace < 0 {
		grace = DefaultGracePeriod
	}
	return &Bounds{src: src, grace: grace}
}

// Provider resolves ref as the source does, bounded. Each provider's
// bounded form is made once.
func (b *Bounds) Provider(ref, typ string) (providers.Provider, error) {
	p, err := b.src.Provider(ref, typ)
	if err != nil {
		return nil, err
	}
	if bp, ok := b.cache.Load(p); ok {
		return bp.(*boundedProvider), nil
	}
	bp, _ := b.cache.LoadOrStore(p, &boundedProvider{p: p, b: b})
	return bp.(*boundedProvider), nil
}

var _ providers.ProviderSource = (*Bounds)(nil)

// Stray waits until no call the operation stopped waiting for still
// runs, or for at most d, or until ctx ends; it reports how many still
// run. An operation calls it before it closes its providers, so as not
// to wait forever for a call that never returns.
func (b *Bounds) Stray(ctx context.Context, d time.Duration) int {
	return b.running.wait(ctx, d)
}

// boundedProvider makes p's calls within b.
type boundedProvider struct {
	p providers.Provider
	b *Bounds
}

func (b *boundedProvider) Check(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
	return bounded(ctx, b.b, callBounds{method: "check"}, b.p, req, providers.Provider.Check)
}

func (b *boundedProvider) Diff(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
	return bounded(ctx, b.b, callBounds{method: "diff"}, b.p, req, providers.Provider.Diff)
}

func (b *boundedProvider) Read(ctx context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
	return bounded(ctx, b.b, callBounds{method: "read"}, b.p, req, providers.Provider.Read)
}

func (b *boundedProvider) Create(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
	return bounded(ctx, b.b, callBounds{method: "create", timeout: req.Timeout, changes: true}, b.p, req, providers.Provider.Create)
}

func (b *boundedProvider) Update(ctx context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
	return bounded(ctx, b.b, callBounds{method: "update", timeout: req.Timeout, changes: true}, b.p, req, providers.Provider.Update)
}

func (b *boundedProvider) Delete(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
	return bounded(ctx, b.b, callBounds{method: "delete", timeout: req.Timeout, changes: true}, b.p, req, providers.Provider.Delete)
}

// callBounds describes one provider call: its method, its custom timeout
// (0 for none) and whether it changes the world.
type callBounds struct {
	method  string
	timeout time.Duration
	changes bool
}

// answer is what a provider call returned.
type answer[R any] struct {
	resp R
	err  error
}

// bounded makes one provider call, call(p, ctx, req), within the
// operation's bounds (see the top of this file), and returns its answer,
// or an error once the operation stops waiting.
//
// A bound costs only where it can fire. When nothing can end the call's
// context (the operation's context cannot be cancelled and the resource
// sets no custom timeout), the operation waits for the answer whatever
// happens, and the call runs on the caller's goroutine. Otherwise it runs
// on a goroutine of its own, which the operation can stop waiting for.
// (call is a method expression and req a value, so that only this second
// path allocates what the goroutine holds.)
func bounded[Q, R any](ctx context.Context, b *Bounds, cb callBounds, p providers.Provider, req Q, call func(providers.Provider, context.Context, Q) (R, error)) (R, error) {
	var zero R
	if err := ctx.Err(); err != nil {
		// Cancelled before the provider was called: nothing happened.
		return zero, context.Cause(ctx)
	}
	if ctx.Done() == nil && cb.timeout <= 0 {
		resp, err := call(p, ctx, req)
		return resp, unanswered(ctx, cb, b.grace, err)
	}
	return boundedApart(ctx, b, cb, func(ctx context.Context) (R, error) { return call(p, ctx, req) })
}

// boundedApart runs call on a goroutine of its own and waits for its
// answer within the operation's bounds.
func boundedApart[R any](ctx context.Context, b *Bounds, cb callBounds, call func(context.Context) (R, error)) (R, error) {
	var zero R
	// limit is the call's context as the operation sees it; pctx the one
	// the provider gets.
	limit, pctx := ctx, ctx
	var stopLimit, stopP context.CancelFunc = func() {}, func() {}
	if cb.timeout > 0 {
		limit, stopLimit = context.WithTimeoutCause(ctx, cb.timeout, &TimeoutError{Method: cb.method, Timeout: cb.timeout})
		pctx = limit
	}
	defer stopLimit()
	var abandon context.CancelCauseFunc = func(error) {}
	if cb.changes {
		pctx = context.WithoutCancel(ctx)
		if cb.timeout > 0 {
			pctx, stopP = context.WithTimeoutCause(pctx, cb.timeout, &TimeoutError{Method: cb.method, Timeout: cb.timeout})
		}
		pctx, abandon = context.WithCancelCause(pctx)
	}
	defer stopP()
	defer abandon(nil)

	answered := make(chan answer[R], 1)
	b.running.add()
	go func() {
		defer b.running.done()
		resp, err := call(pctx)
		answered <- answer[R]{resp, err}
	}()
	select {
	case a := <-answered:
		return a.resp, unanswered(pctx, cb, b.grace, a.err)
	case <-limit.Done():
	}
	grace := time.NewTimer(b.grace)
	defer grace.Stop()
	select {
	case a := <-answered:
		return a.resp, unanswered(pctx, cb, b.grace, a.err)
	case <-grace.C:
	}
	cause := context.Cause(limit)
	abandon(cause)
	select {
	case a := <-answered:
		// It answered as the grace period ended.
		return a.resp, unanswered(pctx, cb, b.grace, a.err)
	default:
	}
	if !cb.changes {
		return zero, fmt.Errorf("the provider did not answer the %s within the grace period of %v after it was cancelled: %w", cb.method, b.grace, cause)
	}
	return zero, &UnansweredError{Method: cb.method, Cause: cause, Grace: b.grace, Abandoned: true}
}

// unanswered returns err, or an *UnansweredError when a call that changes
// the world failed only because the context it was given ended, or
// because its provider was lost mid-call (a plugin process that died):
// its outcome is unknown. A partial failure is an answer.
func unanswered(pctx context.Context, cb callBounds, grace time.Duration, err error) error {
	if err == nil || !cb.changes {
		return err
	}
	var ie *providers.InitError
	if errors.As(err, &ie) {
		return err
	}
	if isOutcomeUnknown(err) {
		return &UnansweredError{Method: cb.method, Cause: err, Grace: grace}
	}
	if pctx.Err() == nil {
		return err
	}
	cause := context.Cause(pctx)
	if !errors.Is(err, pctx.Err()) && !errors.Is(err, cause) {
		return err
	}
	return &UnansweredError{Method: cb.method, Cause: cause, Grace: grace, Err: err}
}

// outcomeUnknown is implemented by the errors of a call cut short before
// its provider could answer: an adapter that lost its provider
// (plugin.CallLostError), a command stopped by a signal from outside
// (command.ExitError). Whether the call's change happened is unknown.
type outcomeUnknown interface {
	error
	OutcomeUnknown() bool
}

// TimeoutError is the cause of a provider call that outlived its
// resource's custom timeout (the CustomTimeouts resource option).
type TimeoutError struct {
	// Method is the call: "create", "update" or "delete".
	Method  string
	Timeout time.Duration
}

// Error says which timeout passed.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("the %s did not finish within the resource's custom timeout of %v", e.Method, e.Timeout)
}

// Unwrap returns context.DeadlineExceeded.
func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }

// UnansweredError fails a step whose provider call changes the world and
// did not answer in time: the operation was cancelled and the grace
// period passed, the resource's custom timeout did, or the provider was
// lost before it answered (a plugin that died). Whether the change
// happened is unknown, so the step stays recorded as a pending operation
// that names its resource: the next operation warns of it, and a refresh
// resolves it.
type UnansweredError struct {
	// Method is the call: "create", "update" or "delete".
	Method string
	// Cause is the operation's cancellation cause, a *TimeoutError, or
	// the error of a provider lost mid-call (a plugin that died).
	Cause error
	// Grace is the grace period the call was given once its context ended.
	Grace time.Duration
	// Abandoned is set when the provider had not returned when the
	// operation stopped waiting for it.
	Abandoned bool
	// Err is what the provider answered when it answered only with the
	// end of its context (nil when Abandoned).
	Err error
}

// Error says what was not answered, why, and what to do.
func (e *UnansweredError) Error() string {
	var msg string
	var te *TimeoutError
	switch {
	case errors.As(e.Cause, &te) && e.Abandoned:
		msg = fmt.Sprintf("%v, nor within the grace period of %v after it", te, e.Grace)
	case errors.As(e.Cause, &te):
		msg = te.Error()
	case isOutcomeUnknown(e.Cause):
		msg = fmt.Sprintf("the %s was cut short before its provider could answer (%v)", e.Method, e.Cause)
	default:
		msg = fmt.Sprintf("the operation was cancelled (%v) and the provider did not answer the %s within the grace period of %v", e.Cause, e.Method, e.Grace)
	}
	return msg + "; whether the " + e.Method + " happened is unknown: it is recorded as a pending operation, which a refresh resolves"
}

// Unwrap returns the cause.
func (e *UnansweredError) Unwrap() error { return e.Cause }

func isOutcomeUnknown(err error) bool {
	var lost outcomeUnknown
	return errors.As(err, &lost) && lost.OutcomeUnknown()
}

// runningCalls counts the provider calls running on goroutines of their
// own, so that the operation can tell, when it closes the providers,
// whether a call it stopped waiting for still runs.
type runningCalls struct {
	mu   sync.Mutex
	n    int
	none chan struct{} // closed when n drops to 0; nil until waited for
}

func (c *runningCalls) add() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

func (c *runningCalls) done() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n--; c.n == 0 && c.none != nil {
		close(c.none)
		c.none = nil
	}
}

// wait waits until no call is running, or for at most d; it reports how
// many still run.
func (c *runningCalls) wait(ctx context.Context, d time.Duration) int {
	c.mu.Lock()
	if c.n == 0 {
		c.mu.Unlock()
		return 0
	}
	if c.none == nil {
		c.none = make(chan struct{})
	}
	none := c.none
	c.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-none:
	case <-t.C:
	case <-ctx.Done():
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
