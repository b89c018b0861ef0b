package stepgen

import (
	"github.com/groundwork-iac/groundwork/resource"
)

// Read registers an external resource: one the program reads by ID instead
// of managing. It is read on every run and never deleted physically.
func (g *Generator) Read(reg *Registration, id resource.ID) (Actions, error) {
	return g.planned(g.read(reg, id))
}

func (g *Generator) read(reg *Registration, id resource.ID) (Actions, error) {
	if reg == nil || reg.Goal == nil {
		return Actions{}, &RegistrationError{Reason: "the registration has no goal; set Registration.Goal to the resource's type, name and inputs"}
	}
	goal := reg.Goal
	if err := resource.CheckType(goal.Type); err != nil {
		return Actions{}, &RegistrationError{Type: goal.Type, Name: goal.Name, Reason: err.Error()}
	}
	if id == "" {
		return Actions{}, &RegistrationError{Type: goal.Type, Name: goal.Name, Reason: "reading an external resource needs its ID"}
	}
	urn := g.URNFor(*goal)
	reg.URN = urn
	if _, dup := g.seen[urn]; dup {
		return Actions{}, &DuplicateURNError{URN: urn}
	}
	old := g.olds[urn]
	if old != nil && !old.External {
		return Actions{}, &RegistrationError{URN: urn,
			Reason: "a resource managed by this stack is recorded under this URN; give the read a different name"}
	}
	g.seen[urn] = old
	if old != nil {
		g.takenOver[old] = true
	}
	w := &work{reg: reg, old: old, new: g.newState(urn, goal, old)}
	w.new.Custom, w.new.External, w.new.ID = true, true, id
	return g.single(w, OpRead), nil
}
