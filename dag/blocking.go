package dag

import "context"

// A walker whose visits declare when they block (Options.DeclaredBlocking)
// keeps about GOMAXPROCS workers for what its visits do on a CPU, and one
// more for each visit blocked in what it declared: it can tell a visit
// that waits for the world from one held up by the scheduler or the
// garbage collector, which a walker cannot see from outside.

// blockingKey is the context key under which a visit's context holds its
// walker.
type blockingKey struct{}

// blocker is a walker, as Blocking sees it.
type blocker interface{ block() (unblock func()) }

// visitContext is the context a walker with Options.DeclaredBlocking
// visits its vertices under: the one given to Add, which also leads
// Blocking to the walker.
type visitContext struct {
	context.Context
	w blocker
}

// Value returns the walker for Blocking's key, else what the context given
// to Add holds.
func (c *visitContext) Value(key any) any {
	if key == (blockingKey{}) {
		return c.w
	}
	return c.Context.Value(key)
}

// Blocking declares that the visit whose context ctx is (or is made from)
// is about to block — a provider call, say — until it calls the function
// returned, exactly once. A walker with Options.DeclaredBlocking counts
// the visit as blocked until then: when ready vertices wait and no other
// worker can take them, it starts one. Anywhere else (a walker without
// the option, a context no walker gave) it does nothing.
func Blocking(ctx context.Context) (unblock func()) {
	if b, ok := ctx.Value(blockingKey{}).(blocker); ok {
		return b.block()
	}
	return noUnblock
}

func noUnblock() {}

// block counts the calling worker as blocked, and starts a worker for the
// vertices waiting if no other worker is active to take them.
//
// It takes mu only when vertices wait. If none does, a vertex that comes
// to wait later finds the worker counted blocked: whoever queues it
// counts it in waiting first, then, holding mu, reads blocked and starts
// a worker when too few are active (spareLocked).
func (w *Walker[T]) block() func() {
	w.blocked.Add(1)
	if w.waiting.Load() == 0 {
		return w.unblockFn
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.waitingLocked() && w.idle == 0 && w.activeLocked() == 0 && w.belowLimitLocked() {
		w.startLocked(w.dequeueLocked())
	}
	return w.unblockFn
}

// activeLocked returns how many workers are not blocked in what a visit
// declared. Blocked changes without mu: a count read with mu held may be
// a moment old (see block).
func (w *Walker[T]) activeLocked() int { return w.running - int(w.blocked.Load()) }

// visitContextLocked returns the context a vertex added under ctx is
// visited under. Vertices added under one context share one.
func (w *Walker[T]) visitContextLocked(ctx context.Context) context.Context {
	if !w.declared {
		return ctx
	}
	if w.vctx == nil || !sameContext(w.vctx.Context, ctx) {
		w.vctx = &visitContext{Context: ctx, w: w}
	}
	return w.vctx
}

// sameContext reports whether a and b are one context; false for contexts
// that cannot be compared.
func sameContext(a, b context.Context) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}
