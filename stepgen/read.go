package stepgen

import (
	"github.com/groundwork-iac/groundwork/resource"
)

// Read registers an external resource: one the program reads by ID instead
// of managing. It is read on every run and never deleted physically; its
// record is never protected (Goal.Protect only refuses a replacement,
// below).
//
// When the stack manages a resource under the same URN, the read takes its
// place, as in the reference engine. With the same ID the stack lets go of
// it (relinquishes it): the read's record replaces the managed one and
// nothing is deleted. With another ID the managed resource is replaced by
// the one read: the read's record condemns it (OpReadReplacement, followed
// by OpReplace), and it is deleted after the program. A resource protected
// both in its record and in the read's options is not replaced: the
// read-replacement is refused (Step.Refused). The replace step follows a
// read-replacement once it has ended (see Done). In a preview, a read
// whose ID the program does not know yet (providers.UnknownID) calls no
// provider: the resource is previewed with no outputs. A resource read in
// an earlier run that the program no longer reads is discarded (OpDiscard)
// after the program: its record leaves the state, and no provider is
// called. An error fails reg (see Register).
func (g *Generator) Read(reg *Registration, id resource.ID) (Actions, error) {
	acts, err := g.planned(g.read(reg, id))
	acts, err = g.failed(reg, acts, err)
	return g.resume(acts), err
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
	e := g.entry(urn)
	if e.registered {
		return Actions{}, &DuplicateURNError{URN: urn}
	}
	old := e.old
	// A managed resource with another ID is replaced by the one read; a
	// record pending replacement stands for nothing that exists, so the
	// read simply takes its place.
	replacing := old != nil && !old.External && !old.PendingReplacement && old.ID != id
	e.registered, e.took = true, old
	reg.at = e
	if old != nil {
		g.take(old, nil)
	}
	w := &work{reg: reg, old: old, new: g.newState(urn, goal, old)}
	w.new.Custom, w.new.External, w.new.ID = true, true, id
	// An external resource is never deleted, so there is nothing to
	// protect: the record carries no protect (as in the reference engine),
	// and a program that stops reading it forgets it without a refusal.
	// goal.Protect still keeps a protected managed resource from being
	// replaced by the read, below.
	w.new.Protect = false
	if !replacing {
		return g.single(w, OpRead), nil
	}
	if old.Protect && goal.Protect {
		w.refusal = &ProtectedError{URN: urn, Action: "replace"}
		return g.single(w, OpReadReplacement), nil
	}
	marked := old.Clone()
	marked.Delete = true
	g.condemned = append(g.condemned, marked)
	e.new = w.new
	var acts Actions
	g.issueAlone(&acts, w.new, g.loneStep(OpReadReplacement, urn, old, w.new, reg))
	return acts, nil
}
