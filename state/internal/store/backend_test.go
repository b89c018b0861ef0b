package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/backendstore"
	"github.com/groundwork-iac/groundwork/state/memstore"
	"github.com/groundwork-iac/groundwork/state/storetest"
)

// leaseBackend is the memory backend with locks that are leases, which
// lapse when a test says so: the smallest backend that exercises what
// backendstore builds on one — fencing and takeover included.
type leaseBackend struct {
	*memstore.Backend

	mu     sync.Mutex
	lapsed map[state.StackID]bool // stack → its lease lapsed
}

func newLeaseBackend() *leaseBackend {
	return &leaseBackend{Backend: memstore.NewBackend(), lapsed: map[state.StackID]bool{}}
}

// Acquire takes the stack's lock if it is free or its lease lapsed (then
// reporting whose it was), as a lease that expires within the hour.
func (b *leaseBackend) Acquire(ctx context.Context, stack state.StackID, holder state.LockInfo) (bool, *state.LockInfo, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var lapsed *state.LockInfo
	if b.lapsed[stack] {
		old, err := b.Holder(ctx, stack)
		if err != nil {
			return false, nil, err
		}
		if old != nil {
			if _, err := b.Release(ctx, stack, old.Token); err != nil {
				return false, nil, err
			}
		}
		lapsed = old
	}
	holder.Expires = time.Now().Add(time.Hour)
	ok, _, err := b.Backend.Acquire(ctx, stack, holder)
	if ok {
		delete(b.lapsed, stack)
		return true, lapsed, err
	}
	return false, nil, err
}

// expire makes the stack's lease lapse.
func (b *leaseBackend) expire(stack state.StackID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lapsed[stack] = true
}

func TestBackendStoreConformance(t *testing.T) {
	b := newLeaseBackend()
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T, opts ...state.Option) state.Store { return backendstore.New(b, opts...) },
		Snapshot: func(t *testing.T, stack state.StackID) []byte {
			data, _ := b.ReadSnapshot(context.Background(), stack)
			return data
		},
		SetSnapshot: func(t *testing.T, stack state.StackID, data []byte) { b.SetFile(stack, "snapshot.json", data) },
		Journal: func(t *testing.T, stack state.StackID) []byte {
			data, _ := b.ReadJournal(context.Background(), stack)
			return data
		},
		SetJournal: func(t *testing.T, stack state.StackID, data []byte) { b.SetFile(stack, "journal", data) },
		Expire:     func(t *testing.T, stack state.StackID) { b.expire(stack) },
	})
}
