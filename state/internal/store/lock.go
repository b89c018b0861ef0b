package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/groundwork-iac/groundwork/state"
)

// local reports whether li's holder is a process this one can check:
// same host, same table of processes.
func local(li state.LockInfo) bool {
	return li.Host == hostname() && li.ProcessSpace == processSpace()
}

// holderState is what this process can tell of a lock's holder.
type holderState int

const (
	// unknown: the holder is a process of another host or container.
	unknown holderState = iota
	// gone: no process runs with the holder's PID, or the one that does
	// started at another time than the lock records.
	gone
	// running: a process runs with the holder's PID and the start time
	// the lock records.
	running
	// pidInUse: a process runs with the holder's PID, and the lock
	// records no start time to compare (or the process's cannot be read).
	pidInUse
)

// checkHolder tells what this process knows of li's holder.
func checkHolder(li state.LockInfo) holderState {
	if !local(li) {
		return unknown
	}
	if !processAlive(li.PID) {
		return gone
	}
	if li.ProcessStart == "" {
		return pidInUse
	}
	start := processStart(li.PID)
	switch {
	case start == "":
		// It ended since it was checked, or cannot be read: neither is a
		// proof that it is gone.
		if !processAlive(li.PID) {
			return gone
		}
		return pidInUse
	case start != li.ProcessStart:
		return gone
	}
	return running
}

func newLockInfo(operation string, now time.Time) state.LockInfo {
	var tok [16]byte
	_, _ = rand.Read(tok[:])
	pid := os.Getpid()
	return state.LockInfo{PID: pid, Host: hostname(), Time: now.UTC(), Operation: operation, Token: hex.EncodeToString(tok[:]),
		ProcessSpace: processSpace(), ProcessStart: processStart(pid)}
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown"
	}
	return h
}

// Lock implements Store. A lock whose holder is provably gone is broken
// and taken, and so is a lease the backend reports lapsed (the Lock
// returned then reports it: see ReplacedLock).
func (s *Store) Lock(ctx context.Context, stack state.StackID, operation string) (state.Lock, error) {
	if err := stack.Check(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	info := newLockInfo(operation, s.opts.Now())
	var replaced *state.StaleLock
	for attempt := 0; ; attempt++ {
		ok, lapsed, err := s.b.Acquire(ctx, stack, info)
		if err != nil {
			return nil, fmt.Errorf("locking stack %q: %w", stack, err)
		}
		if ok {
			if lapsed != nil {
				replaced = &state.StaleLock{Stack: stack, Holder: *lapsed, Lapsed: true}
			}
			break
		}
		holder, err := s.b.Holder(ctx, stack)
		if err != nil {
			return nil, fmt.Errorf("stack %q is locked, and its lock record cannot be read: %w", stack, err)
		}
		if holder == nil && attempt < 3 {
			continue // released just now; try again
		}
		var li state.LockInfo
		if holder != nil {
			li = *holder
		}
		if checkHolder(li) == gone && attempt < 3 {
			// Release exactly the lock read: one taken meanwhile by
			// someone else stays.
			if released, err := s.b.Release(ctx, stack, li.Token); err == nil && released {
				replaced = &state.StaleLock{Stack: stack, Holder: li}
			}
			continue
		}
		return nil, s.lockedError(stack, li)
	}
	h := &heldLock{token: info.Token}
	s.mu.Lock()
	s.held[stack] = h
	s.mu.Unlock()
	return &stackLock{store: s, stack: stack, held: h, replaced: replaced}, nil
}

// lockedError reports the stack locked by li.
func (s *Store) lockedError(stack state.StackID, li state.LockInfo) *state.LockedError {
	h := checkHolder(li)
	return &state.LockedError{Stack: stack, Holder: li, Running: h == running, PIDInUse: h == pidInUse, Remedy: s.opts.UnlockHint}
}

type stackLock struct {
	store    *Store
	stack    state.StackID
	held     *heldLock
	replaced *state.StaleLock

	mu   sync.Mutex
	done bool
}

// Replaced implements ReplacedLock.
func (l *stackLock) Replaced() *state.StaleLock { return l.replaced }

// Unlock implements Lock.
func (l *stackLock) Unlock(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return nil
	}
	l.done = true
	s := l.store
	s.mu.Lock()
	j := s.journals[l.stack]
	s.mu.Unlock()
	var closeErr error
	if j != nil {
		closeErr = j.Close(ctx)
	}
	s.mu.Lock()
	if s.held[l.stack] == l.held {
		delete(s.held, l.stack)
	}
	s.mu.Unlock()
	released, err := s.b.Release(ctx, l.stack, l.held.token)
	if err != nil {
		return fmt.Errorf("unlocking stack %q: %w", l.stack, err)
	}
	if !released {
		return fmt.Errorf("unlocking stack %q: %w", l.stack, state.ErrLockLost)
	}
	return closeErr
}

// token returns the token of the lock this store holds on the stack, as
// far as it knows (the backend refuses a write under a lock it lost).
func (s *Store) token(stack state.StackID) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.held[stack]
	if h == nil {
		return "", state.ErrNotLocked
	}
	return h.token, nil
}

// heldToken returns the token of the lock this store holds on the stack,
// and whether the backend holds that lock right now.
func (s *Store) heldToken(ctx context.Context, stack state.StackID) (string, bool) {
	tok, err := s.token(stack)
	if err != nil {
		return "", false
	}
	cur, err := s.b.Holder(ctx, stack)
	return tok, err == nil && cur != nil && cur.Token == tok
}

// holds reports whether this store holds the stack's lock, as the backend
// records it right now.
func (s *Store) holds(ctx context.Context, stack state.StackID) bool {
	_, ok := s.heldToken(ctx, stack)
	return ok
}

// BreakLock implements LockBreaker.
func (s *Store) BreakLock(ctx context.Context, stack state.StackID) error {
	if err := stack.Check(); err != nil {
		return err
	}
	holder, err := s.b.Holder(ctx, stack)
	if err != nil || holder == nil {
		return err
	}
	li := *holder
	locked := s.lockedError(stack, li)
	switch {
	case li.Token == "":
		// A backend reports a lock record it cannot read with no token:
		// no holder can be checked.
		return fmt.Errorf("not breaking the lock of stack %q: its record is damaged: %w", stack, locked)
	case !local(li):
		return fmt.Errorf("not breaking the lock: its holder runs elsewhere, where this process cannot check it: %w", locked)
	case locked.Running, locked.PIDInUse:
		return fmt.Errorf("not breaking the lock: %w", locked)
	}
	released, err := s.b.Release(ctx, stack, li.Token)
	if err != nil {
		return err
	}
	if !released {
		return fmt.Errorf("the lock of stack %q changed while it was being broken; look again", stack)
	}
	return nil
}

// ForceUnlock implements ForceUnlocker.
func (s *Store) ForceUnlock(ctx context.Context, stack state.StackID, token string) error {
	if err := stack.Check(); err != nil {
		return err
	}
	holder, err := s.b.Holder(ctx, stack)
	if err != nil || holder == nil {
		return err
	}
	if holder.Token != token {
		return fmt.Errorf("the lock of stack %q is no longer the one to remove: %w", stack, state.ErrLockChanged)
	}
	released, err := s.b.Release(ctx, stack, token)
	if err != nil {
		return err
	}
	if !released {
		return fmt.Errorf("the lock of stack %q is no longer the one to remove: %w", stack, state.ErrLockChanged)
	}
	return nil
}
