package store

import "github.com/groundwork-iac/groundwork/state"

// Reopen returns another MemoryStore over the same stacks: what a second
// process opening the same storage would see. It starts with s's options
// (its secrets provider among them) followed by opts, and holds none of s's
// locks or journals, so tests can exercise contention and crash replay
// between the two.
func (s *MemoryStore) Reopen(opts ...state.Option) *MemoryStore {
	o := s.opts
	return &MemoryStore{core: newCore(s.mem, opts, o), mem: s.mem}
}
