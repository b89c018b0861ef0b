package stepgen

import (
	"slices"
	"time"

	"github.com/groundwork-iac/groundwork/resource"
)

// A protected resource the program no longer declares (or that a destroy
// would delete) is not deleted. Neither is anything it still depends on,
// since it stays; everything else that goes, goes, and the operation then
// fails naming the protected resource, as the reference engine does.

// Refused returns the deletes that the last call to Deletes refused: one
// step for each protected resource it would have deleted, in snapshot
// order, but those that another protected resource depends on (they stay
// as its dependencies, as in the reference engine, which never gets to
// their deletes). Such a step calls no provider and records nothing: Apply
// (and Step.Refused) return its *ProtectedError. A host reports each as a
// failed step once the deletes that could go ahead have run; a refusal
// must not stop them, as the failure of a step that ran would. These steps
// are not outstanding (Settled does not wait for them); a host that ends
// every step in one place may give their outcomes to Done, which takes
// note of nothing and returns no actions.
func (g *Generator) Refused() []*Step { return g.refused }

// refuseDeletes returns the refused deletes of the protected resources.
func (g *Generator) refuseDeletes(protected []*resource.State) []*Step {
	if len(protected) == 0 {
		return nil
	}
	steps := make([]*Step, len(protected))
	for i, s := range protected {
		st := g.step(OpDelete, s.URN, s, nil, nil)
		st.refuse(&ProtectedError{URN: s.URN, Action: "delete"})
		st.more().held = true
		steps[i] = st
	}
	return steps
}

// spareDependencies returns doomed without every resource that one of the
// protected resources depends on, directly or not: its provider, parent,
// dependencies, property dependencies and deleted-with target, and theirs;
// and the refused deletes of the protected resources that none of the
// others depends on (or of all of them, should they depend on each other
// in a cycle, which a valid state does not hold).
//
// The walk follows the records as this run leaves them: a resource the
// program registered again leads nowhere, since its new record depends only
// on what the program registered. The reference engine's walk follows the
// last snapshot's records, old records of resources registered again
// included, but holds back only the deletes it schedules after the
// protected resource's refused one: what that wider walk reaches is spared
// too when floor, the place in the reference engine's schedule
// (deleteSchedule), puts it below the protected resource. A reference names a live record when there is
// one, unless it comes from a copy marked for deletion, which refers to
// copies marked for deletion first; the old copy of a resource replaced in
// this run counts as marked, since a record written before the replacement
// refers to it. Where several copies marked for deletion share a URN, all of
// them are spared.
func (g *Generator) spareDependencies(doomed, protected []*resource.State, floor func(*resource.State) int) ([]*resource.State, []*Step) {
	if len(protected) == 0 {
		return doomed, nil
	}
	idx := g.recordIndex()
	// rewritten marks the old records of the resources the program
	// registered again whose new record is written: a new record depends
	// only on what the program registered, none of it doomed.
	rewritten := make(map[*resource.State]bool, len(g.urns))
	for _, e := range g.urns {
		if e.registered && e.took != nil && e.new != nil {
			rewritten[e.took] = true
		}
	}
	spared := make(map[*resource.State]bool)
	// depended marks what a record reached depends on.
	depended := make(map[*resource.State]bool)
	stack := slices.Clone(protected)
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if spared[s] {
			continue
		}
		spared[s] = true
		if rewritten[s] {
			continue
		}
		forEachDependency(s, func(dep resource.URN) {
			n := len(stack)
			stack = idx.appendLookup(stack, s, dep)
			for _, d := range stack[n:] {
				depended[d] = true
			}
		})
	}
	for _, p := range protected {
		for d := range idx.reach(p) {
			if floor(d) < floor(p) {
				spared[d], depended[d] = true, true
			}
		}
	}
	refused := slices.DeleteFunc(slices.Clone(protected), func(s *resource.State) bool { return depended[s] })
	if len(refused) == 0 {
		refused = protected
	}
	return slices.DeleteFunc(doomed, func(s *resource.State) bool { return spared[s] }), g.refuseDeletes(refused)
}

// reach returns what p depends on, directly or not, in the last snapshot's
// records: the wider walk of spareDependencies.
func (r *oldRecords) reach(p *resource.State) map[*resource.State]bool {
	reached := map[*resource.State]bool{}
	stack := []*resource.State{p}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		var found []*resource.State
		forEachDependency(s, func(dep resource.URN) { found = r.appendLookup(found, s, dep) })
		for _, d := range found {
			if !reached[d] && d != p {
				reached[d] = true
				stack = append(stack, d)
			}
		}
	}
	return reached
}

// oldRecords indexes the records of the last snapshot as the walk of
// spareDependencies sees them.
type oldRecords struct {
	states []*resource.State
	// byURN maps the URNs of states, and those they were known by, to
	// their indexes.
	byURN map[resource.URN][]int
}

// recordIndex returns the live records of the old resources (as the
// generator holds them now) that were not replaced in this run, and every
// copy marked for deletion.
func (g *Generator) recordIndex() *oldRecords {
	replacedNow := make(map[resource.URN]bool, len(g.condemned)-g.leftovers)
	for _, s := range g.condemned[g.leftovers:] {
		replacedNow[s.URN] = true
	}
	states := make([]*resource.State, 0, len(g.cfg.Old))
	for _, s := range g.cfg.Old {
		if cur := g.Old(s.URN); !s.Delete && cur != nil && !replacedNow[s.URN] {
			states = append(states, cur)
		}
	}
	states = append(states, g.condemned...)
	byURN := make(map[resource.URN][]int, len(states))
	for i, s := range states {
		byURN[s.URN] = append(byURN[s.URN], i)
	}
	resolveAliases(byURN, states)
	return &oldRecords{states: states, byURN: byURN}
}

// appendLookup appends to out the records that from's reference to urn
// names (see spareDependencies).
func (r *oldRecords) appendLookup(out []*resource.State, from *resource.State, urn resource.URN) []*resource.State {
	var live, marked bool
	for _, i := range r.byURN[urn] {
		if r.states[i].Delete {
			marked = true
		} else {
			live = true
		}
	}
	// Both kinds exist: a live record refers to the live one, a marked
	// copy to the marked ones.
	wantMarked := marked && (!live || from.Delete)
	for _, i := range r.byURN[urn] {
		if s := r.states[i]; s.Delete == wantMarked {
			out = append(out, s)
		}
	}
	return out
}

// refusalBlockers are the doomed resources whose failed (or skipped) delete
// keeps a refused delete from being reported, as the reference engine never
// reaches it then.
type refusalBlockers struct {
	// before come earlier in the reference engine's schedule: further
	// from the bottom of the dependency graph of every resource that
	// goes, the protected ones and what they depend on included.
	before []*resource.State
	// dependents depend on the protected resource, directly or not.
	dependents []*resource.State
}

// RefusalBlockers returns the recorded resources (the Old of their delete
// steps) whose failed or skipped delete means refused, a step Refused
// returned, is not to be reported: the reference engine schedules the
// delete of a protected resource like any other, in the antichain its
// place in the dependency graph of everything that goes sets, and reaches
// it only if no delete scheduled before it failed (with continue-on-error:
// none of those that depend on it). They are records, not URNs: a copy
// marked for deletion shares its URN with the live resource, and each has
// its own place in the schedule.
func (g *Generator) RefusalBlockers(refused *Step, continueOnError bool) []*resource.State {
	b := g.blockers[refused]
	if continueOnError {
		return b.dependents
	}
	return b.before
}

// deleteSchedule is the dependency graph of everything that would go but
// for protection — the protected resources and what they depend on
// included — as the reference engine schedules it: each resource at its
// height, the length of the longest chain of such resources it depends on.
type deleteSchedule struct {
	all        []*resource.State
	index      map[*resource.State]int
	dependents [][]int // dependents[i] lists the states that depend on all[i]
	height     []int
}

// A record depends on another of all only where recordedAgainst says so:
// the reference engine reads a dependency only on the records before the
// dependent in its snapshot, where a copy an update left marked for
// deletion sits after every record that update wrote (see leftoverLinks).
func newDeleteSchedule(all []*resource.State, depsOf dependencyFunc, recordedAgainst func(from, marked *resource.State) bool) *deleteSchedule {
	byURN := make(map[resource.URN][]int, len(all))
	index := make(map[*resource.State]int, len(all))
	for i, s := range all {
		byURN[s.URN] = append(byURN[s.URN], i)
		index[s] = i
	}
	resolveAliases(byURN, all)
	dependents := make([][]int, len(all))
	for i, s := range all {
		depsOf(s, func(dep resource.URN) {
			for _, j := range byURN[dep] {
				if j != i && recordedAgainst(s, all[j]) {
					dependents[j] = append(dependents[j], i)
				}
			}
		})
	}
	return &deleteSchedule{all: all, index: index, dependents: dependents, height: heights(all, dependents)}
}

// leftoverLinks returns the recordedAgainst test of newDeleteSchedule. A
// live record written (created or updated) no earlier than the live record
// of a URN was created refers to that record, not to a copy of the URN an
// earlier update left marked for deletion: it was written by the update
// that replaced the copy, or by a later one, and the reference engine's
// snapshot holds it before that copy. Any other reference (from a marked
// copy, to a copy marked in this run, or where a record carries no times)
// is taken as a dependency: a dependency too many only orders deletes more
// strictly.
func (g *Generator) leftoverLinks() func(from, marked *resource.State) bool {
	leftover := make(map[*resource.State]bool, g.leftovers)
	for _, s := range g.condemned[:g.leftovers] {
		leftover[s] = true
	}
	if len(leftover) == 0 {
		return func(_, _ *resource.State) bool { return true }
	}
	successor := make(map[resource.URN]time.Time, len(g.cfg.Old))
	for _, s := range g.cfg.Old {
		if !s.Delete {
			successor[s.URN] = s.Created
		}
	}
	return func(from, to *resource.State) bool {
		if from.Delete || !leftover[to] {
			return true
		}
		created := successor[to.URN]
		return created.IsZero() || from.Modified.IsZero() || from.Modified.Before(created)
	}
}

// floor returns s's height in the schedule (0 for a state it does not
// hold).
func (d *deleteSchedule) floor(s *resource.State) int {
	if i, ok := d.index[s]; ok {
		return max(d.height[i], 0)
	}
	return 0
}

// blockers finds the blockers of each refused delete; doomed is what goes.
func (d *deleteSchedule) blockers(doomed []*resource.State, refused []*Step) map[*Step]refusalBlockers {
	if len(refused) == 0 {
		return nil
	}
	going := make(map[*resource.State]bool, len(doomed))
	for _, s := range doomed {
		going[s] = true
	}
	out := make(map[*Step]refusalBlockers, len(refused))
	for _, st := range refused {
		p := d.index[st.Old]
		var b refusalBlockers
		for i, s := range d.all {
			if going[s] && d.height[i] > d.height[p] {
				b.before = append(b.before, s)
			}
		}
		seen := map[int]bool{p: true}
		queue := []int{p}
		for len(queue) > 0 {
			n := queue[0]
			queue = queue[1:]
			for _, dep := range d.dependents[n] {
				if !seen[dep] {
					seen[dep] = true
					queue = append(queue, dep)
					if going[d.all[dep]] {
						b.dependents = append(b.dependents, d.all[dep])
					}
				}
			}
		}
		out[st] = b
	}
	return out
}

// heights returns, for each of states, the length of the longest chain of
// its dependencies among states (-1 for those on or above a cycle, which
// a valid state does not hold); dependents[i] lists the states that depend
// on states[i].
func heights(states []*resource.State, dependents [][]int) []int {
	pending := make([]int, len(states)) // dependencies not yet placed
	for _, ds := range dependents {
		for _, d := range ds {
			pending[d]++
		}
	}
	height := make([]int, len(states))
	var ready []int
	for i := range states {
		height[i] = -1
		if pending[i] == 0 {
			height[i] = 0
			ready = append(ready, i)
		}
	}
	for len(ready) > 0 {
		n := ready[0]
		ready = ready[1:]
		for _, d := range dependents[n] {
			height[d] = max(height[d], height[n]+1)
			if pending[d]--; pending[d] == 0 {
				ready = append(ready, d)
			}
		}
	}
	return height
}
