package dag

// index finds a walker's vertices by ID. A host usually numbers its
// vertices in the order it adds them, from 1: those IDs are kept by
// position in a slice, which is smaller than a map and reached without
// hashing (it is the walker's most frequent lookup, under its lock, for
// every vertex added and every vertex ended). An ID far beyond the others
// is kept in a map instead, so that IDs chosen any other way cost no more
// than a map.
type index[T any] struct {
	// dense holds the vertex of each ID below its length (dense[0] is
	// never set: zero names no vertex).
	dense []*node[T]
	// sparse holds the vertices whose ID was more than denseGap beyond
	// dense's end when they were added; nil until there is one.
	sparse map[uint64]*node[T]
}

// denseGap is how far beyond the IDs kept in order an ID may be and still
// be kept by position, the IDs between left empty.
const denseGap = 64

// newIndex returns an index with room for size IDs numbered in order.
func newIndex[T any](size int) index[T] {
	return index[T]{dense: make([]*node[T], 1, max(size, 0)+1)}
}

// get returns the vertex of id, or nil if none was put.
func (x *index[T]) get(id uint64) *node[T] {
	if id < uint64(len(x.dense)) {
		if n := x.dense[id]; n != nil || x.sparse == nil {
			return n
		}
	}
	return x.sparse[id]
}

// put sets the vertex of id, where it is kept already if it is.
func (x *index[T]) put(id uint64, n *node[T]) {
	if x.sparse != nil {
		if _, ok := x.sparse[id]; ok {
			x.sparse[id] = n
			return
		}
	}
	end := uint64(len(x.dense))
	switch {
	case id < end:
		x.dense[id] = n
	case id-end <= denseGap:
		for range id - end {
			x.dense = append(x.dense, nil)
		}
		x.dense = append(x.dense, n)
	default:
		if x.sparse == nil {
			x.sparse = make(map[uint64]*node[T])
		}
		x.sparse[id] = n
	}
}
