package format

import "github.com/groundwork-iac/groundwork/resource"

// EncodedStates remembers how the journal encoded the resource states its
// entries recorded, so that the snapshot a checkpoint writes copies those
// bytes instead of encoding every changed resource a second time. A
// success or write entry encodes its New exactly as a snapshot does (see
// EncodeEntry); a recorded State is immutable, so the bytes stay true for
// as long as the fold holds that State.
//
// At the end of an operation that created or updated every resource of a
// large stack, encoding the snapshot again was the longest serial stretch
// left: 40-70 ms of 10,000 resources on two cores (BENCHMARKS.md).
type EncodedStates struct {
	byState map[*resource.State][]byte
	// arena is the tail of the chunk the encodings are copied into, so
	// that remembering one costs no allocation of its own.
	arena []byte
}

// arenaChunk is the size of the chunks encodings are copied into.
const arenaChunk = 256 << 10

// Put remembers enc as the snapshot encoding of s, copying it.
func (c *EncodedStates) Put(s *resource.State, enc []byte) {
	if c.byState == nil {
		c.byState = make(map[*resource.State][]byte)
	}
	if cap(c.arena)-len(c.arena) < len(enc) {
		c.arena = make([]byte, 0, max(arenaChunk, len(enc)))
	}
	start := len(c.arena)
	c.arena = append(c.arena, enc...)
	c.byState[s] = c.arena[start:len(c.arena):len(c.arena)]
}

// get returns the remembered encoding of s, or nil. A nil *EncodedStates
// remembers nothing.
func (c *EncodedStates) get(s *resource.State) []byte {
	if c == nil {
		return nil
	}
	return c.byState[s]
}

// Reset forgets every encoding: after a checkpoint the fold starts anew
// from the snapshot written, and states it no longer holds must not be
// kept alive.
func (c *EncodedStates) Reset() {
	c.byState = nil
	c.arena = nil
}

// measure returns the total size of the encodings remembered for states,
// and how many of states have none.
func (c *EncodedStates) measure(states []*resource.State) (size, missing int) {
	if c == nil || len(c.byState) == 0 {
		return 0, len(states)
	}
	for _, s := range states {
		if e, ok := c.byState[s]; ok {
			size += len(e)
		} else {
			missing++
		}
	}
	return size, missing
}

// Len returns how many encodings c remembers.
func (c *EncodedStates) Len() int { return len(c.byState) }
