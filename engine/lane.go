package engine

import (
	"context"
	"sync"

	"github.com/groundwork-iac/groundwork/stepgen"
)

// quickLane runs the quick chains the engine loop issues (an unchanged
// resource, a component, every custom resource of a preview: steps that
// call no provider and journal no begin), in the order they were issued,
// on one goroutine of its own. The loop hands them over instead of running
// their hooks and answering their registrations itself: it is the one
// serial stage of an unchanged rerun or a preview, and the lane's work
// then overlaps its own on the other core.
//
// The goroutine starts when a chain arrives and ends when the lane is
// empty; drain waits for it. A chain handed to the lane has been admitted
// by the deployment's resourceOrder and holds its resources until it ends.
type quickLane struct {
	d *deployment

	mu      sync.Mutex
	queue   []queuedChain
	running bool
	wg      sync.WaitGroup
}

// push queues ch to run after the chains queued before it.
func (l *quickLane) push(ctx context.Context, ch stepgen.Chain) {
	l.mu.Lock()
	l.queue = append(l.queue, queuedChain{ctx, ch})
	start := !l.running
	l.running = true
	if start {
		l.wg.Add(1)
	}
	l.mu.Unlock()
	if start {
		go l.run()
	}
}

func (l *quickLane) run() {
	defer l.wg.Done()
	var batch []queuedChain
	for {
		l.mu.Lock()
		if len(l.queue) == 0 {
			l.running = false
			l.mu.Unlock()
			return
		}
		batch, l.queue = l.queue, batch[:0]
		l.mu.Unlock()
		for i, q := range batch {
			l.d.execute(q.ctx, q.chain, true, true)
			batch[i] = queuedChain{}
		}
	}
}

// drain waits until every chain pushed so far has run. No chain may be
// pushed meanwhile.
func (l *quickLane) drain() { l.wg.Wait() }
