package dag

// A visit that waits for something that calls back parks instead of
// blocking its worker (see Park); the walker resumes it, and Finish runs
// such a visit outside any walker.

// parked is what a visit that parked waits for: the wait it was given.
type parked func(resume func())

// Error says what a parked visit is: Park's value is not meant to be seen
// outside the walker.
func (parked) Error() string { return "dag: a parked visit (see Park)" }

// Park is what a Visit returns to wait for something that calls back (a
// durable write, say) without holding a goroutine. Once the visit has
// returned, the worker that made it calls wait with resume, and the
// vertex is set aside: it holds no worker and does not count toward
// Options.Parallelism. wait must arrange for resume to be called exactly
// once, from any goroutine, possibly before wait returns; resume hands the
// vertex back to a worker, which calls Visit again with the same value
// (resumed vertices go before those never visited). The value is where a
// visit keeps how far it got. A resumed vertex is visited even once its
// context is cancelled or the walk stopped: its visit had begun. Ended is
// called once the visit returns anything but Park.
func Park(wait func(resume func())) error { return parked(wait) }

// Finish runs a visit outside any walker, on the calling goroutine: each
// time it parks, Finish waits until it is resumed and calls it again. It
// returns what the visit finally returns.
func Finish(visit func() error) error {
	for {
		err := visit()
		wait, ok := err.(parked)
		if !ok {
			return err
		}
		resumed := make(chan struct{})
		wait(func() { close(resumed) })
		<-resumed
	}
}

// park sets n aside, its visit waiting for p without a worker: it has p's
// wait arrange n's resumption, then returns the next vertex for this
// worker, as finish does: the first waiting, else nil. While wait runs
// (handing an entry to a journal, say) the worker counts as idle, since
// it takes a waiting vertex next: a vertex resumed meanwhile waits for it
// rather than for a new worker. wait should therefore return soon: what
// takes long (the write itself) belongs to whoever calls resume.
func (w *Walker[T]) park(n *node[T], wait parked) *node[T] {
	w.mu.Lock()
	w.idle++ // it will take a waiting vertex before it visits or stops
	if n.resumeFn == nil {
		// Made once per vertex, however often it parks.
		n.resumeFn = func() { w.resume(n) }
	}
	resume := n.resumeFn
	w.mu.Unlock()
	wait(resume)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.waitingLocked() {
		return w.dequeueLocked()
	}
	w.running--
	w.idle--
	return nil
}

// resume hands a parked vertex back to a worker, to be visited again.
func (w *Walker[T]) resume(n *node[T]) {
	w.mu.Lock()
	defer w.mu.Unlock()
	// Counted as waiting before spareLocked reads blocked (see block).
	w.waiting.Add(1)
	if w.spareLocked() {
		w.waiting.Add(-1)
		w.startLocked(n)
		return
	}
	w.resumed = append(w.resumed, n)
}
