package engine

import (
	"context"
	"sync"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// resourceOrder keeps the steps that act on one resource in the order the
// generator issued them: a chain is handed to the executor only once no
// step issued earlier on any of its resources is still to run or running.
// The executor's Needs cannot promise that (they are a check, not a wait),
// and a delete-before-replace breaks the usual reason it holds: its chain
// deletes dependents that the program may register again, and create
// afresh, while that chain still runs.
//
// Every step that holds its resource is released exactly once, by
// StepDone or StepSkipped; a waiting chain is handed over from there, before the
// executor counts the releasing chain as finished, so WaitIdle never
// returns while a chain waits.
type resourceOrder struct {
	mu      sync.Mutex
	busy    map[resource.URN]int
	waiting []queuedChain
}

type queuedChain struct {
	ctx   context.Context
	chain stepgen.Chain
}

// admit reports whether ch may run now, reserving its resources (held);
// otherwise it queues ch. A quick chain (run to its end on the caller's
// goroutine before the caller issues anything else) that may run reserves
// nothing: no chain issued after it can start before it has ended, and one
// issued before it would have kept it waiting.
func (o *resourceOrder) admit(ctx context.Context, ch stepgen.Chain, quick bool) (run, held bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.blocked(ch, o.waiting) {
		o.waiting = append(o.waiting, queuedChain{ctx, ch})
		return false, false
	}
	if quick {
		return true, false
	}
	o.hold(ch)
	return true, true
}

// release ends the reservation of one step on urn and returns the waiting
// chains that may now run, reserved, in the order they were issued.
func (o *resourceOrder) release(urn resource.URN) []queuedChain {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.busy[urn]--; o.busy[urn] <= 0 {
		delete(o.busy, urn)
	}
	var ready []queuedChain
	still := o.waiting[:0]
	for _, q := range o.waiting {
		if o.blocked(q.chain, still) {
			still = append(still, q)
			continue
		}
		o.hold(q.chain)
		ready = append(ready, q)
	}
	clear(o.waiting[len(still):])
	o.waiting = still
	return ready
}

// blocked reports whether a step of ch acts on a resource that is busy or
// that a chain issued earlier (in before) still waits for.
func (o *resourceOrder) blocked(ch stepgen.Chain, before []queuedChain) bool {
	for _, s := range ch.Steps {
		if o.busy[s.URN()] > 0 {
			return true
		}
		for _, q := range before {
			for _, t := range q.chain.Steps {
				if t.URN() == s.URN() {
					return true
				}
			}
		}
	}
	return false
}

func (o *resourceOrder) hold(ch stepgen.Chain) {
	if o.busy == nil {
		o.busy = map[resource.URN]int{}
	}
	for _, s := range ch.Steps {
		o.busy[s.URN()]++
	}
}
