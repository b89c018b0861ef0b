package executor

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-multierror"

	"github.com/groundwork-iac/groundwork/resource"
)

// Options configure an Executor. The zero value is usable: unbounded
// parallelism, stop at the first failure, no hooks.
type Options struct {
	// Parallelism bounds how many chains run at once. Each running chain
	// holds one slot from its first step to its last. Zero (or a negative
	// value) means no bound: every chain starts as soon as it is submitted.
	Parallelism int

	// ContinueOnError keeps the deployment going after a step fails: only
	// the rest of the failed chain, and chains whose Needs name a failed
	// or skipped resource, are skipped. Without it, the first failure
	// stops every step that has not started yet (see Executor).
	ContinueOnError bool

	// Hooks observes every step. Nil means NoopHooks.
	Hooks Hooks
}

// Executor runs chains of steps: the steps of one chain serially, different
// chains concurrently, at most Options.Parallelism chains at a time.
//
// The zero Executor is ready to use and behaves like New(Options{}). The
// Executor owns every goroutine it starts, and all of them have finished
// their work when Wait returns. Its methods are safe for concurrent use.
//
// When a step fails and ContinueOnError is off, the deployment is
// cancelled: steps already running finish normally (their context is not
// cancelled) and report through StepDone, and every step that has not
// started — the rest of a running chain, a queued chain, a chain submitted
// later — is reported through StepSkipped instead. Skips are not failures:
// Wait returns only the real ones.
//
// When the context a chain was submitted with is cancelled, its running
// step sees the cancellation, and its remaining steps are skipped with
// context.Cause as the reason; Wait's error then wraps that cause.
type Executor struct {
	hooks           Hooks // nil: no hooks
	limit           int   // 0: unbounded
	continueOnError bool

	workers sync.WaitGroup // one count per goroutine started by Execute

	// Hot-path flags, read without the lock.
	aborted atomic.Bool // a step failed and ContinueOnError is off
	anyBad  atomic.Bool // bad is not empty

	mu         sync.Mutex
	closed     bool                   // Wait has been called
	running    int                    // worker goroutines
	pending    int                    // chains submitted and not yet finished
	queue      []job                  // chains waiting for a slot; queue[head:] is live
	head       int                    // index of the first live job in queue
	idle       chan struct{}          // closed when pending drops to 0; nil if no one waits
	abortCause error                  // the failure that cancelled the deployment; set before aborted
	bad        map[resource.URN]error // failed or skipped URNs → root cause, for Needs
	failures   []error                // *StepError, in the order they were recorded
	canceled   error                  // the first context cause that kept a step from running
}

// job is a chain waiting for a free slot, with the context it was submitted
// with.
type job struct {
	ctx   context.Context
	chain Chain
}

// New returns an Executor configured by opts, ready to accept chains.
func New(opts Options) *Executor {
	e := &Executor{
		hooks:           opts.Hooks,
		limit:           max(opts.Parallelism, 0),
		continueOnError: opts.ContinueOnError,
	}
	return e
}

// Execute submits a chain and returns at once; it never waits for a step.
// The chain starts when a slot is free, its steps getting ctx. ctx must not
// be nil.
//
// After Wait has been called, Execute returns ErrClosed and does nothing
// else: the chain's steps are neither run nor reported through Hooks.
// Otherwise it returns nil, and every step of the chain will be reported
// through Hooks, as started and done or as skipped.
func (e *Executor) Execute(ctx context.Context, c Chain) error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return ErrClosed
	}
	if len(c.Steps) == 0 {
		e.mu.Unlock()
		return nil
	}
	e.pending++
	if c.Quick {
		e.mu.Unlock()
		e.runChain(ctx, c)
		e.finished()
		return nil
	}
	if e.limit > 0 && e.running >= e.limit {
		e.enqueue(job{ctx, c})
		e.mu.Unlock()
		return nil
	}
	e.running++
	e.workers.Add(1)
	e.mu.Unlock()
	go e.work(ctx, c)
	return nil
}

// enqueue appends j to the queue, reusing the consumed front of the queue
// before growing it. e.mu must be held.
func (e *Executor) enqueue(j job) {
	if e.head > 0 && len(e.queue) == cap(e.queue) {
		n := copy(e.queue, e.queue[e.head:])
		clear(e.queue[n:])
		e.queue = e.queue[:n]
		e.head = 0
	}
	e.queue = append(e.queue, j)
}

// work runs chains until none is waiting: first the one it was started
// with, then queued ones. It holds one parallelism slot throughout.
func (e *Executor) work(ctx context.Context, c Chain) {
	defer e.workers.Done()
	growStack(0)
	for {
		e.runChain(ctx, c)

		e.mu.Lock()
		e.finishedLocked()
		if e.head == len(e.queue) {
			e.running--
			e.mu.Unlock()
			return
		}
		next := e.queue[e.head]
		e.queue[e.head] = job{} // drop references held by the queue
		e.head++
		if e.head == len(e.queue) {
			e.queue, e.head = e.queue[:0], 0
		}
		e.mu.Unlock()
		ctx, c = next.ctx, next.chain
	}
}

// stackReserve is how much stack growStack claims: enough that a step's
// hooks (the journal's encoder, the allocator under it, a deferred
// recover) fit without the stack growing again.
const stackReserve = 2 << 10

// growStack makes a new worker goroutine's stack grow from its initial
// 2 KiB while the goroutine is only two frames deep. Go grows a stack by
// copying it and adjusting every frame's pointers, so the copy costs in
// proportion to the frames on it: growing here costs little, while
// growing where the step's hooks first need the room (seven or more
// frames down, inside the allocator) cost 8–11 % of W1's CPU
// (BENCHMARKS.md). The frame's size is what matters; the value returned
// only keeps the compiler from dropping the array.
//
//go:noinline
func growStack(i int) byte {
	var pad [stackReserve]byte
	pad[i%len(pad)] = byte(i)
	return pad[(i+1)%len(pad)]
}

// finished counts a chain as done.
func (e *Executor) finished() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.finishedLocked()
}

func (e *Executor) finishedLocked() {
	e.pending--
	if e.pending == 0 && e.idle != nil {
		close(e.idle)
		e.idle = nil
	}
}

// WaitIdle waits until every chain submitted so far, and any submitted
// while it waits, has finished — all its hooks have returned — or until ctx
// is done, in which case it returns context.Cause(ctx). Otherwise it
// returns nil; it does not report failures (Wait does) and does not close
// the executor.
//
// The engine uses WaitIdle to run delete antichains one after another:
// submit one antichain's chains, wait idle, submit the next.
func (e *Executor) WaitIdle(ctx context.Context) error {
	e.mu.Lock()
	if e.pending == 0 {
		e.mu.Unlock()
		return nil
	}
	if e.idle == nil {
		e.idle = make(chan struct{})
	}
	idle := e.idle
	e.mu.Unlock()

	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Wait stops accepting chains (Execute returns ErrClosed from now on),
// waits for every submitted chain to finish and every goroutine the
// executor started to finish its work, and returns the failures.
//
// The result is nil when no step failed and no cancellation kept a step
// from running. Otherwise it is a *multierror.Error whose Errors are the
// failures as *StepError values, in the order they happened, followed — if
// a cancelled context kept steps from running — by an error wrapping that
// context's cause. Skipped steps are not failures and are not listed.
//
// Wait may be called any number of times, from any goroutine; every call
// waits the same way and returns an equivalent error.
func (e *Executor) Wait() error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()

	e.workers.Wait()

	e.mu.Lock()
	defer e.mu.Unlock()
	n := len(e.failures)
	if e.canceled != nil {
		n++
	}
	if n == 0 {
		return nil
	}
	errs := make([]error, 0, n)
	errs = append(errs, e.failures...)
	if e.canceled != nil {
		errs = append(errs, &canceledError{e.canceled})
	}
	return &multierror.Error{Errors: errs, ErrorFormat: formatErrors}
}
