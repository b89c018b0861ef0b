package stepgen

import (
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/resource"
)

// Deletes decides what to delete once the program has finished: every old
// resource no registration took over, and every old copy marked for
// deletion by a replacement. It returns the deletes as antichains of the
// reverse dependency graph, in the order they will run — no member of one
// depends on another, and a resource is deleted only after everything that
// depends on it — without issuing any: a host may look at them first (the
// engine checks that the hooks bound to them are known), then StartDeletes
// issues them. A host calls it once every step the program's registrations
// issued has ended (Settled), or at once for an operation without a program
// (a destroy).
//
// Each delete needs the deletes of the resources that depend on it, so that
// with ContinueOnError a delete whose dependent's delete failed is skipped.
// A resource deleted with another that goes too follows that one: its step
// needs the other's (see deleteGroups and Step.With).
//
// A protected resource is not deleted, and neither is anything it depends
// on (see Refused); everything else is.
func (g *Generator) Deletes() ([][]*Step, error) {
	g.components = newComponentIndex(g.cfg.Old)
	doomed := slices.Clone(g.condemned)
	var protected []*resource.State
	for _, s := range g.cfg.Old {
		if s.Delete {
			continue
		}
		e := g.at(s.URN)
		if e == nil || e.old == nil || e.taken || g.cfg.KeepUnregistered || !g.named(s.URN) {
			continue
		}
		cur := e.old
		// A record pending replacement stands for a resource a
		// delete-before-replace already deleted: there is nothing left
		// to protect, and removing the record is all there is to do.
		if cur.Protect && !cur.PendingReplacement {
			protected = append(protected, cur)
			continue
		}
		doomed = append(doomed, cur)
	}
	// With protected resources, deletes are scheduled in the graph of
	// everything that would go but for protection (see deleteSchedule);
	// without, that graph is the one deleteAntichains cuts.
	var floor func(*resource.State) int
	g.blockers = nil
	if len(protected) > 0 {
		sched := newDeleteSchedule(append(slices.Clone(doomed), protected...), g.components.deleteDependencies, g.leftoverLinks())
		doomed, g.refused = g.spareDependencies(doomed, protected, sched.floor)
		g.blockers, floor = sched.blockers(doomed, g.refused), sched.floor
	} else {
		g.refused = nil
	}
	if err := g.checkDanglingDependents(doomed); err != nil {
		return nil, err
	}
	planned := g.deleteAntichains(doomed, floor)
	if g.plan.active() {
		for _, layer := range planned {
			for _, pd := range layer {
				if err := g.planSteps([]*Step{pd.step}); err != nil {
					return nil, err
				}
			}
		}
	}
	layers := g.numberDeletes(planned)
	g.deleting = &deletion{layers: slices.Clone(layers)}
	if len(layers) > 0 {
		g.deleting.first = layers[0][0].ID
	}
	return layers, nil
}

// StartDeletes issues the first antichain of the deletes Deletes decided.
// Done issues each next one once every delete of the one before has ended
// — unless one of them failed and Config.ContinueOnError is not set, or
// the host skipped one for a reason other than a need of it (the operation
// was cancelled).
func (g *Generator) StartDeletes() Actions {
	var acts Actions
	if g.deleting != nil {
		g.nextAntichain(&acts)
	}
	return acts
}

// deletion is the state of the deletes after the program.
type deletion struct {
	layers [][]*Step
	next   int
	// first is the ID of the first delete; pending counts the deletes of
	// the antichain under way that have not ended.
	first   uint64
	pending int
	// stopped says no further antichain is issued.
	stopped bool
}

// nextAntichain issues the next antichain of deletes, unless the deletes
// have stopped or none is left.
func (g *Generator) nextAntichain(acts *Actions) {
	d := g.deleting
	if d.stopped || d.next == len(d.layers) {
		return
	}
	layer := d.layers[d.next]
	d.layers[d.next] = nil
	d.next++
	d.pending = len(layer)
	g.inflight += len(layer)
	acts.Steps = append(acts.Steps, layer...)
}

// deleteDone takes the outcome of a delete and issues the next antichain
// when it was the last of its own.
func (g *Generator) deleteDone(acts *Actions, o Outcome) {
	d := g.deleting
	if d == nil || o.Step.ID < d.first {
		return
	}
	switch {
	case o.Err == nil:
	case !g.cfg.ContinueOnError:
		d.stopped = true
	case o.Skipped && !slices.ContainsFunc(o.Step.Needs, func(id uint64) bool { return g.bad[id] }):
		// Skipped, though nothing it needs failed: the operation was
		// cancelled.
		d.stopped = true
	}
	if d.pending--; d.pending == 0 {
		g.nextAntichain(acts)
	}
}

// targeted reports whether urn is within the operation's targets. The root
// stack resource and provider resources are always targeted: the resources
// that are need them.
func (g *Generator) targeted(urn resource.URN) bool {
	if g.cfg.Targets == nil && len(g.cfg.Excludes) == 0 {
		return true
	}
	if typ := urn.Type(); typ == resource.RootStackType || resource.IsProviderType(typ) {
		return true
	}
	return !g.cfg.Excludes[urn] && (g.cfg.Targets == nil || g.cfg.Targets[urn])
}

// named reports whether urn is within the operation's targets as given: a
// targeted delete removes only what the targets name, never the stack's
// root or a provider other resources may still use.
func (g *Generator) named(urn resource.URN) bool {
	return !g.cfg.Excludes[urn] && (g.cfg.Targets == nil || g.cfg.Targets[urn])
}

// checkDanglingDependents refuses to delete a resource that a resource
// which stays still depends on (possible when targets leave a dependent
// out, or excludes keep one).
func (g *Generator) checkDanglingDependents(doomed []*resource.State) error {
	if (g.cfg.Targets == nil && len(g.cfg.Excludes) == 0) || len(doomed) == 0 {
		return nil
	}
	going := make(map[resource.URN]bool, len(doomed))
	// renamed maps the URNs going resources were once known by to theirs.
	var renamed map[resource.URN]resource.URN
	for _, s := range doomed {
		// The old copy of a replaced resource shares its URN with the
		// live record, which is what dependents depend on.
		if s.Delete && (g.State(s.URN) != nil || g.Old(s.URN) != nil) {
			continue
		}
		going[s.URN] = true
		renamed = addAliases(renamed, s)
	}
	// goingAs returns the URN of the going resource a reference to dep
	// names, or "".
	goingAs := func(dep resource.URN) resource.URN {
		if going[dep] {
			return dep
		}
		if u, ok := renamed[dep]; ok && !g.holds(dep) {
			return u
		}
		return ""
	}
	check := func(s *resource.State) error {
		var err error
		forEachDependency(s, func(dep resource.URN) {
			if err != nil || going[s.URN] {
				return
			}
			if u := goingAs(dep); u != "" {
				err = &DanglingDependentError{URN: u, Dependent: s.URN}
			}
		})
		return err
	}
	for _, e := range g.urns {
		if e.new != nil {
			if err := check(e.new); err != nil {
				return err
			}
		}
	}
	for _, e := range g.urns {
		if e.old != nil && !e.taken && !going[e.old.URN] {
			if err := check(e.old); err != nil {
				return err
			}
		}
	}
	return nil
}

// deleteAntichains orders deletes by the reverse dependency graph among the
// doomed resources and cuts the order into antichains, in O(V+E). A
// resource deleted with another that is doomed too has no place of its
// own: its delete follows the other's (see deleteGroups), and the graph is
// ordered with each such group as one node. The steps are numbered later,
// once the plan allows them (numberDeletes).
func (g *Generator) deleteAntichains(doomed []*resource.State, floor func(*resource.State) int) [][]plannedDelete {
	if len(doomed) == 0 {
		return nil
	}
	byURN := make(map[resource.URN][]int, len(doomed))
	for i, s := range doomed {
		byURN[s.URN] = append(byURN[s.URN], i)
	}
	resolveAliases(byURN, doomed) // a record may name a renamed one by an old URN
	deps := newDoomedDeps(doomed, byURN, g.components.deleteDependencies)
	// dependents[i] lists the doomed resources that depend on doomed[i].
	dependents := make([][]int, len(doomed))
	for i := range doomed {
		for _, j := range deps.of(i) {
			dependents[j] = append(dependents[j], i)
		}
	}
	groups := newDeleteGroups(doomed, byURN)
	for {
		layers, stuck := groups.order(doomed, deps, dependents, floor)
		if !groups.dissolve(stuck) {
			return g.deleteSteps(doomed, layers, dependents, groups)
		}
	}
}

// plannedDelete is a delete step and the deletes it needs first.
type plannedDelete struct {
	step  *Step
	needs []*Step
}

// deleteSteps builds the steps of each antichain of layers: for each node,
// the step that deletes it and then those of the resources deleted with it
// (each needing the one before). A node's step needs the deletes of every
// doomed resource outside its group that depends on one of its members.
func (g *Generator) deleteSteps(doomed []*resource.State, layers [][]int, dependents [][]int, groups *deleteGroups) [][]plannedDelete {
	stepOf := make([]*Step, len(doomed))
	out := make([][]plannedDelete, 0, len(layers))
	for _, layer := range layers {
		steps := make([]plannedDelete, 0, len(layer))
		for _, n := range layer {
			st := g.deleteStep(doomed[n])
			stepOf[n] = st
			riders := groups.ridersOf(n)
			var needs []*Step
			need := func(m int) {
				for _, d := range dependents[m] {
					if groups.nodeOf(d) != n {
						needs = append(needs, stepOf[d])
					}
				}
			}
			need(n)
			for _, r := range riders {
				need(r)
			}
			steps = append(steps, plannedDelete{step: st, needs: needs})
			if len(riders) == 0 {
				continue
			}
			with := make([]*resource.State, 0, len(riders))
			prev := st
			for _, r := range riders {
				rs := g.deleteStep(doomed[r])
				rs.skipProvider, rs.goesWith = true, true
				stepOf[r] = rs
				steps = append(steps, plannedDelete{step: rs, needs: []*Step{prev}})
				with = append(with, doomed[r])
				prev = rs
			}
			st.more().with = with
		}
		out = append(out, steps)
	}
	return out
}

// numberDeletes numbers the deletes, antichain after antichain, and turns
// what each needs into step IDs.
func (g *Generator) numberDeletes(layers [][]plannedDelete) [][]*Step {
	out := make([][]*Step, len(layers))
	for i, layer := range layers {
		steps := make([]*Step, len(layer))
		for j, pd := range layer {
			var needs []uint64
			if len(pd.needs) > 0 {
				needs = make([]uint64, len(pd.needs))
				for k, n := range pd.needs {
					needs[k] = n.ID
				}
			}
			g.number(pd.step, needs)
			// Deletes run antichain after antichain, once every step the
			// program's registrations issued has ended: they need no
			// order by resource, and two deletes of one URN in one
			// antichain delete two independent copies (a live record
			// and an old copy marked for deletion), so one's failure
			// must not hold the other back.
			pd.step.After = nil
			steps[j] = pd.step
		}
		out[i] = steps
	}
	return out
}

// deleteStep returns the step that deletes s on its own. A resource the
// program read and no longer reads is discarded: forgotten, never deleted
// (the reference engine's "discard").
func (g *Generator) deleteStep(s *resource.State) *Step {
	op := OpDelete
	switch {
	case s.Delete:
		op = OpDeleteReplaced
	case s.External:
		op = OpDiscard
	}
	st := g.step(op, s.URN, s, nil, nil)
	// Its physical resource is already gone: a delete-before-replace
	// deleted it; only the record is removed.
	st.skipProvider = s.PendingReplacement
	return st
}

// forEachDependency calls fn for every resource s depends on: its parent,
// dependencies, property dependencies, deleted-with target and provider.
func forEachDependency(s *resource.State, fn func(resource.URN)) {
	if s.Parent != "" {
		fn(s.Parent)
	}
	for _, d := range s.Dependencies {
		fn(d)
	}
	for _, deps := range s.PropertyDependencies {
		for _, d := range deps {
			fn(d)
		}
	}
	if s.DeletedWith != "" {
		fn(s.DeletedWith)
	}
	if u := providerURN(s.Provider); u != "" {
		fn(u)
	}
}

// providerURN returns the URN part of a provider reference, "<URN>::<ID>",
// without validating it: the dependency graph only looks it up among the
// resources it knows, so a malformed reference simply matches none.
// Parsing it in full took a quarter of BenchmarkDeletes10k.
func providerURN(ref string) resource.URN {
	i := strings.LastIndex(ref, "::")
	if i < 0 {
		return ""
	}
	return resource.URN(ref[:i])
}
