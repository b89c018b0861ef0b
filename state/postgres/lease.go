package postgres

import (
	"context"

	"sync"
	"time"

	"github.com/groundwork-iac/groundwork/state"
)

// renewers keep the leases a store holds alive: one goroutine per held
// lock, renewing it every third of the lease, from Acquire until Release
// or Close. A goroutine stops on its own once its lease cannot be renewed
// (it lapsed or was taken over); the holder learns of it at its next
// write, which the fencing refuses.
type renewers struct {
	every time.Duration
	renew func(ctx context.Context, stack state.StackID, token string) (bool, error)

	mu     sync.Mutex
	active map[state.StackID]*renewer // by stack
	closed bool
	wg     sync.WaitGroup
}

// renewer renews one lease until its context is cancelled, which also
// cancels a renewal call in flight.
type renewer struct {
	token  string
	ctx    context.Context
	cancel context.CancelFunc
}

func newRenewers(lease time.Duration, renew func(ctx context.Context, stack state.StackID, token string) (bool, error)) *renewers {
	return &renewers{every: max(lease/3, time.Millisecond), renew: renew, active: map[state.StackID]*renewer{}}
}

// start renews the lease token holds on stack until stop.
func (r *renewers) start(stack state.StackID, token string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	if old := r.active[stack]; old != nil {
		old.cancel() // a lease this store held and lost
	}
	ctx, cancel := context.WithCancel(context.Background())
	rn := &renewer{token: token, ctx: ctx, cancel: cancel}
	r.active[stack] = rn
	r.wg.Add(1)
	go r.run(stack, rn)
}

func (r *renewers) run(stack state.StackID, rn *renewer) {
	defer r.wg.Done()
	t := time.NewTicker(r.every)
	defer t.Stop()
	for {
		select {
		case <-rn.ctx.Done():
			return
		case <-t.C:
		}
		if ok, _ := r.renew(rn.ctx, stack, rn.token); !ok {
			r.mu.Lock()
			if r.active[stack] == rn {
				delete(r.active, stack)
			}
			r.mu.Unlock()
			rn.cancel()
			return
		}
	}
}

// stop ends the renewal of token's lease on stack, if it runs.
func (r *renewers) stop(stack state.StackID, token string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rn := r.active[stack]; rn != nil && rn.token == token {
		rn.cancel()
		delete(r.active, stack)
	}
}

// close stops every renewal and waits for the goroutines to end.
func (r *renewers) close() {
	r.mu.Lock()
	r.closed = true
	for stack, rn := range r.active {
		rn.cancel()
		delete(r.active, stack)
	}
	r.mu.Unlock()
	r.wg.Wait()
}
