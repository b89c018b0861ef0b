package engine

import (
	"context"
	"sync"

	"github.com/groundwork-iac/groundwork/stepgen"
)

// maxCallers bounds the provider calls (Check, Diff, analyzer runs) in
// flight at once. Calls for different resources overlap, so a slow
// provider never serializes a deployment (1,000 resources whose Check and
// Diff take 5 ms each are checked in a few tens of milliseconds, not 10 s);
// but a goroutine per call, started faster than a busy machine runs them,
// left thousands waiting to run, each with a fresh stack (W1 same: 2,900 of
// them, 14 MB of stacks, a tenth of the loop's time in the runtime's stack
// allocator).
const maxCallers = 256

// callers makes the provider calls the generator asks for, each on a
// goroutine of its own but no more than maxCallers at once: a call that
// finds them all busy waits in a queue, and the goroutine that finishes a
// call takes the next one. Every goroutine started is waited for by wait.
type callers struct {
	d *deployment

	mu      sync.Mutex
	queue   []queuedCall // queue[head:] wait for a caller
	head    int
	running int
	wg      sync.WaitGroup
}

// queuedCall is a call waiting for a caller, with the context of the
// operation that asked for it.
type queuedCall struct {
	ctx context.Context
	c   *stepgen.Call
}

// start has c made, by a new goroutine or, when maxCallers are busy, by
// the first of them to finish.
func (cs *callers) start(ctx context.Context, c *stepgen.Call) {
	cs.mu.Lock()
	if cs.running >= maxCallers {
		cs.queue = append(cs.queue, queuedCall{ctx, c})
		cs.mu.Unlock()
		return
	}
	cs.running++
	cs.wg.Add(1)
	cs.mu.Unlock()
	go cs.serve(queuedCall{ctx, c})
}

// serve makes q's call, then the queued ones, until none is queued.
func (cs *callers) serve(q queuedCall) {
	defer cs.wg.Done()
	for {
		cs.d.call(q.ctx, q.c)
		cs.mu.Lock()
		if cs.head == len(cs.queue) {
			cs.queue, cs.head = cs.queue[:0], 0
			cs.running--
			cs.mu.Unlock()
			return
		}
		q = cs.queue[cs.head]
		cs.queue[cs.head] = queuedCall{}
		cs.head++
		cs.mu.Unlock()
	}
}

// wait returns once every call started has been made and answered.
func (cs *callers) wait() { cs.wg.Wait() }
