package state

import (
	"github.com/groundwork-iac/groundwork/resource"
)

// sortResources returns states in a stable dependency order: every resource
// after its parent, dependencies, property dependencies, deleted-with
// target and provider, and otherwise in the order given. It is a depth-first
// post-order walk that visits roots in the given order, so an already
// ordered list comes back unchanged. It runs in O(V+E) and uses no
// recursion, so a long dependency chain cannot exhaust the stack.
//
// A reference to a URN that has both a Delete-marked copy and a live copy
// resolves to the live copy; a live copy is also placed after the
// Delete-marked copies of its own URN. References to URNs that are not in
// the list, and edges that would close a cycle, are ignored here (the
// integrity check reports them).
func sortResources(states []*resource.State) []*resource.State {
	n := len(states)
	index := make(map[resource.URN]int32, n)
	var deleted map[resource.URN][]int32 // Delete-marked copies; rare
	for i, s := range states {
		j, ok := index[s.URN]
		if !ok || (states[j].Delete && !s.Delete) {
			index[s.URN] = int32(i)
		}

		if s.Delete {
			if deleted == nil {
				deleted = make(map[resource.URN][]int32)
			}
			deleted[s.URN] = append(deleted[s.URN], int32(i))
		}
	}
	// A reference to a renamed resource's old URN orders after the renamed
	// record, unless a record holds that URN itself.
	for i, s := range states {
		for _, a := range s.Aliases {
			if _, taken := index[a]; !taken {
				index[a] = int32(i)
			}
		}
	}

	const (
		unvisited = iota
		active
		done
	)
	mark := make([]uint8, n)
	out := make([]*resource.State, 0, n)
	// The walk keeps, for each node on the stack, the range of its edge
	// targets in edges; ranges nest like the stack, so popping a node
	// truncates edges back to where its range began.
	type frame struct{ node, lo, next, hi int32 }
	var stack []frame
	var edges []int32
	push := func(i int32) {
		mark[i] = active
		lo := int32(len(edges))
		edges = appendEdges(edges, states, i, index, deleted)
		stack = append(stack, frame{node: i, lo: lo, next: lo, hi: int32(len(edges))})
	}
	for root := range states {
		if mark[root] != unvisited {
			continue
		}
		push(int32(root))
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next < f.hi {
				t := edges[f.next]
				f.next++
				if mark[t] == unvisited {
					push(t)
				}
				continue
			}
			mark[f.node] = done
			out = append(out, states[f.node])
			edges = edges[:f.lo]
			stack = stack[:len(stack)-1]
		}
	}
	return out
}

// appendEdges appends the indexes of the resources states[i] must follow.
func appendEdges(edges []int32, states []*resource.State, i int32, index map[resource.URN]int32, deleted map[resource.URN][]int32) []int32 {
	s := states[i]
	add := func(u resource.URN) {
		if u == "" {
			return
		}
		if j, ok := index[u]; ok && j != i {
			edges = append(edges, j)
		}
	}
	if !s.Delete {
		for _, j := range deleted[s.URN] {
			edges = append(edges, j)
		}
	}
	add(s.Parent)
	if s.Provider != "" {
		if u, _, ok := ParseProviderReference(s.Provider); ok {
			add(u)
		}
	}
	for _, d := range s.Dependencies {
		add(d)
	}
	for _, k := range sortedKeys(s.PropertyDependencies) {
		for _, d := range s.PropertyDependencies[k] {
			add(d)
		}
	}
	add(s.DeletedWith)
	return edges
}
