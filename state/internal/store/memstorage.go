package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"slices"
	"sync"

	"github.com/groundwork-iac/groundwork/state"

	"github.com/groundwork-iac/groundwork/state/secrets"
)

// MemoryStore keeps stacks in memory, for tests. It is not a shortcut: it
// runs the same code as FileStore over an in-memory "file system", so
// snapshots and journal entries go through the same encoding (no State is
// ever shared between what a test saved and what it loads), secrets are
// encrypted the same way, and locks, journals, compaction and crash replay
// behave identically. Only durability is moot.
//
// Unless WithSecrets says otherwise, a MemoryStore encrypts secrets with a
// random passphrase of its own and a low PBKDF2 iteration count: the
// ciphertexts live no longer than the store, so a costly key derivation
// would protect nothing.
type MemoryStore struct {
	*core
	mem *memStorage
}

var (
	_ state.Store       = (*MemoryStore)(nil)
	_ state.LockBreaker = (*MemoryStore)(nil)
)

// NewMemoryStore returns an empty in-memory store.
func NewMemoryStore(opts ...state.Option) *MemoryStore {
	var pw [16]byte
	_, _ = rand.Read(pw[:])
	d := state.NewOptions()
	d.Secrets = state.PassphraseSecrets(hex.EncodeToString(pw[:]), secrets.WithIterations(1000))
	mem := &memStorage{stacks: map[string]map[string][]byte{}}
	return &MemoryStore{core: newCore(mem, opts, d), mem: mem}
}

// Files returns a copy of the bytes the store holds for a stack, by file
// name ("snapshot.json", "journal", "lock"): what a FileStore would have
// written to disk. Tests use it to inspect or damage what was recorded.
func (s *MemoryStore) Files(stack string) map[string][]byte {
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	out := map[string][]byte{}
	for name, data := range s.mem.stacks[stack] {
		out[name] = bytes.Clone(data)
	}
	return out
}

// SetFile replaces one file of a stack (nil data deletes it), as a crash or
// a damaged disk might. For tests.
func (s *MemoryStore) SetFile(stack, name string, data []byte) {
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	if data == nil {
		delete(s.mem.stacks[stack], name)
		return
	}
	s.mem.files(stack)[name] = bytes.Clone(data)
}

type memStorage struct {
	mu     sync.Mutex
	stacks map[string]map[string][]byte
}

func (m *memStorage) files(stack string) map[string][]byte {
	f := m.stacks[stack]
	if f == nil {
		f = map[string][]byte{}
		m.stacks[stack] = f
	}
	return f
}

func (m *memStorage) read(ctx context.Context, stack, name string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	data, ok := m.stacks[stack][name]
	if !ok {
		return nil, fmt.Errorf("%s/%s: %w", stack, name, fs.ErrNotExist)
	}
	return bytes.Clone(data), nil
}

// exists implements statStorage.
func (m *memStorage) exists(ctx context.Context, stack, name string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.stacks[stack][name]
	return ok, nil
}

func (m *memStorage) replace(ctx context.Context, stack, name string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files(stack)[name] = bytes.Clone(data)
	return nil
}

func (m *memStorage) openAppend(ctx context.Context, stack, name string) (appender, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.stacks[stack][name]; !ok {
		return nil, fmt.Errorf("%s/%s: %w", stack, name, fs.ErrNotExist)
	}
	return &memAppender{m: m, stack: stack, name: name}, nil
}

type memAppender struct {
	m           *memStorage
	stack, name string
}

func (a *memAppender) write(ctx context.Context, p []byte) error {
	a.m.mu.Lock()
	defer a.m.mu.Unlock()
	f := a.m.files(a.stack)
	f[a.name] = append(f[a.name], p...)
	return nil
}

func (a *memAppender) sync() error  { return nil }
func (a *memAppender) close() error { return nil }

func (m *memStorage) remove(ctx context.Context, stack, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.stacks[stack], name)
	return nil
}

func (m *memStorage) removeStack(ctx context.Context, stack string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.stacks[stack]) == 0 {
		delete(m.stacks, stack)
	}
	return nil
}

func (m *memStorage) list(ctx context.Context) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for stack, files := range m.stacks {
		if _, ok := files[fileSnapshot]; ok {
			out = append(out, stack)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (m *memStorage) create(ctx context.Context, stack, name string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.files(stack)
	if _, ok := f[name]; ok {
		return fmt.Errorf("%s/%s: %w", stack, name, fs.ErrExist)
	}
	f[name] = bytes.Clone(data)
	return nil
}

func (m *memStorage) removeIf(ctx context.Context, stack, name string, data []byte) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.stacks[stack][name]
	if !ok || !bytes.Equal(cur, data) {
		return false, nil
	}
	delete(m.stacks[stack], name)
	return true, nil
}

// Reopen returns another MemoryStore over the same stacks: what a second
// process opening the same storage would see. It starts with s's options
// (its secrets provider among them) followed by opts, and holds none of s's
// locks or journals, so tests can exercise contention and crash replay
// between the two.
func (s *MemoryStore) Reopen(opts ...state.Option) *MemoryStore {
	o := s.opts
	return &MemoryStore{core: newCore(s.mem, opts, o), mem: s.mem}
}
