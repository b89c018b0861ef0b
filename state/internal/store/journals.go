package store

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/internal/journal"
)

// The store's journals: one open at a time per stack, written through
// the backend under the lock the store holds.

// OpenJournal implements Store.
func (s *Store) OpenJournal(ctx context.Context, stack state.StackID, base *state.Snapshot) (state.Journal, error) {
	if err := stack.Check(); err != nil {
		return nil, err
	}
	if base == nil {
		base = &state.Snapshot{}
	}
	tok, held := s.heldToken(ctx, stack)
	if !held {
		return nil, fmt.Errorf("opening a journal on stack %q: %w", stack, state.ErrNotLocked)
	}
	// A stack of 10,000 resources takes milliseconds to check: not again
	// when Load just did (the engine opens its journal on what it loaded).
	if !s.verifiedByLoad(stack, base) {
		if err := base.VerifyIntegrity(); err != nil {
			return nil, fmt.Errorf("opening a journal on stack %q: the base snapshot: %w", stack, err)
		}
	}
	s.mu.Lock()
	if _, open := s.journals[stack]; open {
		s.mu.Unlock()
		return nil, fmt.Errorf("opening a journal on stack %q: %w", stack, state.ErrJournalOpen)
	}
	s.journals[stack] = nil // reserved: present but not yet open
	s.mu.Unlock()
	j, err := s.openJournal(ctx, stack, tok, base)
	s.mu.Lock()
	if err != nil {
		delete(s.journals, stack)
	} else {
		s.journals[stack] = j
	}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return j, nil
}

// openJournal opens a journal on base, written under the lock whose
// token is token.
func (s *Store) openJournal(ctx context.Context, stack state.StackID, token string, base *state.Snapshot) (*stackJournal, error) {
	mgr, err := s.manager(ctx, stack, base.Secrets)
	if err != nil {
		return nil, err
	}
	cont, _ := s.continuing(ctx, stack, base, mgr)
	j, err := journal.Open(ctx, journal.Config{
		Stack: stack, Base: base, Secrets: mgr,
		Storage: stackStorage{store: s, stack: stack, token: token},
		Stamp:   s.stamp, LimitFactor: s.opts.JournalLimitFactor, LimitExtra: s.opts.JournalLimitExtra,
		Continue: cont,
	})
	if err != nil {
		return nil, err
	}
	return &stackJournal{Journal: j, store: s, stack: stack}, nil
}

// stackJournal is a journal open on one of the store's stacks, which
// Close makes available again.
type stackJournal struct {
	*journal.Journal
	store *Store
	stack state.StackID
}

// Close implements Journal.
func (j *stackJournal) Close(ctx context.Context) error {
	err := j.Journal.Close(ctx)
	j.store.mu.Lock()
	if j.store.journals[j.stack] == j {
		delete(j.store.journals, j.stack)
	}
	j.store.mu.Unlock()
	return err
}

// stackStorage is the journal.Storage of one stack: the backend's, under
// the lock whose token is token, so a journal never outlives its lock.
type stackStorage struct {
	store *Store
	stack state.StackID
	token string
}

// WriteSnapshot implements journal.Storage.
func (s stackStorage) WriteSnapshot(ctx context.Context, data []byte) error {
	return s.store.replaceSnapshot(ctx, s.stack, s.token, data)
}

// WriteJournal implements journal.Storage.
func (s stackStorage) WriteJournal(ctx context.Context, data []byte) error {
	return s.store.b.WriteJournal(ctx, s.stack, s.token, data)
}

// AppendJournal implements journal.Storage.
func (s stackStorage) AppendJournal(ctx context.Context, data []byte) error {
	return s.store.b.AppendJournal(ctx, s.stack, s.token, data)
}
