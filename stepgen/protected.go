package stepgen

import (
	"slices"

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
// must not stop them, as the failure of a step that ran would.
func (g *Generator) Refused() []*Step { return g.refused }

// refuseDeletes returns the refused deletes of the protected resources.
func (g *Generator) refuseDeletes(protected []*resource.State) []*Step {
	if len(protected) == 0 {
		return nil
	}
	steps := make([]*Step, len(protected))
	for i, s := range protected {
		st := g.step(OpDelete, s.URN, s, nil, nil)
		st.refused = &ProtectedError{URN: s.URN, Action: "delete"}
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
// The walk follows the records of the last snapshot, as the reference
// engine's does: a resource the program registered again leads on to what
// its old record depended on. A reference names a live record when there is
// one, unless it comes from a copy marked for deletion, which refers to
// copies marked for deletion first; the old copy of a resource replaced in
// this run counts as marked, since a record written before the replacement
// refers to it. Where several copies marked for deletion share a URN, all of
// them are spared.
func (g *Generator) spareDependencies(doomed, protected []*resource.State) ([]*resource.State, []*Step) {
	if len(protected) == 0 {
		return doomed, nil
	}
	idx := g.recordIndex()
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
		forEachDependency(s, func(dep resource.URN) {
			n := len(stack)
			stack = idx.appendLookup(stack, s, dep)
			for _, d := range stack[n:] {
				depended[d] = true
			}
		})
	}
	refused := slices.DeleteFunc(slices.Clone(protected), func(s *resource.State) bool { return depended[s] })
	if len(refused) == 0 {
		refused = protected
	}
	return slices.DeleteFunc(doomed, func(s *resource.State) bool { return spared[s] }), g.refuseDeletes(refused)
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
	states := make([]*resource.State, 0, len(g.olds)+len(g.condemned))
	for _, s := range g.cfg.Old {
		if cur := g.olds[s.URN]; !s.Delete && cur != nil && !replacedNow[s.URN] {
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
