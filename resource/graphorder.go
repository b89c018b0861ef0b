package resource

import (
	"fmt"
	"slices"
	"strings"
)

// CycleError reports a dependency cycle. URNs lists the resources on the
// cycle in order: each depends on the next, and the last depends on the
// first. A resource that depends on itself appears once.
type CycleError struct {
	URNs []URN
}

// Error describes the problem and where it is.
func (e *CycleError) Error() string {
	var b strings.Builder
	b.WriteString("dependency cycle: ")
	for _, u := range e.URNs {
		b.WriteString(string(u))
		b.WriteString(" -> ")
	}
	if len(e.URNs) > 0 {
		b.WriteString(string(e.URNs[0]))
	}
	b.WriteString(" (each depends on the next); break the cycle by removing one of these dependencies")
	return b.String()
}

// TopologicalOrder returns the states ordered so that every state comes
// after everything it depends on: the order in which to create them. The
// result depends only on the order given to NewGraph (a depth-first walk
// over the states in that order), and a list that is already in
// dependency order comes back unchanged. A cycle is reported as a
// *CycleError. It runs in O(V+E).
func (g *Graph) TopologicalOrder() ([]*State, error) {
	n := len(g.states)
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, n)
	order := make([]*State, 0, n)
	type frame struct{ node, next int32 }
	var stack []frame
	for root := int32(0); root < int32(n); root++ {
		if color[root] != white {
			continue
		}
		color[root] = grey
		stack = append(stack, frame{node: root, next: g.depOff[root]})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next == g.depOff[top.node+1] {
				color[top.node] = black
				order = append(order, g.states[top.node])
				stack = stack[:len(stack)-1]
				continue
			}
			t := g.deps[top.next]
			top.next++
			switch color[t] {
			case white:
				color[t] = grey
				stack = append(stack, frame{node: t, next: g.depOff[t]})
			case grey:
				// The stack from t to the top is a path where each node
				// depends on the next, and the top depends on t.
				start := len(stack) - 1
				for stack[start].node != t {
					start--
				}
				cycle := make([]URN, 0, len(stack)-start)
				for _, f := range stack[start:] {
					cycle = append(cycle, g.states[f.node].URN)
				}
				return nil, &CycleError{URNs: cycle}
			}
		}
	}
	return order, nil
}

// Antichains cuts the resources named by urns into groups for deletion:
// no resource in a group depends on another in the same group, so each
// group can be deleted in parallel, and the groups are returned in delete
// order. The first group holds the resources that no other member of the
// set depends on; a resource comes only after every member that depends on
// it, directly or through resources outside the set (a path A -> B -> C
// where only A and C are being deleted still puts A's group first). Each
// group is in the order of the graph's states.
//
// Each URN resolves as references do (to the live state); use AntichainsOf
// to include the Delete copies of replaced resources. An unknown URN is an
// error, and so is a cycle among the resources involved (*CycleError).
//
// The cost is O(V) to set up plus O(V'+E') for the part of the graph that
// the set reaches through its dependencies.
func (g *Graph) Antichains(urns []URN) ([][]URN, error) {
	set := make([]int32, 0, len(urns))
	for _, u := range urns {
		i, ok := g.byURN[u]
		if !ok {
			return nil, fmt.Errorf("resource %s is not in the graph", u)
		}
		set = append(set, i)
	}
	layers, err := g.antichains(set)
	if err != nil {
		return nil, err
	}
	out := make([][]URN, len(layers))
	for l, nodes := range layers {
		out[l] = make([]URN, len(nodes))
		for k, i := range nodes {
			out[l][k] = g.states[i].URN
		}
	}
	return out, nil
}

// AntichainsOf is Antichains over states of the graph, identified by
// pointer, so that a Delete copy and the live state of the same URN are
// told apart. A state that is not in the graph is an error.
func (g *Graph) AntichainsOf(states []*State) ([][]*State, error) {
	set := make([]int32, 0, len(states))
	for k, s := range states {
		i, ok := g.indexOf(s)
		if !ok {
			name := "nil"
			if s != nil {
				name = string(s.URN)
			}
			return nil, fmt.Errorf("state %d (%s) is not in the graph", k, name)
		}
		set = append(set, i)
	}
	layers, err := g.antichains(set)
	if err != nil {
		return nil, err
	}
	out := make([][]*State, len(layers))
	for l, nodes := range layers {
		out[l] = make([]*State, len(nodes))
		for k, i := range nodes {
			out[l][k] = g.states[i]
		}
	}
	return out, nil
}

// antichains layers set by longest path in the dependents direction.
//
// Let R be the set plus everything it depends on, directly or not; any
// path between two members lies inside R. Kahn's algorithm over R, taking
// a node once all its dependents in R are done, visits dependents before
// dependencies. Each node carries above[v]: 1 + the highest layer of a
// member that reaches v (0 if none). A member's layer is its above value;
// it passes layer+1 down, a non-member passes its above value through
// unchanged, so paths through non-members still order members.
func (g *Graph) antichains(set []int32) ([][]int32, error) {
	n := len(g.states)
	const (
		inR    = 1 << 0
		member = 1 << 1
		done   = 1 << 2
	)
	flags := make([]uint8, n)
	members := set[:0:0]
	var reach []int32
	for _, i := range set {
		if flags[i]&member == 0 {
			flags[i] |= member | inR
			members = append(members, i)
			reach = append(reach, i)
		}
	}
	for k := 0; k < len(reach); k++ { // R: closure over dependencies
		for _, t := range g.depsOf(reach[k]) {
			if flags[t]&inR == 0 {
				flags[t] |= inR
				reach = append(reach, t)
			}
		}
	}
	pending := make([]int32, n) // dependents in R not yet done
	for _, u := range reach {
		for _, t := range g.depsOf(u) {
			pending[t]++
		}
	}
	above := make([]int32, n)
	queue := make([]int32, 0, len(reach))
	for _, v := range reach {
		if pending[v] == 0 {
			queue = append(queue, v)
		}
	}
	layers := int32(0)
	for k := 0; k < len(queue); k++ {
		v := queue[k]
		flags[v] |= done
		carry := above[v]
		if flags[v]&member != 0 {
			carry++
			layers = max(layers, carry)
		}
		for _, t := range g.depsOf(v) {
			above[t] = max(above[t], carry)
			if pending[t]--; pending[t] == 0 {
				queue = append(queue, t)
			}
		}
	}
	if len(queue) < len(reach) {
		return nil, g.cycleAmong(reach, func(i int32) bool { return flags[i]&(inR|done) == inR })
	}
	slices.Sort(members)
	out := make([][]int32, layers)
	for _, i := range members {
		out[above[i]] = append(out[above[i]], i)
	}
	return out, nil
}

// cycleAmong finds a cycle among the nodes for which stuck is true, given
// that each of them has a dependent that is stuck too (what Kahn's
// algorithm leaves behind). It walks from dependency to dependent until a
// node repeats.
func (g *Graph) cycleAmong(nodes []int32, stuck func(int32) bool) error {
	var v int32 = -1
	for _, i := range nodes {
		if stuck(i) {
			v = i
			break
		}
	}
	pos := map[int32]int{}
	var walk []int32
	for {
		if v < 0 {
			return fmt.Errorf("dependency cycle among %d resources (could not trace it)", len(pos))
		}
		if p, seen := pos[v]; seen {
			walk = walk[p:]
			break
		}
		pos[v] = len(walk)
		walk = append(walk, v)
		next := int32(-1)
		for _, d := range g.revsOf(v) {
			if stuck(d) {
				next = d
				break
			}
		}
		v = next
	}
	// walk[k+1] depends on walk[k]; report each depending on the next.
	slices.Reverse(walk)
	cycle := make([]URN, len(walk))
	for k, i := range walk {
		cycle[k] = g.states[i].URN
	}
	return &CycleError{URNs: cycle}
}
