package resource

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Graph is the dependency graph of a list of resource states. A state
// depends on its parent, its dependencies, its property dependencies, the
// resource it is deleted with, and its provider (the URN part of its
// provider reference). A Graph is immutable once built and safe for
// concurrent use.
//
// Nodes are the states themselves, identified by their position in the
// list, not by URN: a snapshot may hold a URN twice, as the old copy of a
// replaced resource (Delete set) and its live replacement. References
// between resources are by URN, so each is resolved to the live
// (non-Delete) state of that URN, or, if there is none, to the last Delete
// copy in the list. A Delete copy therefore has dependencies but never
// dependents. A reference to a URN that no state holds resolves to the
// state that lists it among its Aliases (a renamed resource whose old URN a
// record still names), preferring a live state, as the state package orders
// and checks snapshots. References to URNs that are not in the list are
// ignored, so a graph may be built over part of a snapshot. Lookup and the
// methods that take URNs know states by their own URNs only.
type Graph struct {
	states []*State
	byURN  map[URN]int32
	// byAlias resolves references to old URNs of renamed states; nil when
	// no state has aliases.
	byAlias map[URN]int32
	// Dependencies of node i are deps[depOff[i]:depOff[i+1]], and its
	// dependents are revs[revOff[i]:revOff[i+1]], each sorted by index.
	depOff, deps []int32
	revOff, revs []int32

	indexOnce sync.Once
	byState   map[*State]int32
}

// NewGraph builds the dependency graph of states. It fails if a state is
// nil or if two states that are not marked Delete share a URN. Cycles are
// not an error here; TopologicalOrder and the antichain methods report
// them.
func NewGraph(states []*State) (*Graph, error) {
	n := len(states)
	if int64(n) >= 1<<31 {
		return nil, fmt.Errorf("%d resources is more than a graph can hold", n)
	}
	g := &Graph{states: states, byURN: make(map[URN]int32, n)}
	for i, s := range states {
		if s == nil {
			return nil, fmt.Errorf("resource at position %d is nil", i)
		}
		if j, ok := g.byURN[s.URN]; ok && !states[j].Delete && !s.Delete {
			return nil, fmt.Errorf("resource %s appears twice (positions %d and %d) and neither copy is marked for deletion", s.URN, j, i)
		}
		if j, ok := g.byURN[s.URN]; !ok || states[j].Delete {
			g.byURN[s.URN] = int32(i)
		}
	}
	g.indexAliases()
	g.depOff = make([]int32, n+1)
	g.deps = make([]int32, 0, n*2)
	var scratch []int32
	for i, s := range states {
		scratch = g.appendTargets(scratch[:0], s)
		slices.Sort(scratch)
		g.deps = append(g.deps, slices.Compact(scratch)...)
		g.depOff[i+1] = int32(len(g.deps))
	}
	g.buildReverse()
	return g, nil
}

// indexAliases fills byAlias with the aliases no state holds as its URN.
func (g *Graph) indexAliases() {
	for i, s := range g.states {
		for _, a := range s.Aliases {
			if _, held := g.byURN[a]; held {
				continue
			}
			if g.byAlias == nil {
				g.byAlias = make(map[URN]int32)
			}
			if j, ok := g.byAlias[a]; !ok || (g.states[j].Delete && !s.Delete) {
				g.byAlias[a] = int32(i)
			}
		}
	}
}

// appendTargets appends the nodes s refers to.
func (g *Graph) appendTargets(out []int32, s *State) []int32 {
	add := func(u URN) {
		if u == "" {
			return
		}
		if j, ok := g.byURN[u]; ok {
			out = append(out, j)
		} else if j, ok := g.byAlias[u]; ok {
			out = append(out, j)
		}
	}
	add(s.Parent)
	for _, d := range s.Dependencies {
		add(d)
	}
	for _, ds := range s.PropertyDependencies {
		for _, d := range ds {
			add(d)
		}
	}
	add(s.DeletedWith)
	if s.Provider != "" {
		if u, _, ok := splitProviderRef(s.Provider); ok {
			add(u)
		}
	}
	return out
}

// buildReverse fills revOff and revs from depOff and deps by counting.
func (g *Graph) buildReverse() {
	n := len(g.states)
	g.revOff = make([]int32, n+1)
	for _, t := range g.deps {
		g.revOff[t+1]++
	}
	for i := 0; i < n; i++ {
		g.revOff[i+1] += g.revOff[i]
	}
	g.revs = make([]int32, len(g.deps))
	fill := slices.Clone(g.revOff[:n])
	for u := 0; u < n; u++ {
		for _, t := range g.depsOf(int32(u)) {
			g.revs[fill[t]] = int32(u)
			fill[t]++
		}
	}
}

func (g *Graph) depsOf(i int32) []int32 { return g.deps[g.depOff[i]:g.depOff[i+1]] }
func (g *Graph) revsOf(i int32) []int32 { return g.revs[g.revOff[i]:g.revOff[i+1]] }

// splitProviderRef splits a provider reference "<URN>::<ID>" at its last
// "::" (a URN contains "::" itself; an ID does not).
func splitProviderRef(ref string) (URN, ID, bool) {
	i := strings.LastIndex(ref, urnDelimiter)
	if i < 0 {
		return "", "", false
	}
	return URN(ref[:i]), ID(ref[i+len(urnDelimiter):]), true
}

// Len returns the number of states in the graph.
func (g *Graph) Len() int { return len(g.states) }

// States returns the graph's states in the order given to NewGraph. The
// caller must not modify the slice.
func (g *Graph) States() []*State { return g.states }

// Lookup returns the state a reference to urn resolves to: the live state,
// or the last Delete copy if there is no live one.
func (g *Graph) Lookup(urn URN) (*State, bool) {
	i, ok := g.byURN[urn]
	if !ok {
		return nil, false
	}
	return g.states[i], true
}

// DependenciesOf returns the URNs that urn's state depends on directly, in
// the order of the graph's states. It returns nil for an unknown URN.
func (g *Graph) DependenciesOf(urn URN) []URN {
	i, ok := g.byURN[urn]
	if !ok {
		return nil
	}
	return g.urns(g.depsOf(i))
}

// DependentsOf returns the URNs of the states that depend directly on urn,
// in the order of the graph's states, each once. It returns nil for an
// unknown URN.
func (g *Graph) DependentsOf(urn URN) []URN {
	i, ok := g.byURN[urn]
	if !ok {
		return nil
	}
	return g.urns(g.revsOf(i))
}

// urns maps sorted node indices to URNs, dropping repeated URNs (a Delete
// copy and its replacement share one).
func (g *Graph) urns(nodes []int32) []URN {
	if len(nodes) == 0 {
		return nil
	}
	out := make([]URN, 0, len(nodes))
	seen := make(map[URN]struct{}, len(nodes))
	for _, j := range nodes {
		u := g.states[j].URN
		if _, dup := seen[u]; !dup {
			seen[u] = struct{}{}
			out = append(out, u)
		}
	}
	return out
}

// TransitiveDependents returns the URNs of every state that depends,
// directly or through other states, on any of urns: the resources that
// would be left with a dangling reference if those were deleted. The
// given URNs themselves are not included, unknown URNs are ignored, and
// the result is in the order of the graph's states.
func (g *Graph) TransitiveDependents(urns ...URN) []URN {
	seen := make([]bool, len(g.states))
	var queue []int32
	start := make(map[URN]bool, len(urns))
	for _, u := range urns {
		start[u] = true
		if i, ok := g.byURN[u]; ok && !seen[i] {
			seen[i] = true
			queue = append(queue, i)
		}
	}
	var found []int32
	for len(queue) > 0 {
		i := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, d := range g.revsOf(i) {
			if !seen[d] {
				seen[d] = true
				queue = append(queue, d)
				if !start[g.states[d].URN] {
					found = append(found, d)
				}
			}
		}
	}
	slices.Sort(found)
	return g.urns(found)
}

// indexOf returns the node of a state (by identity).
func (g *Graph) indexOf(s *State) (int32, bool) {
	g.indexOnce.Do(func() {
		g.byState = make(map[*State]int32, len(g.states))
		for i, s := range g.states {
			g.byState[s] = int32(i)
		}
	})
	i, ok := g.byState[s]
	return i, ok
}
