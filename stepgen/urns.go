package stepgen

import "github.com/groundwork-iac/groundwork/resource"

// urnState is what the generator knows of one URN: its live old state,
// whether a registration of this run holds it, the state that registration
// produced and the last step issued on it. Generator.urns keeps one per
// URN the generator meets, so that a registration finds all of it with one
// map lookup rather than one per fact.
type urnState struct {
	// urn is the URN the record is about.
	urn resource.URN
	// old is the live (not marked-for-deletion) old state recorded under
	// the URN, or nil.
	old *resource.State
	// claimedBy is the registration of this run that took old over,
	// directly or through an alias (Register's; not a read's, which
	// decides at once).
	claimedBy *Registration
	// took is the old state the URN's registration took over (recorded
	// under another URN when it was found through an alias), or nil.
	took *resource.State
	// new is the state the URN's registration produced (filled in by its
	// steps when they run), or nil.
	new *resource.State
	// last is the ID of the last step issued on the URN, or 0.
	last uint64
	// taken says a registration of this run (or a Refresh) took old
	// over; registered says a registration of this run holds the URN.
	taken, registered bool
}

// at returns what the generator knows of urn, or nil if nothing.
func (g *Generator) at(urn resource.URN) *urnState { return g.urns[urn] }

// recordOf is at, through reg when reg's record is urn's: a registration
// keeps its URN's record at hand (Registration.at), so that the events
// that follow it find the record without a lookup.
func (g *Generator) recordOf(reg *Registration, urn resource.URN) *urnState {
	if reg != nil && reg.at != nil && reg.at.urn == urn {
		return reg.at
	}
	return g.urns[urn]
}

// entry returns what the generator knows of urn, adding an empty record
// if nothing.
func (g *Generator) entry(urn resource.URN) *urnState {
	if e := g.urns[urn]; e != nil {
		return e
	}
	if len(g.spare) == 0 {
		// Records are allocated in batches.
		g.spare = make([]urnState, 256)
	}
	e := &g.spare[0]
	g.spare = g.spare[1:]
	e.urn = urn
	g.urns[urn] = e
	return e
}

// registered reports whether a registration of this run holds urn.
func (g *Generator) registered(urn resource.URN) bool {
	e := g.urns[urn]
	return e != nil && e.registered
}

// tookUnder returns the old state the registration of urn took over, and
// whether urn is registered in this run at all.
func (g *Generator) tookUnder(urn resource.URN) (*resource.State, bool) {
	e := g.urns[urn]
	if e == nil || !e.registered {
		return nil, false
	}
	return e.took, true
}

// setNew records s as the state the registration of urn, reg (or nil),
// produces.
func (g *Generator) setNew(reg *Registration, urn resource.URN, s *resource.State) {
	e := g.recordOf(reg, urn)
	if e == nil {
		e = g.entry(urn)
	}
	e.new = s
}

// takenOver reports whether a registration of this run (or a Refresh) took
// the old state s over.
func (g *Generator) takenOver(s *resource.State) bool {
	if e := g.urns[s.URN]; e != nil && e.old == s {
		return e.taken
	}
	return g.takenCopies[s]
}

// claimedBy returns the registration that took the old state s over
// (Register's, not a read's), or nil.
func (g *Generator) claimedBy(s *resource.State) *Registration {
	if e := g.urns[s.URN]; e != nil && e.old == s {
		return e.claimedBy
	}
	return nil
}

// take records that reg took the old state s over; a read or a Refresh
// (reg nil) takes it without claiming it, and leaves an earlier claim.
// Only a Refresh takes what is not the live record of its URN: an old copy
// marked for deletion.
func (g *Generator) take(s *resource.State, reg *Registration) {
	if e := g.recordOf(reg, s.URN); e != nil && e.old == s {
		e.taken = true
		if reg != nil {
			e.claimedBy = reg
		}
		return
	}
	if g.takenCopies == nil {
		g.takenCopies = make(map[*resource.State]bool)
	}
	g.takenCopies[s] = true
}

// replaceOld makes s the live old state recorded under its URN in place of
// one that no registration took over (a delete-before-replace cascade
// leaves the record of a dependent it deletes pending replacement).
func (g *Generator) replaceOld(s *resource.State) { g.entry(s.URN).old = s }
