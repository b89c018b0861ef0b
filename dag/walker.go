package dag

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
)

// ErrClosed is returned by Add once Wait has been called: the walker accepts
// no more vertices.
var ErrClosed = errors.New("vertex added after Wait")

// Vertex is one unit of work and the vertices it needs.
type Vertex[T any] struct {
	// ID names the vertex. It must be unique among the vertices added to
	// one Walker. Zero names no vertex: one with ID zero may need others,
	// but none can need it. IDs numbered from 1 in the order the vertices
	// are added are the quickest to find; any other IDs work too.
	ID uint64
	// Needs are the vertices that must have been visited successfully
	// before this one is visited: it waits until each has ended, and is
	// skipped if one failed or was skipped. Each must have been added
	// before this vertex.
	Needs []uint64
	// After are vertices that must have ended, however, before this one
	// is visited: it waits for them, but their failure does not skip it.
	// Each must have been added before this vertex.
	After []uint64
	// Value is the vertex's own data. The walker keeps it in storage of
	// its own, allocated once when the vertex is added, and gives Visit,
	// Ended and Name a pointer to it: a visit can leave there what it
	// found, for Ended, and a host may hand the pointer on. The walker
	// never reuses that storage.
	Value T
}

// Options configure a Walker. Visit is required; everything else may be
// left zero.
type Options[T any] struct {
	// Parallelism bounds how many vertices are visited at once. Zero (or
	// a negative value) means no bound.
	Parallelism int
	// ContinueOnError keeps the walk going after a visit fails: only the
	// vertices that need the failed one, directly or through others, are
	// skipped. Without it, the first failure skips every vertex not yet
	// started, including those added later.
	ContinueOnError bool
	// Visit does a vertex's work, given its Value. Its error fails the
	// vertex; it should name the vertex, since Wait returns it as it is. A
	// panic is recovered and becomes the vertex's failure, as a
	// *PanicError. A visit that must wait for something that calls back
	// (a durable write) returns Park, and is called again, with the same
	// Value, once it is resumed (see Park).
	Visit func(ctx context.Context, v *T) error
	// Ended is told how each vertex ended: nil after a successful visit,
	// the visit's error, or a *SkippedError for a vertex that was never
	// visited. It is called exactly once per vertex, on a goroutine of the
	// walker's, after the walker has recorded the outcome (so a vertex
	// added from Ended, or in response to it, that needs a failed one is
	// skipped) and before any vertex that needs this one starts. A panic
	// is recovered and recorded as a failure of the vertex. Nil means
	// nothing is told.
	Ended func(v *T, err error)
	// Name names a vertex in the walker's own errors (*SkippedError,
	// *PanicError). Nil names it by its ID.
	Name func(v *T) string
	// DeclaredBlocking says that the visits declare when they block
	// (Blocking). The walker then starts a worker only while fewer than
	// GOMAXPROCS are active (in a visit or between two, and not blocked
	// in what their visit declared), so that visits that do not block are
	// walked by a few workers in turn however many vertices are ready at
	// once, while each visit that blocks soon has a worker of its own. A
	// visit that blocks without declaring it holds one of the active
	// places until it returns. Visit is then given a context made from
	// the one given to Add, with its values, deadline and cancellation,
	// through which Blocking finds the walker. Without the option, any
	// visit may block: the walker starts a worker whenever vertices are
	// ready and no worker is idle to take them.
	DeclaredBlocking bool
	// SizeHint is how many vertices with an ID the walk is expected to
	// have: the walker sizes its index of them for that many at once,
	// rather than growing it (and copying it) as they are added. Zero
	// starts it small.
	SizeHint int
}

// Walker visits the vertices of a graph that grows while it is walked, in
// the manner of Terraform's dag walker: a vertex is visited once every
// vertex it needs has been visited successfully, different vertices
// concurrently, at most Options.Parallelism at a time.
//
// The Walker knows nothing of what its vertices are. It owns every
// goroutine it starts, and all of them have finished when Wait returns. Its
// methods are safe for concurrent use; Add may be called from Ended.
type Walker[T any] struct {
	visit           func(ctx context.Context, v *T) error
	ended           func(v *T, err error)
	name            func(v *T) string
	limit           int // 0: unbounded
	continueOnError bool
	declared        bool // Options.DeclaredBlocking
	procs           int  // with declared, how many workers may be active at once
	unblockFn       func()

	workers sync.WaitGroup // one count per goroutine started

	mu     sync.Mutex
	closed bool
	// nodes are the vertices by ID. One that ended is represented by ok
	// when it succeeded, else by a node that holds only how it failed: the
	// walker keeps nothing else of it.
	nodes index[T]
	ok    *node[T]
	queue []*node[T] // ready vertices waiting for a worker (only at the limit); queue[head:] is live
	head  int
	// resumed are parked vertices resumed and waiting for a worker: they
	// go before the queue, so that what has started ends first.
	resumed     []*node[T] // resumed[resumedHead:] is live
	resumedHead int
	running     int // workers
	// blocked counts the workers blocked in what a visit declared (with
	// declared; see Blocking); it changes without mu.
	blocked atomic.Int32
	// waiting counts the vertices in queue and resumed, changed with mu
	// held, so that Blocking need not take mu when none waits.
	waiting atomic.Int32
	// vctx is the context the last vertex added is visited under (with
	// declared; see visitContextLocked).
	vctx *visitContext
	peak int // the most workers there have been at once
	// idle counts the workers not in a visit: each will take a ready
	// vertex from the queue before it visits anything or stops.
	idle     int
	pending  int           // vertices added and not ended
	drained  chan struct{} // closed when pending drops to 0 while Wait waits
	abort    error         // the failure that stopped the walk (without ContinueOnError)
	failures []error       // in the order they were recorded
	canceled error         // the first context cause that kept a vertex from being visited
}

// node is a vertex in the walker's graph: its value, and what the walker
// needs to know of it until it has ended. What only some vertices have —
// vertices that only come after it, a failure — is kept apart, in rare,
// so that the common vertex is small.
type node[T any] struct {
	value T
	ctx   context.Context
	id    uint64
	// waits counts the needs (and vertices it comes after) that have not
	// ended; dependents are the nodes that need this one.
	waits      int32
	ended, bad bool
	// started is set once the vertex is first visited: a parked vertex
	// resumed is visited again, never skipped.
	started    bool
	dependents []*node[T]
	// resumeFn hands the vertex back to a worker once a visit that
	// parked may go on (see park); nil until it first parks.
	resumeFn func()
	rare     *rareNode[T]
}

// rareNode is what few vertices have.
type rareNode[T any] struct {
	// followers are the nodes that come after this one without needing
	// it.
	followers []*node[T]
	// blockedBy names the first need found to have failed or been
	// skipped, and blockCause is its root cause.
	blockedBy  string
	blockCause error
	// cause is the root cause of the vertex's own failure or skip: its
	// own failure, or what it was skipped for; label names it, for the
	// vertices it keeps from being visited.
	cause error
	label string
}

// more returns n's rare part, making it on first use.
func (n *node[T]) more() *rareNode[T] {
	if n.rare == nil {
		n.rare = &rareNode[T]{}
	}
	return n.rare
}

// blocked reports whether a need of n failed or was skipped.
func (n *node[T]) blocked() bool { return n.rare != nil && n.rare.blockCause != nil }

// block records that d, a need of n, failed or was skipped, unless another
// already did.
func (n *node[T]) block(d *node[T]) {
	if !n.blocked() {
		m := n.more()
		m.blockedBy, m.blockCause = d.rare.label, d.rare.cause
	}
}

// New returns a Walker configured by opts, ready to accept vertices.
func New[T any](opts Options[T]) *Walker[T] {
	w := &Walker[T]{
		visit:           opts.Visit,
		ended:           opts.Ended,
		name:            opts.Name,
		limit:           max(opts.Parallelism, 0),
		continueOnError: opts.ContinueOnError,
		declared:        opts.DeclaredBlocking,
		procs:           runtime.GOMAXPROCS(0),
		nodes:           newIndex[T](opts.SizeHint),
		ok:              &node[T]{ended: true},
	}
	// Made once, so that Blocking allocates nothing.
	w.unblockFn = func() { w.blocked.Add(-1) }
	return w
}

// Add adds a vertex to the graph and returns at once: it never visits the
// vertex nor calls Ended itself. The vertex is visited under ctx once its
// needs have ended, or skipped. Every vertex Add accepts ends exactly
// once, reported through Ended.
//
// Add returns ErrClosed after Wait has been called, and an error for an
// ID already added or a need never added; the vertex is then not added.
func (w *Walker[T]) Add(ctx context.Context, v Vertex[T]) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	if v.ID != 0 && w.nodes.get(v.ID) != nil {
		return fmt.Errorf("vertex %d was added twice", v.ID)
	}
	for _, ids := range [2][]uint64{v.Needs, v.After} {
		for _, id := range ids {
			if w.nodes.get(id) == nil {
				return fmt.Errorf("vertex %s waits for vertex %d, which was never added", w.nameOfVertex(v.ID, v.Value), id)
			}
		}
	}
	n := &node[T]{id: v.ID, value: v.Value, ctx: w.visitContextLocked(ctx)}
	for _, id := range v.Needs {
		d := w.nodes.get(id)
		switch {
		case !d.ended:
			n.waits++
			d.dependents = append(d.dependents, n)
		case d.bad:
			n.block(d)
		}
	}
	for _, id := range v.After {
		if d := w.nodes.get(id); !d.ended {
			n.waits++
			m := d.more()
			m.followers = append(m.followers, n)
		}
	}
	if v.ID != 0 {
		w.nodes.put(v.ID, n)
	}
	w.pending++
	if n.waits == 0 {
		w.readyLocked(n)
	}
	return nil
}

// readyLocked hands a vertex whose needs have all ended to a worker: to a
// new one when spareLocked says so, else through the queue, to an idle
// worker or the next one free.
func (w *Walker[T]) readyLocked(n *node[T]) {
	// Counted as waiting before spareLocked reads blocked (see block).
	w.waiting.Add(1)
	if w.spareLocked() {
		w.waiting.Add(-1)
		w.startLocked(n)
		return
	}
	w.queue = append(w.queue, n)
}

// startLocked starts a worker with n, idle until it visits n.
func (w *Walker[T]) startLocked(n *node[T]) {
	w.running++
	w.peak = max(w.peak, w.running)
	w.idle++
	w.workers.Add(1)
	go w.work(n)
}

// work visits n and then, until there is nothing left for it, a vertex
// that n's end made ready or one waiting in the queue.
func (w *Walker[T]) work(n *node[T]) {
	defer w.workers.Done()
	for n != nil {
		skip := w.visiting(n)
		if p := w.process(n, skip); p != nil {
			n = w.park(n, p)
			continue
		}
		n = w.finish(n)
	}
}

// visiting marks the calling worker busy with a visit of n, which may
// block, and returns why n must not be visited, or nil. If it was the last
// idle worker and ready vertices wait, it first starts a worker for them
// when spareLocked says so.
func (w *Walker[T]) visiting(n *node[T]) *SkippedError {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.idle--
	if w.waitingLocked() && w.spareLocked() {
		w.startLocked(w.dequeueLocked())
	}
	return w.skipReasonLocked(n)
}

// spareLocked reports whether a vertex waiting for a worker should have a
// new one: when no worker is idle to take it and the walker is below its
// bound. By default any worker busy with a visit may be blocked in it. With
// Options.DeclaredBlocking what the others do is known instead: a new
// worker is started only while fewer than GOMAXPROCS are active (not
// blocked in what a visit declared).
func (w *Walker[T]) spareLocked() bool {
	if w.idle > 0 || !w.belowLimitLocked() {
		return false
	}
	return !w.declared || w.activeLocked() < w.procs
}

// belowLimitLocked reports whether another worker may start under the
// bound.
func (w *Walker[T]) belowLimitLocked() bool { return w.limit == 0 || w.running < w.limit }

// waitingLocked reports whether vertices wait for a worker.
func (w *Walker[T]) waitingLocked() bool {
	return w.resumedHead < len(w.resumed) || w.head < len(w.queue)
}

// dequeueLocked removes and returns the vertex that waited for a worker
// first, a resumed one before any other; there must be one.
func (w *Walker[T]) dequeueLocked() *node[T] {
	w.waiting.Add(-1)
	if w.resumedHead < len(w.resumed) {
		n := w.resumed[w.resumedHead]
		w.resumed[w.resumedHead] = nil
		if w.resumedHead++; w.resumedHead == len(w.resumed) {
			w.resumed, w.resumedHead = w.resumed[:0], 0
		}
		return n
	}
	n := w.queue[w.head]
	w.queue[w.head] = nil
	if w.head++; w.head == len(w.queue) {
		w.queue, w.head = w.queue[:0], 0
	}
	return n
}

// process visits n, or skips it for skip, and reports how it ended; or,
// when the visit parked, returns what it waits for and reports nothing.
func (w *Walker[T]) process(n *node[T], skip *SkippedError) parked {
	if skip != nil {
		w.mu.Lock()
		n.bad = true
		m := n.more()
		m.cause, m.label = skip.Cause, skip.Vertex
		w.mu.Unlock()
		w.report(n, skip)
		return nil
	}
	err := w.call(n)
	if wait, ok := err.(parked); ok {
		return wait
	}
	if err != nil {
		w.mu.Lock()
		w.failLocked(n, err)
		w.mu.Unlock()
	}
	w.report(n, err)
	return nil
}

// skipReasonLocked returns why n must not be visited, or nil. A vertex
// visited already (parked, then resumed) is never skipped: its visit has
// begun.
func (w *Walker[T]) skipReasonLocked(n *node[T]) *SkippedError {
	if n.started {
		return nil
	}
	n.started = true
	switch {
	case n.blocked():
		return &SkippedError{Vertex: w.nameOf(n), Dependency: n.rare.blockedBy, Cause: n.rare.blockCause}
	case n.ctx.Err() != nil:
		cause := context.Cause(n.ctx)
		if w.canceled == nil {
			w.canceled = cause
		}
		return &SkippedError{Vertex: w.nameOf(n), Cause: cause}
	case w.abort != nil:
		return &SkippedError{Vertex: w.nameOf(n), Cause: w.abort}
	}
	return nil
}

// call visits n, turning a panic into its failure.
func (w *Walker[T]) call(n *node[T]) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Vertex: w.nameOf(n), Func: "Visit", Value: v, Stack: debug.Stack()}
		}
	}()
	return w.visit(n.ctx, &n.value)
}

// report calls Ended for n; a panic in it fails n (once).
func (w *Walker[T]) report(n *node[T], err error) {
	if w.ended == nil {
		return
	}
	defer func() {
		if v := recover(); v != nil {
			w.mu.Lock()
			defer w.mu.Unlock()
			perr := &PanicError{Vertex: w.nameOf(n), Func: "Ended", Value: v, Stack: debug.Stack()}
			if n.bad {
				w.failures = append(w.failures, perr)
				return
			}
			w.failLocked(n, perr)
		}
	}()
	w.ended(&n.value, err)
}

// failLocked records n's failure: in the list Wait returns, as the cause
// of what needs n, and — without ContinueOnError — as the cause that stops
// the walk.
func (w *Walker[T]) failLocked(n *node[T], err error) {
	n.bad = true
	m := n.more()
	m.cause, m.label = err, w.nameOf(n)
	w.failures = append(w.failures, err)
	if n.ctx.Err() != nil && w.canceled == nil {
		w.canceled = context.Cause(n.ctx)
	}
	if !w.continueOnError && w.abort == nil {
		w.abort = err
	}
}

// finish marks n ended, releases what waited for it, and returns the next
// vertex for this worker: the first that n's end made ready, else the
// first in the queue, else nil (the worker then stops).
//
// The walker keeps nothing of an ended vertex but whether it failed, and
// how, for the vertices added later that need it: its value belongs to
// the host from here on.
func (w *Walker[T]) finish(n *node[T]) *node[T] {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.idle++ // until it visits next, or stops
	n.ended = true
	n.ctx = nil
	var next *node[T]
	release := func(d *node[T]) {
		if d.waits--; d.waits > 0 {
			return
		}
		if next == nil {
			next = d
			return
		}
		w.readyLocked(d)
	}
	for _, d := range n.dependents {
		if n.bad {
			d.block(n)
		}
		release(d)
	}
	n.dependents = nil
	if n.rare != nil {
		for _, d := range n.rare.followers {
			release(d)
		}
		n.rare.followers = nil
	}
	if n.id != 0 {
		if n.bad {
			w.nodes.put(n.id, &node[T]{id: n.id, ended: true, bad: true, rare: n.rare})
		} else {
			w.nodes.put(n.id, w.ok)
		}
	}
	w.pending--
	if w.pending == 0 && w.drained != nil {
		close(w.drained)
		w.drained = nil
	}
	if next == nil && w.waitingLocked() {
		next = w.dequeueLocked()
	}
	if next == nil {
		w.running--
		w.idle--
	}
	return next
}

// Wait stops accepting vertices (Add returns ErrClosed from then on), waits
// until every vertex added has ended and every goroutine the walker started
// has finished, and returns the failures.
//
// The result is nil when no visit failed and no cancellation kept a vertex
// from being visited. Otherwise it is a *Failures: the visits' errors in
// the order they happened, followed — if a cancelled context kept vertices
// from being visited — by an error wrapping that context's cause. Skipped
// vertices are not failures and are not listed.
//
// Wait may be called any number of times, from any goroutine.
func (w *Walker[T]) Wait() error {
	w.mu.Lock()
	w.closed = true
	var drained chan struct{}
	if w.pending > 0 {
		if w.drained == nil {
			w.drained = make(chan struct{})
		}
		drained = w.drained
	}
	w.mu.Unlock()
	if drained != nil {
		<-drained
	}
	w.workers.Wait()

	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.failures) == 0 && w.canceled == nil {
		return nil
	}
	errs := make([]error, 0, len(w.failures)+1)
	errs = append(errs, w.failures...)
	if w.canceled != nil {
		errs = append(errs, &CanceledError{Cause: w.canceled})
	}
	return &Failures{Errors: errs}
}

// nameOfVertex names a vertex that was not added, from a copy of its
// value.
func (w *Walker[T]) nameOfVertex(id uint64, v T) string {
	if w.name != nil {
		return w.name(&v)
	}
	return strconv.FormatUint(id, 10)
}

// nameOf names a vertex for the walker's errors.
func (w *Walker[T]) nameOf(n *node[T]) string {
	if w.name != nil {
		return w.name(&n.value)
	}
	return strconv.FormatUint(n.id, 10)
}
