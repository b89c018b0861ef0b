package memstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"sync"

	"github.com/groundwork-iac/groundwork/state"
)

// The names Files and SetFile give a stack's bytes: those of the file
// store's files.
const (
	fileSnapshot = "snapshot.json"
	fileJournal  = "journal"
	fileLock     = "lock"
	fileHistory  = "history"
)

// Backend is the state.Backend of a memory store: per stack, the bytes of
// its snapshot, journal and lock record (the JSON of a state.LockInfo),
// as the file store would write them. Every call holds one mutex, so each
// write and its fencing are one atomic step. Its locks are not leases:
// none lapses. The contexts of its calls are not consulted: nothing
// waits.
type Backend struct {
	mu     sync.Mutex
	stacks map[state.StackID]*stackBytes
}

// stackBytes is what a Backend keeps for one stack; nil for what it has
// none of.
type stackBytes struct {
	snapshot, journal, lock, history []byte
	token                            string // of the lock record, "" if it cannot be parsed
}

var (
	_ state.Backend           = (*Backend)(nil)
	_ state.HistoryBackend    = (*Backend)(nil)
	_ state.HistoryTailReader = (*Backend)(nil)
)

// NewBackend returns an empty Backend.
func NewBackend() *Backend { return &Backend{stacks: map[state.StackID]*stackBytes{}} }

func (b *Backend) stack(name state.StackID) *stackBytes {
	s := b.stacks[name]
	if s == nil {
		s = &stackBytes{}
		b.stacks[name] = s
	}
	return s
}

// tidy forgets a stack that holds nothing.
func (b *Backend) tidy(name state.StackID) {
	if s := b.stacks[name]; s != nil && s.snapshot == nil && s.journal == nil && s.lock == nil && s.history == nil {
		delete(b.stacks, name)
	}
}

// Files returns a copy of the bytes the backend holds for a stack, by
// file name ("snapshot.json", "journal", "lock"): what the file store
// would have written to disk.
func (b *Backend) Files(stack state.StackID) map[string][]byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string][]byte{}
	if s := b.stacks[stack]; s != nil {
		for name, data := range map[string][]byte{fileSnapshot: s.snapshot, fileJournal: s.journal, fileLock: s.lock, fileHistory: s.history} {
			if data != nil {
				out[name] = bytes.Clone(data)
			}
		}
	}
	return out
}

// SetFile replaces (nil data: removes) one of a stack's files, as Files
// names them, as a crash or a damaged disk might; other names are
// ignored.
func (b *Backend) SetFile(stack state.StackID, name string, data []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stack(stack)
	data = bytes.Clone(data)
	switch name {
	case fileSnapshot:
		s.snapshot = data
	case fileJournal:
		s.journal = data
	case fileLock:
		s.lock, s.token = data, lockToken(data)
	case fileHistory:
		s.history = data
	}
	b.tidy(stack)
}

// lockToken returns the token of a lock record, or "" if it cannot be
// parsed.
func lockToken(data []byte) string {
	var li state.LockInfo
	if json.Unmarshal(data, &li) != nil {
		return ""
	}
	return li.Token
}

// ReadSnapshot implements state.Backend.
func (b *Backend) ReadSnapshot(_ context.Context, stack state.StackID) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.stacks[stack]; s != nil {
		return bytes.Clone(s.snapshot), nil
	}
	return nil, nil
}

// ReadSnapshotText implements state.SnapshotTextReader: one copy of the
// snapshot, as a string.
func (b *Backend) ReadSnapshotText(_ context.Context, stack state.StackID) (string, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.stacks[stack]; s != nil && s.snapshot != nil {
		return string(s.snapshot), true, nil
	}
	return "", false, nil
}

// HasSnapshot implements state.Backend.
func (b *Backend) HasSnapshot(_ context.Context, stack state.StackID) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stacks[stack]
	return s != nil && s.snapshot != nil, nil
}

// ReadJournal implements state.Backend.
func (b *Backend) ReadJournal(_ context.Context, stack state.StackID) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.stacks[stack]; s != nil {
		return bytes.Clone(s.journal), nil
	}
	return nil, nil
}

// List implements state.Backend.
func (b *Backend) List(context.Context) ([]state.StackID, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []state.StackID
	for name, s := range b.stacks {
		if s.snapshot != nil {
			out = append(out, name)
		}
	}
	return out, nil
}

// Holder implements state.Backend. A lock record that cannot be parsed
// is reported as a holder with no token, which Release with an empty
// token removes.
func (b *Backend) Holder(_ context.Context, stack state.StackID) (*state.LockInfo, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stacks[stack]
	if s == nil || s.lock == nil {
		return nil, nil
	}
	var li state.LockInfo
	if json.Unmarshal(s.lock, &li) != nil {
		li = state.LockInfo{}
	}
	return &li, nil
}

// Acquire implements state.Backend.
func (b *Backend) Acquire(_ context.Context, stack state.StackID, holder state.LockInfo) (bool, *state.LockInfo, error) {
	data, err := json.Marshal(holder)
	if err != nil {
		return false, nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stack(stack)
	if s.lock != nil {
		return false, nil, nil
	}
	s.lock, s.token = data, holder.Token
	return true, nil, nil
}

// Release implements state.Backend.
func (b *Backend) Release(_ context.Context, stack state.StackID, token string) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stacks[stack]
	if s == nil || s.lock == nil || s.token != token {
		return false, nil
	}
	s.lock, s.token = nil, ""
	b.tidy(stack)
	return true, nil
}

// fenced runs write if token holds the stack's lock.
func (b *Backend) fenced(stack state.StackID, token string, write func(*stackBytes) error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stacks[stack]
	if s == nil || s.lock == nil || s.token != token {
		return fmt.Errorf("stack %q: %w", stack, state.ErrLockLost)
	}
	return write(s)
}

// WriteSnapshot implements state.Backend.
func (b *Backend) WriteSnapshot(_ context.Context, stack state.StackID, token string, data []byte) error {
	return b.fenced(stack, token, func(s *stackBytes) error {
		s.snapshot, s.journal = bytes.Clone(data), nil
		return nil
	})
}

// WriteJournal implements state.Backend.
func (b *Backend) WriteJournal(_ context.Context, stack state.StackID, token string, data []byte) error {
	return b.fenced(stack, token, func(s *stackBytes) error {
		s.journal = bytes.Clone(data)
		return nil
	})
}

// AppendJournal implements state.Backend. Like the file store's, it
// appends only to a journal that was written (WriteJournal) and is still
// there.
func (b *Backend) AppendJournal(_ context.Context, stack state.StackID, token string, data []byte) error {
	return b.fenced(stack, token, func(s *stackBytes) error {
		if s.journal == nil {
			return fmt.Errorf("the journal of stack %q: %w", stack, fs.ErrNotExist)
		}
		s.journal = append(s.journal, data...)
		return nil
	})
}

// DeleteStack implements state.Backend.
func (b *Backend) DeleteStack(_ context.Context, stack state.StackID, token string) error {
	return b.fenced(stack, token, func(s *stackBytes) error {
		s.snapshot, s.journal, s.history = nil, nil, nil
		return nil
	})
}

// AppendHistory implements state.HistoryBackend.
func (b *Backend) AppendHistory(_ context.Context, stack state.StackID, token string, data []byte) error {
	return b.fenced(stack, token, func(s *stackBytes) error {
		s.history = append(s.history, data...)
		return nil
	})
}

// ReadHistoryTail implements state.HistoryTailReader.
func (b *Backend) ReadHistoryTail(_ context.Context, stack state.StackID, n int64) ([]byte, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stacks[stack]
	if s == nil {
		return nil, true, nil
	}
	if int64(len(s.history)) <= n {
		return bytes.Clone(s.history), true, nil
	}
	return bytes.Clone(s.history[int64(len(s.history))-n:]), false, nil
}

// ReadHistory implements state.HistoryBackend.
func (b *Backend) ReadHistory(_ context.Context, stack state.StackID) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.stacks[stack]; s != nil {
		return bytes.Clone(s.history), nil
	}
	return nil, nil
}
