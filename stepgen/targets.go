package stepgen

import (
	"fmt"
	"slices"

	"github.com/groundwork-iac/groundwork/resource"
)

// untargeted answers the registration of a resource outside the
// operation's targets without touching it: a recorded resource keeps its
// state exactly; a new one is not created, and its outputs are unknown so
// that a targeted resource needing them fails with a clear error.
func (g *Generator) untargeted(reg *Registration, old *resource.State) Actions {
	if old != nil {
		var acts Actions
		g.setNew(reg, old.URN, old)
		g.issueAlone(&acts, nil, g.loneStep(OpSame, old.URN, old, old, reg))
		return acts
	}
	goal := reg.Goal
	st := g.newState(reg.URN, goal, nil)
	outs := make(resource.PropertyMap, len(st.Inputs))
	for k := range st.Inputs {
		outs[k] = resource.NewUnknown()
	}
	st.Outputs = outs
	steps := g.loneStep(OpSame, reg.URN, nil, st, reg)
	steps[0].skipRecord = true
	var acts Actions
	g.issueAlone(&acts, nil, steps)
	return acts
}

// checkReferences refuses, outside a preview, a resource that refers to
// one this operation neither records nor creates — typically a new one
// outside the targets — before its provider creates anything: its record
// could never be written.
func (g *Generator) checkReferences(s *resource.State) error {
	if g.cfg.Preview {
		return nil
	}
	refs := append([]resource.URN{s.Parent, s.DeletedWith}, s.Dependencies...)
	for _, us := range s.PropertyDependencies {
		refs = append(refs, us...)
	}
	for _, u := range refs {
		if u == "" {
			continue
		}
		if e := g.at(u); e != nil && (e.new != nil || e.old != nil) {
			continue
		}
		return &RegistrationError{URN: s.URN, Reason: fmt.Sprintf(
			"it refers to %s, which this operation does not create (is it outside the targets?); target it too, or drop the reference", u)}
	}
	return nil
}

// importStep adopts an existing physical resource: its step reads it by ID,
// checks the program's inputs against what it read and refuses any
// difference.
func (g *Generator) importStep(reg *Registration, urn resource.URN, goal *resource.Goal) Actions {
	st := g.newState(urn, goal, nil)
	st.ID = goal.ImportID
	steps := g.loneStep(OpImport, urn, nil, st, reg)
	steps[0].more().seed = g.seed(urn)
	g.setNew(reg, urn, st)
	var acts Actions
	g.issueAlone(&acts, st, steps)
	return acts
}

// Refresh returns one step per recorded custom resource (within the
// targets) that reads it from its provider and records what it reports; a
// resource that no longer exists leaves the state. pending are the pending
// operations of the snapshot: a resource one of them left behind with a
// known ID and no record is read too, and recorded if it exists. The steps
// need nothing: they run in parallel.
func (g *Generator) Refresh(pending []resource.Operation) Actions {
	var acts Actions
	for _, s := range g.cfg.Old {
		if !s.Custom || s.IsProvider() || s.PendingReplacement || !g.targeted(s.URN) {
			continue
		}
		g.take(s, nil)
		g.issue(&acts, nil, g.step(OpRefresh, s.URN, s, s.Clone(), nil))
	}
	for _, op := range pending {
		r := op.Resource
		if r == nil || r.ID == "" || !r.Custom || r.IsProvider() || !g.targeted(r.URN) {
			continue
		}
		if slices.ContainsFunc(g.cfg.Old, func(s *resource.State) bool { return s.URN == r.URN && s.ID == r.ID }) {
			continue // the recorded resource (live or marked Delete) is refreshed above
		}
		g.issue(&acts, nil, g.step(OpRefresh, r.URN, nil, r.Clone(), nil))
	}
	g.seal(false)
	return acts
}

// TargetSets builds Config.Targets and Config.Excludes from the URNs an
// operation names, over old, the resources it starts from: nil for none
// named (no limit), and otherwise the URNs named and, when dependents is
// set, every resource of old not marked for deletion that depends on one
// of them, directly or not (resource.Graph.TransitiveDependents). A URN
// that does not parse is an error naming it.
func TargetSets(old []*resource.State, targets, excludes []resource.URN, dependents bool) (targetSet, excludeSet map[resource.URN]bool, err error) {
	if len(targets) == 0 && len(excludes) == 0 {
		return nil, nil, nil
	}
	var graph *resource.Graph
	if dependents {
		var live []*resource.State
		for _, s := range old {
			if !s.Delete {
				live = append(live, s)
			}
		}
		if graph, err = resource.NewGraph(live); err != nil {
			return nil, nil, fmt.Errorf("computing the dependents of the targets: %w", err)
		}
	}
	set := func(urns []resource.URN) (map[resource.URN]bool, error) {
		if len(urns) == 0 {
			return nil, nil
		}
		m := make(map[resource.URN]bool, len(urns))
		for _, u := range urns {
			if _, err := resource.ParseURN(string(u)); err != nil {
				return nil, fmt.Errorf("target %q: %w", u, err)
			}
			m[u] = true
		}
		if graph != nil {
			for _, u := range graph.TransitiveDependents(urns...) {
				m[u] = true
			}
		}
		return m, nil
	}
	if targetSet, err = set(targets); err != nil {
		return nil, nil, err
	}
	if excludeSet, err = set(excludes); err != nil {
		return nil, nil, err
	}
	return targetSet, excludeSet, nil
}
