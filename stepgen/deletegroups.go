package stepgen

import (
	"slices"

	"github.com/groundwork-iac/groundwork/resource"
)

// deleteGroups gathers each doomed resource deleted with another doomed one
// (deletedWith) around the delete that takes it along: that of the last
// resource of its chain of targets (c, for a and b in a → b → c, each
// deleted with the next). Such a resource — a rider — is not deleted
// through its provider, and its record leaves the state in the journal
// entry of that delete (Step.With), once it succeeded: never before, since
// the delete may fail and the rider would then exist unrecorded. A group is
// ordered as one node: what depends on any member is deleted before it, and
// what any member depends on, after it.
//
// A resource goes with its target only when exactly one recorded copy of
// the target is doomed: when several are (a live record and an old copy
// left by an earlier replacement), which holds it is unknown. And a group
// that something outside it both depends on and is depended on by (a table
// deleted with its database that also depends on a schema in that
// database) cannot be removed at once; it is dissolved. Those riders are
// deleted through their providers, like any other resource.
//
// A nil *deleteGroups has no groups.
type deleteGroups struct {
	// node[i] is the index of the resource whose chain deletes doomed[i]:
	// the end of its chain of targets for a rider, i otherwise.
	node []int
	// riders[n] lists the riders of node n, in the order of doomed.
	riders map[int][]int
}

// newDeleteGroups finds the riders among doomed; it returns nil when there
// are none.
func newDeleteGroups(doomed []*resource.State, byURN map[resource.URN][]int) *deleteGroups {
	var target []int // target[i]: the doomed copy doomed[i] goes with, or -1
	for i, s := range doomed {
		if s.DeletedWith == "" {
			continue
		}
		copies := byURN[s.DeletedWith]
		if len(copies) != 1 || copies[0] == i {
			continue
		}
		if target == nil {
			target = make([]int, len(doomed))
			for j := range target {
				target[j] = -1
			}
		}
		target[i] = copies[0]
	}
	if target == nil {
		return nil
	}
	gr := &deleteGroups{node: make([]int, len(doomed)), riders: map[int][]int{}}
	for i := range gr.node {
		gr.node[i] = i
	}
	for i := range doomed {
		if r := chainEnd(target, i); r != i && r >= 0 {
			gr.node[i] = r
			gr.riders[r] = append(gr.riders[r], i)
		}
	}
	return gr
}

// chainEnd follows i's chain of targets to its end, or returns -1 if the
// chain is a cycle (an invalid state). It shortens the chain as it goes,
// so following every chain costs O(V) in all.
func chainEnd(target []int, i int) int {
	r := i
	for n := 0; target[r] >= 0; n++ {
		if n > len(target) {
			return -1
		}
		r = target[r]
	}
	for target[i] >= 0 && target[i] != r {
		i, target[i] = target[i], r
	}
	return r
}

// nodeOf returns the node whose chain deletes doomed[i].
func (gr *deleteGroups) nodeOf(i int) int {
	if gr == nil {
		return i
	}
	return gr.node[i]
}

// ridersOf returns the riders of node n.
func (gr *deleteGroups) ridersOf(n int) []int {
	if gr == nil {
		return nil
	}
	return gr.riders[n]
}

// order cuts the graph of nodes into antichains, dependents first, as the
// reference engine cuts it: each node goes in the antichain that the
// longest chain of doomed dependencies below it sets, the antichains
// running from the highest down. So a resource is deleted as late as its
// dependencies allow, and one that depends on nothing doomed goes in the
// last antichain, beside the deepest dependencies; when a delete fails,
// the deletes that ran before it are those the reference engine runs.
// stuck lists the nodes that never become ready: they are on a cycle (an
// invalid state), or a node on a cycle depends on them.
//
// floor, if not nil, gives each resource a least height: its height among
// everything that would go but for protection (see deleteSchedule), so that
// a resource comes as late as the reference engine, which schedules the
// protected resources and what they depend on too, has it come.
//
// deps are the graph's edges, dependents the same edges reversed.
func (gr *deleteGroups) order(doomed []*resource.State, deps doomedDeps, dependents [][]int, floor func(*resource.State) int) (layers [][]int, stuck []int) {
	layers, stuck = gr.dependentsFirst(doomed, deps, dependents)
	return gr.latest(layers, doomed, deps, floor), stuck
}

// dependencyFunc calls fn for every URN s depends on.
type dependencyFunc func(s *resource.State, fn func(resource.URN))

// doomedDeps lists, for each doomed resource, the other doomed resources
// it depends on, by index in doomed: the delete graph's edges, worked out
// once for every pass over the graph. A resource named twice among a
// state's dependencies is listed twice.
type doomedDeps struct {
	// The dependencies of doomed[i] are edges[start[i]:start[i+1]].
	start, edges []int
}

// newDoomedDeps resolves the URNs depsOf gives for each doomed resource
// through byURN (see deleteAntichains).
func newDoomedDeps(doomed []*resource.State, byURN map[resource.URN][]int, depsOf dependencyFunc) doomedDeps {
	d := doomedDeps{start: make([]int, len(doomed)+1), edges: make([]int, 0, len(doomed))}
	var at int
	add := func(dep resource.URN) {
		for _, j := range byURN[dep] {
			if j != at {
				d.edges = append(d.edges, j)
			}
		}
	}
	for i, s := range doomed {
		at, d.start[i] = i, len(d.edges)
		depsOf(s, add)
	}
	d.start[len(doomed)] = len(d.edges)
	return d
}

// of returns the dependencies of doomed[i].
func (d doomedDeps) of(i int) []int { return d.edges[d.start[i]:d.start[i+1]] }

// latest re-cuts layers — antichains in which every node comes as soon as
// what depends on it is gone — so that every node comes as late as what it
// depends on allows: at its height, the length of the longest chain of
// doomed dependencies below it, highest first. Walking layers backwards
// meets every node after its dependencies; O(V+E).
func (gr *deleteGroups) latest(layers [][]int, doomed []*resource.State, deps doomedDeps, floor func(*resource.State) int) [][]int {
	height := make([]int, len(doomed))
	for i := range height {
		height[i] = -1
	}
	top := 0
	for i := len(layers) - 1; i >= 0; i-- {
		for _, n := range layers[i] {
			h := 0
			raise := func(m int) {
				if floor != nil {
					h = max(h, floor(doomed[m]))
				}
				for _, j := range deps.of(m) {
					if b := gr.nodeOf(j); b != n && height[b] >= 0 {
						h = max(h, height[b]+1)
					}
				}
			}
			raise(n)
			for _, m := range gr.ridersOf(n) {
				raise(m)
			}
			height[n], top = h, max(top, h)
		}
	}
	out := make([][]int, top+1)
	for n, h := range height {
		if h >= 0 {
			out[top-h] = append(out[top-h], n)
		}
	}
	// A height with no doomed node (a floor skipped it) is no antichain.
	return slices.DeleteFunc(out, func(l []int) bool { return len(l) == 0 })
}

// dependentsFirst cuts the graph of nodes into antichains, dependents
// first, each node as soon as what depends on it is gone (Kahn's
// algorithm, O(V+E)). stuck lists the nodes that never became ready: they
// are on a cycle, or a node on a cycle depends on them.
func (gr *deleteGroups) dependentsFirst(doomed []*resource.State, deps doomedDeps, dependents [][]int) (layers [][]int, stuck []int) {
	// blockers[n] counts the dependencies on node n of other nodes: n can
	// be deleted once they are gone.
	blockers := make([]int, len(doomed))
	for i, ds := range dependents {
		for _, d := range ds {
			if n := gr.nodeOf(i); gr.nodeOf(d) != n {
				blockers[n]++
			}
		}
	}
	ready := make([]int, 0, len(doomed))
	for i := range doomed {
		if gr.nodeOf(i) == i && blockers[i] == 0 {
			ready = append(ready, i)
		}
	}
	for len(ready) > 0 {
		layers = append(layers, ready)
		var next []int
		release := func(n, m int) {
			for _, j := range deps.of(m) {
				if b := gr.nodeOf(j); b != n {
					if blockers[b]--; blockers[b] == 0 {
						next = append(next, b)
					}
				}
			}
		}
		for _, n := range ready {
			release(n, n)
			for _, m := range gr.ridersOf(n) {
				release(n, m)
			}
		}
		ready = next
	}
	for i, b := range blockers {
		if b > 0 && gr.nodeOf(i) == i {
			stuck = append(stuck, i)
		}
	}
	return layers, stuck
}

// dissolve breaks up the groups of the stuck nodes: a group that something
// outside it both depends on and is depended on by can never go at once.
// (Nodes stuck on a cycle the state itself holds lose their groups too.)
// It reports whether it dissolved any.
func (gr *deleteGroups) dissolve(stuck []int) bool {
	if gr == nil {
		return false
	}
	dissolved := false
	for _, n := range stuck {
		for _, r := range gr.riders[n] {
			gr.node[r] = r
			dissolved = true
		}
		delete(gr.riders, n)
	}
	return dissolved
}
