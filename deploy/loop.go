package deploy

import (
	"context"
	"errors"
	"sync"

	"github.com/groundwork-iac/groundwork/dag"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// This file is the host's loop: the one goroutine that owns the step
// generator. Everything the generator learns reaches the loop as an event
// in its inbox — a registration from the monitor (register.go), the answer
// to a provider call (calls.go), the outcome of a step (walk.go), or a
// command of the operation's body (commands.go: the deletes, a refresh,
// waiting until nothing is outstanding) — and the loop hands it to the
// generator and carries out the Actions that come back: provider calls go to the call
// pool, steps to the step walker, replies to the registrations waiting for
// them. Whoever posts an event never waits for the loop, the loop takes
// everything waiting at each wake-up, and it never waits on a provider or
// the journal itself.

// event is one thing the loop hands to the generator. The set is closed:
// *request, *callAnswered, *stepEnded, settleRequest and *command, the
// types that implement isEvent, each handled by one case of handle. It is one
// interface value rather than a struct with a field for each, so that an
// inbox holding thousands of events stays small.
type event interface{ isEvent() }

// callAnswered is the answer to a provider call the generator asked for. It
// is a stepgen.Answer under a name of the loop's, so that a *stepgen.Answer
// converts to it in place.
type callAnswered stepgen.Answer

// stepEnded is how a step the generator issued ended: a stepgen.Outcome
// under a name of the loop's, converted in place as callAnswered is.
type stepEnded stepgen.Outcome

// settleRequest asks the loop to close the channel once nothing the
// generator asked for is outstanding (Host.Settle).
type settleRequest chan struct{}

func (*request) isEvent()      {}
func (*callAnswered) isEvent() {}
func (*stepEnded) isEvent()    {}
func (settleRequest) isEvent() {}
func (*command) isEvent()      {}

// inbox holds the events the loop has yet to handle.
type inbox struct {
	mu     sync.Mutex
	events []event
	// draining refuses new registrations; closed refuses everything.
	draining, closed bool
	// wake holds a token while the inbox has something the loop has not
	// taken yet.
	wake chan struct{}
}

func newInbox() *inbox { return &inbox{wake: make(chan struct{}, 1)} }

// post queues ev for the loop; false if the loop no longer takes it (then a
// registration is the caller's to answer).
func (b *inbox) post(ev event) bool {
	b.mu.Lock()
	if _, isReq := ev.(*request); b.closed || (b.draining && isReq) {
		b.mu.Unlock()
		return false
	}
	b.events = append(b.events, ev)
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
	return true
}

// take swaps out everything queued for the empty slice given.
func (b *inbox) take(evs []event) []event {
	b.mu.Lock()
	evs, b.events = b.events, evs
	b.mu.Unlock()
	return evs
}

// drain refuses new registrations and returns those still queued, for the
// caller to answer.
func (b *inbox) drain() []*request {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.draining = true
	var reqs []*request
	kept := b.events[:0]
	for _, ev := range b.events {
		if r, ok := ev.(*request); ok {
			reqs = append(reqs, r)
			continue
		}
		kept = append(kept, ev)
	}
	clear(b.events[len(kept):])
	b.events = kept
	return reqs
}

// close refuses everything posted from now on.
func (b *inbox) close() {
	b.mu.Lock()
	b.closed = true
	b.events = nil
	b.mu.Unlock()
}

// loop runs until stop is closed and, after that, until nothing the
// generator asked for is outstanding: the steps and calls under way still
// report to it, while new registrations are refused.
func (h *Host) loop(ctx context.Context) {
	defer close(h.loopDone)
	defer h.inbox.close()
	var batch []event
	stop := h.stop
	for {
		select {
		case <-h.inbox.wake:
		case <-stop:
			stop = nil
			h.CloseRegistrations()
		}
		batch = h.inbox.take(batch)
		for _, ev := range batch {
			h.handle(ctx, ev)
		}
		clear(batch) // drop the references: the slice is reused
		batch = batch[:0]
		if h.gen.Settled() {
			for _, ch := range h.settling {
				close(ch)
			}
			h.settling = nil
			if stop == nil {
				return
			}
		}
	}
}

// CloseRegistrations refuses the registrations that arrive once the
// program's part of the operation is over, and those still queued.
func (h *Host) CloseRegistrations() {
	for _, r := range h.inbox.drain() {
		r.done(regResult{err: errDeploymentOver})
	}
}

// Stop ends the loop once the operation's body is over, and waits for it
// to have nothing left under way: the steps and calls it started still
// report to it, and new registrations are refused.
func (h *Host) Stop() {
	close(h.stop)
	<-h.loopDone
}

// handle hands one event to the generator and carries out what it asks.
func (h *Host) handle(ctx context.Context, ev event) {
	switch ev := ev.(type) {
	case *request:
		h.handleRequest(ctx, ev)
	case *callAnswered:
		acts, err := h.gen.Answer(stepgen.Answer(*ev))
		if err != nil {
			h.refused(ctx, ev.Call.Reg, err) // acts hold the failed registration's reply
		}
		h.dispatch(ctx, acts)
	case *stepEnded:
		h.dispatch(ctx, h.gen.Done(stepgen.Outcome(*ev)))
	case settleRequest:
		h.settling = append(h.settling, ev)
	case *command:
		ev.done <- h.command(ctx, ev)
	}
}

// dispatch carries out the generator's actions: provider calls, steps and
// replies.
func (h *Host) dispatch(ctx context.Context, acts stepgen.Actions) {
	for _, c := range acts.Calls {
		h.call(ctx, c)
	}
	for _, s := range acts.Steps {
		h.walk(ctx, s)
	}
	for _, r := range acts.Replies {
		h.reply(r)
	}
}

// reply answers a registration, once: a request already answered (one
// the generator refused, answered by handleRequest) is not answered again.
func (h *Host) reply(r stepgen.Reply) {
	req, _ := r.Reg.Waiter.(*request)
	if req == nil || req.answer == nil {
		return
	}
	req.done(regResult{res: r.Result, err: r.Err, step: stepOutcomeOf(r)})
}

// stepOutcomeOf tells, for a reply whose error is the outcome of its
// registration's step, how that step ended: it failed, or it was skipped
// because a resource it needs did not succeed. A step skipped because the
// operation is stopping has no outcome to tell: nil.
func stepOutcomeOf(r stepgen.Reply) *stepOutcome {
	if r.Step == nil {
		return nil
	}
	var skip *dag.SkippedError
	if !errors.As(r.Err, &skip) {
		return &stepOutcome{urn: r.Step.URN()}
	}
	if skip.Dependency != "" {
		return &stepOutcome{urn: r.Step.URN(), skipped: true}
	}
	return nil
}

// Settle waits until nothing the generator asked for is outstanding: every
// call it issued answered, every step it issued ended and reported.
func (h *Host) Settle(ctx context.Context) error {
	settled := make(chan struct{})
	if !h.inbox.post(settleRequest(settled)) {
		return errDeploymentOver
	}
	select {
	case <-settled:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
