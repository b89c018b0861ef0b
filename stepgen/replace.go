package stepgen

import (
	"maps"
	"slices"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// providerDiffCall handles a change of provider reference between two
// default providers of the same package (typically a version upgrade): the
// resource is replaced only if the new provider's DiffConfig says it cannot
// manage what the old one did. It returns false when the change is not
// between default providers, and the resource must simply be replaced.
func (g *Generator) providerDiffCall(w *work) (Call, bool) {
	oldRef, err1 := providers.ParseReference(w.old.Provider)
	newRef, err2 := providers.ParseReference(w.new.Provider)
	if err1 != nil || err2 != nil || !providers.IsDefaultProvider(oldRef.URN) || !providers.IsDefaultProvider(newRef.URN) ||
		oldRef.URN.Type() != newRef.URN.Type() {
		return Call{}, false
	}
	oldProv, newProv := g.Old(oldRef.URN), g.State(newRef.URN)
	if oldProv == nil || newProv == nil {
		return Call{}, false
	}
	return Call{
		Kind: CallDiff, Reg: w.reg, Type: newProv.Type, work: w, phase: phaseProviderDiff,
		Diff: providers.DiffRequest{
			URN: newProv.URN, ID: newProv.ID, OldInputs: oldProv.Inputs, OldOutputs: oldProv.Outputs,
			NewInputs: newProv.Inputs,
		},
	}, true
}

// dependentsWork is the state of a delete-before-replace while the
// generator finds out which dependents must be deleted with it.
type dependentsWork struct {
	// candidates are the transitive dependents, in dependency order;
	// counted holds them as a set (Generator.awaited).
	candidates []*resource.State
	counted    map[*resource.State]bool
	next       int
	// replaced holds the URNs known to be replaced: the resource itself
	// and each dependent found to need replacing; replacedCopies those
	// of the old copies left by an earlier run that the cascade deletes,
	// which only other such copies refer to.
	replaced       map[resource.URN]bool
	replacedCopies map[resource.URN]bool
	doomed         []*resource.State
	// needs are the steps the cascade's first delete needs besides those
	// of what the replacement depends on: the steps of dependents the
	// program registered (see registeredDependent), each in taken;
	// copies holds those replaced create-before-delete, whose old copies
	// the cascade deletes.
	needs  []*Step
	taken  map[*resource.State]bool
	copies map[*resource.State]bool
}

// startDependents begins a delete-before-replace. Before the old resource
// can go, every resource that depends on it and would itself be replaced
// must go first. For each transitive dependent, in dependency order, the
// generator substitutes unknowns for the inputs that come from a resource
// being replaced and asks the dependent's provider to diff; only dependents
// whose diff asks for a replacement are deleted. Dependents tied only by
// dependsOn, or whose affected inputs update in place, stay. A dependent
// the program has registered is not diffed: its own steps say what happens
// to it, and the cascade's deletes wait for them (registeredDependent).
func (g *Generator) startDependents(w *work) (Actions, error) {
	w.dbr = &dependentsWork{replaced: map[resource.URN]bool{}}
	markReplaced(w.dbr.replaced, w.old)
	graph, err := resource.NewGraph(g.liveOlds())
	if err == nil {
		for _, u := range graph.TransitiveDependents(w.old.URN) {
			if s := g.Old(u); s != nil && s.Custom {
				w.dbr.candidates = append(w.dbr.candidates, s)
			}
		}
	}
	w.dbr.candidates = append(w.dbr.candidates, g.leftoverDependents(w.old, w.dbr.candidates)...)
	w.dbr.counted = make(map[*resource.State]bool, len(w.dbr.candidates))
	for _, s := range w.dbr.candidates {
		w.dbr.counted[s] = true
	}
	g.cascades = append(g.cascades, w)
	order := make(map[*resource.State]int, len(g.cfg.Old))
	for i, s := range g.cfg.Old {
		order[s] = i
	}
	slices.SortFunc(w.dbr.candidates, func(a, b *resource.State) int { return order[a] - order[b] })
	return g.nextDependent(w)
}

// liveOlds returns the old resources that are not marked for deletion.
func (g *Generator) liveOlds() []*resource.State {
	out := make([]*resource.State, 0, len(g.cfg.Old))
	for _, s := range g.cfg.Old {
		if !s.Delete {
			out = append(out, s)
		}
	}
	return out
}

// nextDependent asks for the diff of the next candidate that depends on
// something being replaced, or finishes when none is left. A candidate
// the program registered is taken as its steps decide (registeredDependent);
// while they are not decided, the cascade waits (park).
func (g *Generator) nextDependent(w *work) (Actions, error) {
	d := w.dbr
	for d.next < len(d.candidates) {
		dep := d.candidates[d.next]
		if g.takenOver(dep) {
			reg := g.claimedBy(dep)
			if !decided(reg) {
				g.park(w, reg)
				return Actions{}, nil
			}
			d.next++
			g.registeredDependent(w, dep, reg)
			continue
		}
		d.next++
		if !dep.Delete && g.deletedByAnother(w, dep) {
			markReplaced(d.replaced, dep)
			continue
		}
		if del := g.copyDeletes[dep]; dep.Delete && del != nil {
			// An old copy another cascade deletes: this one follows that
			// delete, and takes the copy as replaced.
			d.needs = append(d.needs, del)
			d.markCopyReplaced(dep)
			continue
		}
		inputs, affected := withUnknowns(dep, d.replacedFor(dep))
		if !affected {
			continue
		}
		return ask(Call{
			Kind: CallDiff, Reg: w.reg, Provider: dep.Provider, Type: dep.Type, work: w, phase: phaseDependents, dependent: dep,
			Diff: providers.DiffRequest{
				URN: dep.URN, ID: dep.ID, OldInputs: dep.Inputs, OldOutputs: dep.Outputs, NewInputs: inputs,
				IgnoreChanges: dep.IgnoreChanges,
			},
		}), nil
	}
	return g.finishDeleteBeforeReplace(w)
}

// replacedFor returns the URNs whose replacement makes dep's inputs from
// them unknown: for an old copy marked for deletion, the doomed copies'
// too, since its references name copies marked for deletion first.
func (d *dependentsWork) replacedFor(dep *resource.State) map[resource.URN]bool {
	if !dep.Delete || len(d.replacedCopies) == 0 {
		return d.replaced
	}
	out := maps.Clone(d.replaced)
	maps.Copy(out, d.replacedCopies)
	return out
}

// markCopyReplaced counts dep, an old copy marked for deletion, among the
// replaced copies: the inputs other copies take from it become unknown.
func (d *dependentsWork) markCopyReplaced(dep *resource.State) {
	if d.replacedCopies == nil {
		d.replacedCopies = map[resource.URN]bool{}
	}
	markReplaced(d.replacedCopies, dep)
}

// withUnknowns returns dep's inputs with every property that depends on a
// replaced resource made unknown, and whether any did. A dependent whose
// only tie is its parent or a plain dependency keeps its inputs.
func withUnknowns(dep *resource.State, replaced map[resource.URN]bool) (resource.PropertyMap, bool) {
	var out resource.PropertyMap
	for k, urns := range dep.PropertyDependencies {
		for _, u := range urns {
			if replaced[u] {
				if out == nil {
					out = dep.Inputs.Copy()
				}
				out[k] = resource.NewUnknown()
				break
			}
		}
	}
	if out == nil {
		return dep.Inputs, false
	}
	return out, true
}

func (g *Generator) dependentAnswered(w *work, a Answer) (Actions, error) {
	dep := a.Call.dependent
	if g.takenOver(dep) {
		// Registered while its diff was being asked: its own steps
		// decide, and the cascade takes it as those say.
		w.dbr.next--
		return g.nextDependent(w)
	}
	// A provider that cannot diff with unknowns is assumed to replace: the
	// conservative answer keeps the old resource from being deleted while
	// something still needs it.
	if a.Err != nil || a.Diff.Replace() || a.Diff.Changes == resource.DiffUnknown {
		if dep.Delete {
			// A live record's reference names the live resource,
			// not an old copy marked for deletion.
			w.dbr.markCopyReplaced(dep)
		} else {
			markReplaced(w.dbr.replaced, dep)
		}
		w.dbr.doomed = append(w.dbr.doomed, dep)
	}
	return g.nextDependent(w)
}

// finishDeleteBeforeReplace issues one sequence of steps: delete the doomed dependents
// (dependents first), delete the old resource, create the replacement. Each
// delete leaves its record marked as pending replacement, so that a crash
// midway is visible and the next run creates what is missing; a dependent
// deleted here is created again when the program registers it. The first
// delete needs the steps of the dependents the program registered
// (dependentsWork.needs); a doomed dependent registered since its diff
// was asked, or once the cascade had passed it, is one of them, waited for
// until its steps are decided.
func (g *Generator) finishDeleteBeforeReplace(w *work) (Actions, error) {
	d := w.dbr
	for _, dep := range d.candidates {
		if g.takenOver(dep) && !d.taken[dep] && !decided(g.claimedBy(dep)) {
			g.park(w, g.claimedBy(dep))
			return Actions{}, nil
		}
	}
	g.endCascade(w)
	for _, dep := range d.doomed {
		if dep.Protect && !dep.Delete && !g.takenOver(dep) {
			// Replacing it would delete it: refuse, as for a protected
			// resource replaced directly, before anything is deleted.
			w.refusal = &ProtectedError{URN: dep.URN, Action: "replace", For: w.new.URN}
			return g.single(w, OpReplace), nil
		}
	}
	g.setNew(w.reg, w.new.URN, w.new)
	for _, dep := range d.candidates {
		if g.takenOver(dep) && !d.taken[dep] {
			// Registered once the cascade had passed it.
			g.registeredDependent(w, dep, g.claimedBy(dep))
		}
	}
	doomed := make(map[*resource.State]bool, len(d.doomed))
	for _, dep := range d.doomed {
		doomed[dep] = true
	}
	// The deletes run dependents first: in the reverse of the candidates'
	// dependency order.
	var steps []*Step
	for i := len(d.candidates) - 1; i >= 0; i-- {
		dep := d.candidates[i]
		if d.copies[dep] {
			if del := g.deleteOldCopy(w, dep); del != nil {
				steps = append(steps, del)
			}
			continue
		}
		if dep.Delete {
			if doomed[dep] {
				if del := g.deleteLeftover(w, dep); del != nil {
					steps = append(steps, del)
				}
			}
			continue
		}
		if !doomed[dep] || g.takenOver(dep) || g.deletedByAnother(w, dep) {
			continue
		}
		pending := dep.Clone()
		pending.PendingReplacement = true
		g.replaceOld(pending)
		del := g.step(OpDeleteReplaced, dep.URN, dep, pending, nil)
		// An interrupted delete-before-replace already deleted it: only
		// the record is carried over.
		del.skipProvider = dep.PendingReplacement
		g.cascadeDeletes[dep.URN] = del
		steps = append(steps, del)
	}
	pending := w.old.Clone()
	pending.PendingReplacement = true
	del := g.step(OpDeleteReplaced, w.old.URN, w.old, pending, w.reg)
	del.Diff, del.Keys = w.diff, w.changedKeys()
	create := g.step(OpCreate, w.new.URN, pending, w.new, w.reg)
	create.Diff, create.Keys = w.diff, w.changedKeys()
	steps = append(steps, del, create)
	var acts Actions
	g.issueNeeding(&acts, w.new, w.dbr.needs, steps...)
	return acts, nil
}
