package store_test

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/backendstore"
	"github.com/groundwork-iac/groundwork/state/storetest"
)

// leaseBackend is a Backend in memory whose locks are leases that lapse
// when a test says so: the smallest backend that exercises what NewStore
// builds on one — fencing and takeover included.
type leaseBackend struct {
	mu     sync.Mutex
	stacks map[string]*leaseStack
}

type leaseStack struct {
	snapshot, journal []byte
	lock              *state.LockInfo
	lapsed            bool
}

func newLeaseBackend() *leaseBackend { return &leaseBackend{stacks: map[string]*leaseStack{}} }

func (b *leaseBackend) stack(name string) *leaseStack {
	s := b.stacks[name]
	if s == nil {
		s = &leaseStack{}
		b.stacks[name] = s
	}
	return s
}

// fenced runs write if token holds the stack's lock.
func (b *leaseBackend) fenced(stack, token string, write func(*leaseStack)) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stack(stack)
	if s.lock == nil || s.lock.Token != token {
		return fmt.Errorf("lease backend: stack %q: %w", stack, state.ErrLockLost)
	}
	write(s)
	return nil
}

func (b *leaseBackend) ReadSnapshot(_ context.Context, stack string) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.stack(stack).snapshot), nil
}

func (b *leaseBackend) HasSnapshot(_ context.Context, stack string) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stack(stack).snapshot != nil, nil
}

func (b *leaseBackend) ReadJournal(_ context.Context, stack string) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.stack(stack).journal), nil
}

func (b *leaseBackend) List(context.Context) ([]string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for name, s := range b.stacks {
		if s.snapshot != nil {
			out = append(out, name)
		}
	}
	return out, nil
}

func (b *leaseBackend) Holder(_ context.Context, stack string) (*state.LockInfo, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if l := b.stack(stack).lock; l != nil {
		c := *l
		return &c, nil
	}
	return nil, nil
}

func (b *leaseBackend) Acquire(_ context.Context, stack string, holder state.LockInfo) (bool, *state.LockInfo, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stack(stack)
	if s.lock != nil && !s.lapsed {
		return false, nil, nil
	}
	lapsed := s.lock
	holder.Expires = time.Now().Add(time.Hour)
	s.lock, s.lapsed = &holder, false
	return true, lapsed, nil
}

func (b *leaseBackend) Release(_ context.Context, stack, token string) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stack(stack)
	if s.lock == nil || s.lock.Token != token {
		return false, nil
	}
	s.lock = nil
	return true, nil
}

func (b *leaseBackend) WriteSnapshot(_ context.Context, stack, token string, data []byte) error {
	return b.fenced(stack, token, func(s *leaseStack) { s.snapshot, s.journal = bytes.Clone(data), nil })
}

func (b *leaseBackend) WriteJournal(_ context.Context, stack, token string, data []byte) error {
	return b.fenced(stack, token, func(s *leaseStack) { s.journal = bytes.Clone(data) })
}

func (b *leaseBackend) AppendJournal(_ context.Context, stack, token string, data []byte) error {
	return b.fenced(stack, token, func(s *leaseStack) { s.journal = append(s.journal, data...) })
}

func (b *leaseBackend) DeleteStack(_ context.Context, stack, token string) error {
	return b.fenced(stack, token, func(s *leaseStack) { s.snapshot, s.journal = nil, nil })
}

func TestBackendStoreConformance(t *testing.T) {
	b := newLeaseBackend()
	set := func(stack string, f func(*leaseStack)) {
		b.mu.Lock()
		defer b.mu.Unlock()
		f(b.stack(stack))
	}
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T, opts ...state.Option) state.Store { return backendstore.New(b, opts...) },
		Snapshot: func(t *testing.T, stack string) []byte {
			data, _ := b.ReadSnapshot(context.Background(), stack)
			return data
		},
		SetSnapshot: func(t *testing.T, stack string, data []byte) {
			set(stack, func(s *leaseStack) { s.snapshot = bytes.Clone(data) })
		},
		Journal: func(t *testing.T, stack string) []byte {
			data, _ := b.ReadJournal(context.Background(), stack)
			return data
		},
		SetJournal: func(t *testing.T, stack string, data []byte) {
			set(stack, func(s *leaseStack) { s.journal = bytes.Clone(data) })
		},
		Expire: func(t *testing.T, stack string) {
			set(stack, func(s *leaseStack) { s.lapsed = true })
		},
	})
}
