package deploy

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/groundwork-iac/groundwork/stepgen"
)

// maxCalls bounds the provider calls (Check, Diff, analyzer runs) in flight
// at once, unless the operation's Parallelism bounds them lower. Calls for
// different resources overlap, so a slow provider never serializes a
// deployment (1,000 resources whose Check and Diff take 5 ms each are
// checked in a few tens of milliseconds, not 10 s); the bound
// keeps a program that registers thousands of resources at once from
// starting thousands of goroutines, each with a stack of its own, faster
// than a busy machine can run them.
const maxCalls = 256

// callPool makes the provider calls the generator asks for, at most limit
// at once, in the order they were added: the calls are independent of one
// another, so the pool is a queue and a bounded number of workers, and a
// call waiting in the queue holds no goroutine.
//
// A worker making a call counts as blocked (a provider call waits for the
// world); the others are active. Adding a call starts a worker only when
// no worker is idle to take it and fewer than procs (GOMAXPROCS) are
// active; a worker about to make a call starts another only when calls
// wait and no other worker is idle or active to take them, as the dag
// walker does for visits that declare they block (dag.Blocking). So
// quick calls are made by a few workers in turn, and calls that block (a
// slow provider) each get a worker of their own, up to limit. A worker
// stops when the queue is empty.
//
// A call is made by make, which answers it. A call whose context is
// cancelled before a worker takes it is not made: refuse answers it with
// the context's cause. A panic in make is recovered and refuses the call
// with a *callPanicError. The pool owns its workers: wait returns once
// every call added has been answered and every worker has ended.
type callPool struct {
	limit  int
	procs  int // workers active at once beyond which adding a call starts none; 0: 1
	make   func(context.Context, *stepgen.Call)
	refuse func(*stepgen.Call, error)

	mu      sync.Mutex
	queue   []queuedCall // queue[head:] wait for a worker
	head    int
	running int // workers
	idle    int // workers not making a call: each takes one from the queue or stops
	blocked int // workers making a call
	closed  bool
	wg      sync.WaitGroup
}

// queuedCall is a call waiting for a worker, with the context it is made
// under.
type queuedCall struct {
	ctx  context.Context
	call *stepgen.Call
}

// newCallPool returns the pool of the operation's provider calls: each
// answer, or the error that stopped its call, goes to the loop. The
// operation's Parallelism, if set, bounds its calls as it bounds its
// steps.
func (h *Host) newCallPool() *callPool {
	limit := maxCalls
	if h.cfg.Parallelism > 0 {
		limit = min(limit, h.cfg.Parallelism)
	}
	return &callPool{
		limit: limit,
		procs: runtime.GOMAXPROCS(0),
		make:  func(ctx context.Context, c *stepgen.Call) { h.inbox.post((*callAnswered)(h.ask(ctx, c))) },
		refuse: func(c *stepgen.Call, err error) {
			h.inbox.post(&callAnswered{Call: c, Err: err})
		},
	}
}

// call has the pool make c under ctx.
func (h *Host) call(ctx context.Context, c *stepgen.Call) {
	if !h.calls.add(ctx, c) {
		h.inbox.post(&callAnswered{Call: c, Err: errCallsClosed})
	}
}

// errCallsClosed answers a call asked for once the operation has stopped
// taking calls.
var errCallsClosed = errors.New("the operation has finished; no more provider calls are made")

// add queues c for a worker, starting one if none is idle to take it;
// false, and c is not queued, once wait has been called.
func (p *callPool) add(ctx context.Context, c *stepgen.Call) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	if p.head > 0 && len(p.queue) == cap(p.queue) {
		// The calls taken left room at the front: use it rather than
		// grow the array.
		n := copy(p.queue, p.queue[p.head:])
		clear(p.queue[n:])
		p.queue, p.head = p.queue[:n], 0
	}
	p.queue = append(p.queue, queuedCall{ctx: ctx, call: c})
	if p.idle == 0 && p.running-p.blocked < max(p.procs, 1) && p.running < p.limit {
		p.startLocked()
	}
	return true
}

// startLocked starts a worker, idle until it takes a call.
func (p *callPool) startLocked() {
	p.running++
	p.idle++
	p.wg.Add(1)
	go p.work()
}

// wait refuses further calls and returns once every call added has been
// answered and every worker has ended.
func (p *callPool) wait() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.wg.Wait()
}

// work makes the calls waiting in the queue, first added first, until it
// is empty. Before each call, if calls still wait and no other worker is
// idle or active to take them, it starts another worker (within the
// bound).
func (p *callPool) work() {
	defer p.wg.Done()
	p.mu.Lock()
	for p.head < len(p.queue) {
		q := p.queue[p.head]
		p.queue[p.head] = queuedCall{}
		// An emptied queue starts again at the front of its array, so
		// that it grows only to the most calls waiting at once.
		if p.head++; p.head == len(p.queue) {
			p.queue, p.head = p.queue[:0], 0
		}
		p.idle--
		p.blocked++
		if p.idle == 0 && p.running == p.blocked && p.head < len(p.queue) && p.running < p.limit {
			p.startLocked()
		}
		p.mu.Unlock()
		p.run(q)
		p.mu.Lock()
		p.blocked--
		p.idle++
	}
	p.running--
	p.idle--
	p.mu.Unlock()
}

// run makes one call, or refuses it if its context is cancelled or make
// panics.
func (p *callPool) run(q queuedCall) {
	if q.ctx.Err() != nil {
		p.refuse(q.call, context.Cause(q.ctx))
		return
	}
	defer func() {
		if v := recover(); v != nil {
			p.refuse(q.call, &callPanicError{Value: v, Stack: debug.Stack()})
		}
	}()
	p.make(q.ctx, q.call)
}

// callPanicError is a panic recovered while the engine made a provider
// call: a bug in the engine, which fails the call's registration (whose
// error names the resource).
type callPanicError struct {
	Value any    // what was passed to panic
	Stack []byte // the panicking goroutine's stack
}

// Error says a call panicked, and with what.
func (e *callPanicError) Error() string {
	return fmt.Sprintf("panic while making a provider call (a bug in the engine): %v", e.Value)
}

// Unwrap returns the panic value if it is an error.
func (e *callPanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// ask makes the provider call c asks for: an analyzer run is the
// operation's own (Config.Analyze), a Check or Diff the provider's (Ask,
// through Config.Source).
func (h *Host) ask(ctx context.Context, c *stepgen.Call) *stepgen.Answer {
	if c.Kind == stepgen.CallAnalyze {
		var err error
		if h.cfg.Analyze != nil {
			err = h.cfg.Analyze(ctx, c.New)
		}
		return &stepgen.Answer{Call: c, Err: err}
	}
	h.learnCall(c)
	a := Ask(ctx, c, h.cfg.Source)
	h.maskAnswer(&a)
	return &a
}
