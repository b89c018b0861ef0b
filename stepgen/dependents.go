package stepgen

import (
	"slices"

	"github.com/groundwork-iac/groundwork/resource"
)

// This file keeps the delete rule of a delete-before-replace (see the
// package documentation, "Deletes come after their dependents' deletes")
// whatever order the registrations arrive in: how a cascade treats a
// dependent the program registered before the cascade reached it, waits
// for one whose registration is still being decided, and deletes the old
// copy of one replaced create-before-delete before the resource it
// depended on; and which old copies left by an earlier run are among the
// dependents.

// parked is a delete-before-replace cascade waiting for the decision of a
// dependent's registration.
type parked struct {
	w   *work
	reg *Registration
}

// decided reports whether reg's steps are issued or it failed: what a
// cascade waits for.
func decided(reg *Registration) bool { return reg == nil || reg.first != nil || reg.replied }

// park makes w wait for reg's decision; resume goes on with it then.
func (g *Generator) park(w *work, reg *Registration) {
	g.parked = append(g.parked, parked{w: w, reg: reg})
}

// resume goes on with every parked cascade whose dependent has been
// decided, adding what follows to acts. A host event may decide a
// registration (Register, Read, Answer), so each ends with it. A cascade
// that fails fails its own registration: its reply carries the error.
func (g *Generator) resume(acts Actions) Actions {
	for progressed := true; progressed; {
		progressed = false
		for i, p := range g.parked {
			if !decided(p.reg) {
				continue
			}
			g.parked = slices.Delete(g.parked, i, i+1)
			more, err := g.planned(g.nextDependent(p.w))
			more, _ = g.failed(p.w.reg, more, err)
			if err != nil {
				g.endCascade(p.w)
			}
			acts.Calls = append(acts.Calls, more.Calls...)
			acts.Steps = append(acts.Steps, more.Steps...)
			acts.Replies = append(acts.Replies, more.Replies...)
			progressed = true
			break
		}
	}
	return acts
}

// awaited reports whether a delete-before-replace under way counts old
// among its dependents. Such a dependent, when its own registration
// replaces it, is replaced delete-before-create, so that its old copy is
// gone before the resource it depended on is deleted (as in the reference
// engine, whose cascade deletes such dependents first).
func (g *Generator) awaited(old *resource.State) bool {
	if old == nil {
		return false
	}
	for _, c := range g.cascades {
		if c.dbr.counted[old] {
			return true
		}
	}
	return false
}

// endCascade forgets w as a cascade under way.
func (g *Generator) endCascade(w *work) {
	if i := slices.Index(g.cascades, w); i >= 0 {
		g.cascades = slices.Delete(g.cascades, i, i+1)
	}
}

// registeredDependent takes into w's cascade a dependent dep that the
// program registered (reg) and whose steps are decided: the cascade's
// deletes must come after what those steps do to the old copy. A
// dependent replaced delete-before-create is deleted by its own chain,
// which the cascade's first delete needs; one replaced create-before-delete
// has its old copy deleted by the cascade, in its place among the
// dependents, once the replacement exists (the cascade's first delete
// needs the create), instead of after the program; any other step
// (update, same, a refused replacement) must have ended. A dependent whose
// registration failed issued nothing: it stays as recorded.
func (g *Generator) registeredDependent(w *work, dep *resource.State, reg *Registration) {
	d := w.dbr
	if d.taken[dep] {
		return
	}
	if d.taken == nil {
		d.taken = map[*resource.State]bool{}
	}
	d.taken[dep] = true
	if reg == nil || reg.first == nil {
		return
	}
	switch reg.first.Op {
	case OpDeleteReplaced:
		markReplaced(d.replaced, dep)
	case OpCreateReplacement:
		markReplaced(d.replaced, dep)
		if d.copies == nil {
			d.copies = map[*resource.State]bool{}
		}
		d.copies[dep] = true
	}
	d.needs = append(d.needs, reg.first)
}

// deleteOldCopy returns the delete of the old copy of dep that its
// create-before-delete replacement condemns, taking it out of the deletes
// after the program; or nil, with w's deletes made to follow it, when
// another cascade deletes it already; or nil when no such copy is
// waiting. The delete does not become the last step on the resource: what
// depends on the resource needs its replacement, not the old copy's
// delete.
func (g *Generator) deleteOldCopy(w *work, dep *resource.State) *Step {
	if del := g.copyDeletes[dep]; del != nil {
		w.dbr.needs = append(w.dbr.needs, del)
		return nil
	}
	for i := g.leftovers; i < len(g.condemned); i++ {
		c := g.condemned[i]
		if c.URN != dep.URN || c.ID != dep.ID {
			continue
		}
		g.condemned = slices.Delete(g.condemned, i, i+1)
		del := g.step(OpDeleteReplaced, c.URN, c, nil, nil)
		del.more().aside = true
		g.noteCopyDelete(dep, del)
		return del
	}
	return nil
}

// noteCopyDelete remembers that a cascade issued del for the old copy
// dep, so that another cascade that reaches dep follows it instead of
// passing it by.
func (g *Generator) noteCopyDelete(dep *resource.State, del *Step) {
	if g.copyDeletes == nil {
		g.copyDeletes = map[*resource.State]*Step{}
	}
	g.copyDeletes[dep] = del
}

// deletedByAnother reports whether another delete-before-replace cascade
// of this run deleted dep (its record is now the one pending replacement
// that cascade left); w's deletes then follow that delete. w may have
// found dep as it was recorded or as that cascade left it, depending on
// which cascade was decided first: either way dep is not deleted again.
func (g *Generator) deletedByAnother(w *work, dep *resource.State) bool {
	del := g.cascadeDeletes[dep.URN]
	if cur := g.Old(dep.URN); del == nil || cur == nil || !cur.PendingReplacement {
		return false
	}
	w.dbr.needs = append(w.dbr.needs, del)
	return true
}

// leftoverDependents returns the old copies marked for deletion by an
// earlier run (whose deletes never ran) that depend on old or on one of
// its live dependents, and on them in turn: they still exist, and their
// records refer to what the cascade may delete. The cascade diffs them
// like live dependents (the reference engine's cascade walks the last
// snapshot's graph, copies included), and deletes those that would be
// replaced before old, instead of after the program, when old is gone.
func (g *Generator) leftoverDependents(old *resource.State, live []*resource.State) []*resource.State {
	reached := map[resource.URN]bool{}
	markReplaced(reached, old)
	for _, s := range live {
		markReplaced(reached, s)
	}
	var out []*resource.State
	taken := map[*resource.State]bool{}
	for grew := true; grew; {
		grew = false
		// Every copy left by an earlier run, including those another
		// cascade has taken to delete (nextDependent makes this cascade
		// follow that delete).
		for _, c := range g.cfg.Old {
			if !c.Delete || taken[c] || !c.Custom {
				continue
			}
			dependent := false
			forEachDependency(c, func(u resource.URN) { dependent = dependent || reached[u] })
			if dependent {
				taken[c], grew = true, true
				out = append(out, c)
				markReplaced(reached, c)
			}
		}
	}
	return out
}

// deleteLeftover returns the delete of dep, an old copy an earlier run
// left marked for deletion, taking it out of the deletes after the
// program; or nil, with w's deletes made to follow it, when another
// cascade deletes it already. Like the delete of an old copy replaced in
// this run, it does not become the last step on the resource.
func (g *Generator) deleteLeftover(w *work, dep *resource.State) *Step {
	if del := g.copyDeletes[dep]; del != nil {
		w.dbr.needs = append(w.dbr.needs, del)
		return nil
	}
	i := slices.Index(g.condemned[:g.leftovers], dep)
	if i < 0 {
		return nil
	}
	g.condemned = slices.Delete(g.condemned, i, i+1)
	g.leftovers--
	del := g.step(OpDeleteReplaced, dep.URN, dep, nil, nil)
	del.more().aside = true
	g.noteCopyDelete(dep, del)
	return del
}
