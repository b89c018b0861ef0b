package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync"

	"github.com/groundwork-iac/groundwork/state"
)

// NewStore returns a Store that keeps its stacks in b. Options are those
// of FileStore; as there, without WithSecrets the store refuses to record
// a secret value rather than write it in plaintext.
func NewStore(b state.Backend, opts ...state.Option) state.Store {
	st := &backendStorage{b: b, held: map[string]heldLock{}}
	c := newCore(st, opts, state.NewOptions())
	return backendStore{Store: c, c: c}
}

// backendStore shows the Store methods of its core, and ForceUnlock: the
// core's BreakLock judges a holder by its process, which says nothing of a
// lease.
type backendStore struct {
	state.Store
	c *core
}

// ForceUnlock implements ForceUnlocker.
func (s backendStore) ForceUnlock(ctx context.Context, stack, token string) error {
	return s.c.ForceUnlock(ctx, stack, token)
}

// heldLock is a lock this store took: its token, the lock record the core
// knows it by, and the holder of the lapsed lease it took over, if any.
type heldLock struct {
	token  string
	record []byte
	lapsed *state.LockInfo
}

// backendStorage adapts a Backend to the files the core reads and writes.
type backendStorage struct {
	b state.Backend

	mu   sync.Mutex
	held map[string]heldLock
}

var (
	_ storage     = (*backendStorage)(nil)
	_ statStorage = (*backendStorage)(nil)
)

func notExist(stack, name string) error {
	return fmt.Errorf("%s of stack %q: %w", name, stack, fs.ErrNotExist)
}

// token returns the token of the lock this store holds on the stack.
func (s *backendStorage) token(stack string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.held[stack]
	if !ok {
		return "", state.ErrNotLocked
	}
	return h.token, nil
}

func (s *backendStorage) read(ctx context.Context, stack, name string) ([]byte, error) {
	var data []byte
	var err error
	switch name {
	case fileSnapshot:
		data, err = s.b.ReadSnapshot(ctx, stack)
	case fileJournal:
		data, err = s.b.ReadJournal(ctx, stack)
	case fileLock:
		return s.readLock(ctx, stack)
	default:
		return nil, fmt.Errorf("a backend keeps no %q", name)
	}
	if err == nil && data == nil {
		err = notExist(stack, name)
	}
	return data, err
}

// readLock returns the record of the stack's lock: the very bytes the core
// took it with while this store holds it, so the core recognizes it.
func (s *backendStorage) readLock(ctx context.Context, stack string) ([]byte, error) {
	info, err := s.b.Holder(ctx, stack)
	if err != nil {
		return nil, err
	}
	if info == nil {
		return nil, notExist(stack, fileLock)
	}
	s.mu.Lock()
	h, ok := s.held[stack]
	s.mu.Unlock()
	if ok && h.token == info.Token {
		return h.record, nil
	}
	return json.Marshal(info)
}

func (s *backendStorage) exists(ctx context.Context, stack, name string) (bool, error) {
	if name != fileSnapshot {
		_, err := s.read(ctx, stack, name)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return err == nil, err
	}
	return s.b.HasSnapshot(ctx, stack)
}

func (s *backendStorage) replace(ctx context.Context, stack, name string, data []byte) error {
	tok, err := s.token(stack)
	if err != nil {
		return err
	}
	switch name {
	case fileSnapshot:
		return s.b.WriteSnapshot(ctx, stack, tok, data)
	case fileJournal:
		return s.b.WriteJournal(ctx, stack, tok, data)
	}
	return fmt.Errorf("a backend keeps no %q", name)
}

func (s *backendStorage) openAppend(ctx context.Context, stack, name string) (appender, error) {
	if name != fileJournal {
		return nil, fmt.Errorf("a backend appends to no %q", name)
	}
	tok, err := s.token(stack)
	if err != nil {
		return nil, err
	}
	return backendAppender{b: s.b, stack: stack, token: tok}, nil
}

// backendAppender appends under the lock held when the journal was
// (re)started, so a journal never outlives its lock.
type backendAppender struct {
	b            state.Backend
	stack, token string
}

func (a backendAppender) write(ctx context.Context, p []byte) error {
	return a.b.AppendJournal(ctx, a.stack, a.token, p)
}

// sync does nothing: an append is durable when it returns.
func (a backendAppender) sync() error  { return nil }
func (a backendAppender) close() error { return nil }

func (s *backendStorage) remove(ctx context.Context, stack, name string) error {
	tok, err := s.token(stack)
	if err != nil {
		return err
	}
	switch name {
	case fileJournal:
		return s.b.WriteJournal(ctx, stack, tok, nil)
	case fileSnapshot:
		return s.b.DeleteStack(ctx, stack, tok)
	}
	return fmt.Errorf("a backend keeps no %q", name)
}

// removeStack does nothing: a backend keeps no folder per stack.
func (s *backendStorage) removeStack(context.Context, string) error { return nil }

func (s *backendStorage) list(ctx context.Context) ([]string, error) {
	stacks, err := s.b.List(ctx)
	if err != nil {
		return nil, err
	}
	out := stacks[:0:0]
	for _, st := range stacks {
		if state.CheckStackName(st) == nil {
			out = append(out, st)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (s *backendStorage) create(ctx context.Context, stack, name string, data []byte) error {
	if name != fileLock {
		return fmt.Errorf("a backend creates no %q", name)
	}
	info, err := parseLockInfo(data)
	if err != nil {
		return err
	}
	ok, lapsed, err := s.b.Acquire(ctx, stack, info)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("lock of stack %q: %w", stack, fs.ErrExist)
	}
	s.mu.Lock()
	s.held[stack] = heldLock{token: info.Token, record: data, lapsed: lapsed}
	s.mu.Unlock()
	return nil
}

// tookOver implements takeoverStorage.
func (s *backendStorage) tookOver(stack string) *state.LockInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held[stack].lapsed
}

func (s *backendStorage) removeIf(ctx context.Context, stack, name string, data []byte) (bool, error) {
	if name != fileLock {
		return false, fmt.Errorf("a backend removes no %q", name)
	}
	info, err := parseLockInfo(data)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	if h, ok := s.held[stack]; ok && h.token == info.Token {
		delete(s.held, stack)
	}
	s.mu.Unlock()
	return s.b.Release(ctx, stack, info.Token)
}

// statStorage is a storage that can tell whether a file exists without
// reading it.
type statStorage interface {
	exists(ctx context.Context, stack, name string) (bool, error)
}

// exists reports whether a file exists, without reading it where the
// storage can tell.
func exists(ctx context.Context, st storage, stack, name string) (bool, error) {
	if s, ok := st.(statStorage); ok {
		return s.exists(ctx, stack, name)
	}
	_, err := st.read(ctx, stack, name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}
