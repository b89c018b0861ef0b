package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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

// gone reports whether li's holder is provably gone: a process this one
// can check that no longer runs.
func gone(li state.LockInfo) bool { return local(li) && !processAlive(li.PID) }

func newLockInfo(operation string, now time.Time) state.LockInfo {
	var tok [16]byte
	_, _ = rand.Read(tok[:])
	return state.LockInfo{PID: os.Getpid(), Host: hostname(), Time: now.UTC(), Operation: operation, Token: hex.EncodeToString(tok[:]),
		ProcessSpace: processSpace()}
}

func parseLockInfo(data []byte) (state.LockInfo, error) {
	var li state.LockInfo
	if err := json.Unmarshal(data, &li); err != nil {
		return li, fmt.Errorf("the lock record is malformed: %w", err)
	}
	return li, nil
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown"
	}
	return h
}

// Lock implements Store. A lock whose holder is provably gone is broken
// and taken (the Lock returned then reports it: see ReplacedLock).
func (c *core) Lock(ctx context.Context, stack, operation string) (state.Lock, error) {
	if err := state.CheckStackName(stack); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	info := newLockInfo(operation, c.opts.Now())
	data, _ := json.Marshal(info)
	var replaced *state.StaleLock
	for attempt := 0; ; attempt++ {
		err := c.st.create(ctx, stack, fileLock, data)
		if err == nil {
			break
		}
		if errors.Is(err, fs.ErrNotExist) && attempt < 3 {
			continue // the stack's folder was just removed by an Unlock
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("locking stack %q: %w", stack, err)
		}
		holder, err := c.st.read(ctx, stack, fileLock)
		if errors.Is(err, fs.ErrNotExist) && attempt < 3 {
			continue // released just now; try again
		}
		if err != nil {
			return nil, fmt.Errorf("stack %q is locked, and its lock record cannot be read: %w", stack, err)
		}
		li, perr := parseLockInfo(holder)
		if perr == nil && gone(li) && attempt < 3 {
			// Remove exactly the record read: a lock taken meanwhile
			// by someone else stays.
			if removed, err := c.st.removeIf(ctx, stack, fileLock, holder); err == nil && removed {
				replaced = &state.StaleLock{Stack: stack, Holder: li}
			}
			continue
		}
		return nil, c.lockedError(stack, li)
	}
	if tk, ok := c.st.(takeoverStorage); ok {
		if lapsed := tk.tookOver(stack); lapsed != nil {
			replaced = &state.StaleLock{Stack: stack, Holder: *lapsed, Lapsed: true}
		}
	}
	c.mu.Lock()
	c.held[stack] = data
	c.mu.Unlock()
	return &stackLock{c: c, stack: stack, data: data, replaced: replaced}, nil
}

// lockedError reports the stack locked by li.
func (c *core) lockedError(stack string, li state.LockInfo) *state.LockedError {
	return &state.LockedError{Stack: stack, Holder: li, Running: local(li) && processAlive(li.PID), Remedy: c.opts.UnlockHint}
}

// takeoverStorage is a storage whose locks are leases: it tells whether
// the lock it just created took over a lapsed lease, and whose.
type takeoverStorage interface {
	tookOver(stack string) *state.LockInfo
}

type stackLock struct {
	c        *core
	stack    string
	data     []byte
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
	c := l.c
	c.mu.Lock()
	j := c.journals[l.stack]
	c.mu.Unlock()
	var closeErr error
	if j != nil {
		closeErr = j.Close(ctx)
	}
	c.mu.Lock()
	delete(c.held, l.stack)
	c.mu.Unlock()
	removed, err := c.st.removeIf(ctx, l.stack, fileLock, l.data)
	if err != nil {
		return fmt.Errorf("unlocking stack %q: %w", l.stack, err)
	}
	if !removed {
		return fmt.Errorf("unlocking stack %q: %w", l.stack, state.ErrLockLost)
	}
	// A stack that was locked but never saved leaves no empty folder.
	if ok, err := exists(ctx, c.st, l.stack, fileSnapshot); err == nil && !ok {
		_ = c.st.removeStack(ctx, l.stack)
	}
	return closeErr
}

// holds reports whether this store holds the stack's lock, as recorded in
// storage right now.
func (c *core) holds(ctx context.Context, stack string) bool {
	c.mu.Lock()
	data := c.held[stack]
	c.mu.Unlock()
	if data == nil {
		return false
	}
	cur, err := c.st.read(ctx, stack, fileLock)
	return err == nil && bytes.Equal(cur, data)
}

// BreakLock implements LockBreaker.
func (c *core) BreakLock(ctx context.Context, stack string) error {
	if err := state.CheckStackName(stack); err != nil {
		return err
	}
	data, err := c.st.read(ctx, stack, fileLock)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	li, perr := parseLockInfo(data)
	locked := c.lockedError(stack, li)
	switch {
	case perr != nil:
		// Locks appear with their whole content, so a malformed one was
		// damaged after the fact; no holder can be checked.
		return fmt.Errorf("not breaking the lock of stack %q: %v: %w", stack, perr, locked)
	case !local(li):
		return fmt.Errorf("not breaking the lock: its holder runs elsewhere, where this process cannot check it: %w", locked)
	case locked.Running:
		return fmt.Errorf("not breaking the lock: %w", locked)
	}
	removed, err := c.st.removeIf(ctx, stack, fileLock, data)
	if err != nil {
		return err
	}
	if !removed {
		return fmt.Errorf("the lock of stack %q changed while it was being broken; look again", stack)
	}
	return nil
}

// ForceUnlock implements ForceUnlocker.
func (c *core) ForceUnlock(ctx context.Context, stack, token string) error {
	if err := state.CheckStackName(stack); err != nil {
		return err
	}
	data, err := c.st.read(ctx, stack, fileLock)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	li, err := parseLockInfo(data)
	if err != nil && token != "" || err == nil && li.Token != token {
		return fmt.Errorf("the lock of stack %q is no longer the one to remove: %w", stack, state.ErrLockChanged)
	}
	removed, err := c.st.removeIf(ctx, stack, fileLock, data)
	if err != nil {
		return err
	}
	if !removed {
		return fmt.Errorf("the lock of stack %q is no longer the one to remove: %w", stack, state.ErrLockChanged)
	}
	return nil
}
