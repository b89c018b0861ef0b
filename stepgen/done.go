package stepgen

import (
	"slices"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// This file is the generator's side of running steps: how it numbers the
// steps it issues and ties each to the steps it needs, and how it learns
// each step's outcome (Done) and answers registrations from it.

// issue adds to acts a sequence of steps that run one after another, each
// needing the one before it. The first needs the steps of the resources
// deps depends on (its parent, dependencies and provider; nil for none).
// Every step also comes after the step issued before it on its own
// resource (Step.After). The
// steps are numbered when the event that issues them ends without an
// error (seal), so that a refused event leaves no trace.
func (g *Generator) issue(acts *Actions, deps *resource.State, steps ...*Step) {
	g.staged = append(g.staged, staged{deps: deps, steps: len(steps)})
	g.stagedSteps = append(g.stagedSteps, steps...)
	acts.Steps = append(acts.Steps, steps...)
}

// issueAlone is issue for the one step of steps, a slice from loneStep,
// which becomes acts.Steps itself when acts holds no step yet.
func (g *Generator) issueAlone(acts *Actions, deps *resource.State, steps []*Step) {
	if len(acts.Steps) > 0 {
		g.issue(acts, deps, steps...)
		return
	}
	g.staged = append(g.staged, staged{deps: deps, steps: 1})
	g.stagedSteps = append(g.stagedSteps, steps[0])
	acts.Steps = steps
}

// issueNeeding is issue, with the first step needing the steps also as
// well (numbered by the time this event's steps are).
func (g *Generator) issueNeeding(acts *Actions, deps *resource.State, also []*Step, steps ...*Step) {
	g.staged = append(g.staged, staged{deps: deps, also: also, steps: len(steps)})
	g.stagedSteps = append(g.stagedSteps, steps...)
	acts.Steps = append(acts.Steps, steps...)
}

// issueAfter adds to acts a step that needs the step prev (and comes after
// the step issued before it on its resource, if another).
func (g *Generator) issueAfter(acts *Actions, prev uint64, s *Step) {
	g.staged = append(g.staged, staged{prev: prev, steps: 1})
	g.stagedSteps = append(g.stagedSteps, s)
	acts.Steps = append(acts.Steps, s)
}

// staged is a sequence of steps issued by the event under way, the next
// steps of Generator.stagedSteps: the first needs the steps of what deps
// depends on, or prev.
type staged struct {
	deps  *resource.State
	also  []*Step
	prev  uint64
	steps int
}

// seal numbers the steps issued by the event under way, or drops them when
// the event failed. A previewed step's state is settled here (previewed).
func (g *Generator) seal(failed bool) {
	if !failed {
		rest := g.stagedSteps
		for _, st := range g.staged {
			prev := st.prev
			var steps []*Step
			steps, rest = rest[:st.steps], rest[st.steps:]
			for i, s := range steps {
				var needs []uint64
				if i == 0 && prev == 0 {
					needs = g.stepsOf(st.deps)
					for _, a := range st.also {
						if !slices.Contains(needs, a.ID) {
							needs = append(needs, a.ID)
						}
					}
				} else {
					needs = []uint64{prev}
				}
				g.number(s, needs)
				if r := s.Reg; r != nil && r.first == nil {
					r.first = s
				}
				if s.Previewed() {
					// It calls no provider: the state it
					// produces is the one it asks for, with
					// its inputs as outputs, settled now, as
					// an unchanged resource's is.
					s.New.Outputs = SecureOutputs(s.New, s.New.Inputs)
				}
				prev = s.ID
			}
			g.inflight += st.steps
		}
	}
	clear(g.staged)
	g.staged = g.staged[:0]
	clear(g.stagedSteps)
	g.stagedSteps = g.stagedSteps[:0]
}

// number gives s the next ID, its needs, and the step issued before it on
// its resource to come after; s becomes the last step on its resource,
// unless it is set aside and another step was issued there before.
func (g *Generator) number(s *Step, needs []uint64) {
	g.nextID++
	s.ID = g.nextID
	s.Needs = needs
	e := g.recordOf(s.Reg, s.urn)
	if e == nil {
		e = g.entry(s.urn)
	}
	if e.last != 0 && !slices.Contains(needs, e.last) {
		s.After = []uint64{e.last}
	}
	if e.last == 0 || s.rare == nil || !s.rare.aside {
		e.last = s.ID
	}
}

// stepsOf returns the last steps issued on the resources st depends on: its
// parent, its dependencies and its provider. A resource with no step in
// this run (one the program did not register) adds nothing.
func (g *Generator) stepsOf(st *resource.State) []uint64 {
	if st == nil {
		return nil
	}
	var needs []uint64
	add := func(u resource.URN) {
		e := g.at(u)
		if e == nil || e.last == 0 {
			return
		}
		if needs == nil {
			needs = make([]uint64, 0, len(st.Dependencies)+2)
		}
		needs = append(needs, e.last)
	}
	if st.Parent != "" {
		add(st.Parent)
	}
	for _, d := range st.Dependencies {
		add(d)
	}
	if u := providerURN(st.Provider); u != "" {
		add(u)
	}
	return needs
}

// Done takes the outcome of a step the generator issued — it ran, or was
// skipped — and returns what follows from it: the reply to the step's
// registration when the step ends it (or failed it), the replace step that
// stands for a replacement once its create has ended, and the next
// antichain of deletes once the current one is over. Every step issued
// must be reported exactly once. A refused delete (Refused), which the
// generator never issued, changes nothing: Done returns no actions.
func (g *Generator) Done(o Outcome) Actions {
	var acts Actions
	s := o.Step
	if s == nil || (s.rare != nil && s.rare.held) {
		return acts
	}
	g.inflight--
	if o.Err != nil {
		g.bad[s.ID] = true
	}
	if o.Err == nil && o.New != nil && s.New != nil {
		if e := g.recordOf(s.Reg, s.urn); e != nil && e.new == s.New {
			// The state the registration asked for is now the one it
			// produced.
			e.new = o.New
		}
	}
	if r := s.Reg; r != nil && !r.replied {
		switch {
		case o.Err != nil:
			r.replied = true
			acts.Replies = append(acts.Replies, Reply{Reg: r, Err: o.Err, Step: s})
		case answers(s.Op):
			g.reply(&acts, r, registerResult(s, o.New), nil)
		}
	}
	if (s.Op == OpCreateReplacement || s.Op == OpReadReplacement) && s.Refused() == nil {
		// The replacement as a whole; skipped when the create failed.
		n := s.New
		if o.New != nil {
			n = o.New
		}
		replace := g.step(OpReplace, s.urn, s.Old, n, s.Reg)
		replace.Diff, replace.Keys = s.Diff, s.Keys
		g.issueAfter(&acts, s.ID, replace)
	}
	g.seal(false)
	g.deleteDone(&acts, o)
	return acts
}

// Settled reports whether nothing the generator asked for is outstanding:
// every call it issued has been answered, and every step it issued has
// ended (its Outcome given to Done). A host waits for it after the
// program, before it asks for the deletes, and after the deletes, before
// it reads Refused.
func (g *Generator) Settled() bool { return g.inflight == 0 && g.calls == 0 }

// reply answers r, once.
func (g *Generator) reply(acts *Actions, r *Registration, res providers.RegisterResult, err error) {
	r.replied = true
	acts.Replies = append(acts.Replies, Reply{Reg: r, Result: res, Err: err})
}

// answers reports whether a step is the one that ends its registration.
// The delete of a delete-before-replace is followed by the create; the
// replace step follows the create of a replacement, which answered.
func answers(op Op) bool {
	return op != OpReplace && op != OpDeleteReplaced
}

// registerResult is what the program hears of a registration whose step
// produced n. A component's outputs are the program's own, registered
// after its registration: it hears none, as from Pulumi's engine (the
// recorded ones are the last run's). The root stack's are the exception:
// the host keeps them as the stack's outputs when the program registers
// none.
func registerResult(s *Step, n *resource.State) providers.RegisterResult {
	r := providers.RegisterResult{URN: s.urn, Stable: s.Op == OpSame}
	if n != nil {
		r.ID = n.ID
		if n.Custom || n.Type == resource.RootStackType {
			r.Outputs = n.Outputs
		}
	}
	return r
}
