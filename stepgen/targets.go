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
