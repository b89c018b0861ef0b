package stepgen

import (
	"time"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// This file holds the decision for one checked registration: create, same,
// update or replace, and the steps each issues.

// afterFirstCheck decides what a checked registration needs: a create, a
// diff, or (for a changed provider) a replacement. early is the Diff made
// right after the Check, if one was.
func (g *Generator) afterFirstCheck(w *work, early earlyDiff) (Actions, error) {
	if w.old == nil || w.old.PendingReplacement {
		return g.single(w, OpCreate), nil
	}
	if g.replace[w.new.URN] {
		w.diff = resource.DiffResult{Changes: resource.DiffSome}
		return g.startReplace(w)
	}
	if w.old.Provider != w.new.Provider && !g.renamedProvider(w.old.Provider, w.new.Provider) {
		if call, ok := g.providerDiffCall(w); ok {
			return ask(call), nil
		}
		w.diff = resource.DiffResult{Changes: resource.DiffSome, ReplaceKeys: []resource.PropertyKey{"provider"}}
		w.providerChanged = true
		return g.startReplace(w)
	}
	if g.cfg.InputsOnlyDiff {
		return g.afterDiff(w, resource.DiffResult{Changes: resource.DiffUnknown})
	}
	if early.ok {
		// The Diff was made right after the Check (diffFollowsCheck).
		return g.diffAnswered(w, early.diff, early.err)
	}
	return g.diffCall(w), nil
}

// diffRequest is the provider Diff of w's old state and new inputs.
func (g *Generator) diffRequest(w *work) providers.DiffRequest {
	return providers.DiffRequest{
		URN: w.new.URN, ID: w.old.ID, OldInputs: w.old.Inputs, OldOutputs: w.old.Outputs,
		NewInputs: w.new.Inputs, IgnoreChanges: w.new.IgnoreChanges,
	}
}

func (g *Generator) diffCall(w *work) Actions {
	if g.cfg.InputsOnlyDiff || !w.new.Custom {
		acts, _ := g.afterDiff(w, resource.DiffResult{Changes: resource.DiffUnknown})
		return acts
	}
	return ask(Call{
		Kind: CallDiff, Reg: w.reg, Provider: w.new.Provider, Type: w.new.Type, work: w, phase: phaseDiff,
		Diff: g.diffRequest(w),
	})
}

// diffAnswered goes on from a provider Diff's answer.
func (g *Generator) diffAnswered(w *work, d resource.DiffResult, err error) (Actions, error) {
	if err != nil {
		return Actions{}, callFailed("diffing", w.new.URN, err)
	}
	return g.afterDiff(w, d)
}

func (g *Generator) recheck(w *work) Call {
	w.new.Inputs = w.reg.Goal.Inputs
	if w.new.Inputs == nil {
		w.new.Inputs = resource.PropertyMap{}
	}
	c := g.checkCall(w, nil)
	c.phase = phaseRecheck
	return c
}

func (g *Generator) afterDiff(w *work, d resource.DiffResult) (Actions, error) {
	if d.Changes == resource.DiffUnknown {
		d = InputsDiff(w.old.Inputs, w.new.Inputs)
	}
	if len(d.ChangedKeys) == 0 && d.Changes == resource.DiffSome {
		d.ChangedKeys = ChangedKeys(d, w.old.Inputs, w.new.Inputs)
	}
	if d.Changes == resource.DiffSome && !d.Replace() && len(w.new.ReplaceOnChanges) > 0 {
		var err error
		if d, err = applyReplaceOnChanges(d, w.old.Inputs, w.new.Inputs, w.new.ReplaceOnChanges); err != nil {
			return Actions{}, &RegistrationError{URN: w.new.URN, Reason: err.Error()}
		}
	}
	w.diff, w.providerChanged = d, false
	switch {
	case d.Changes != resource.DiffSome && len(w.old.InitErrors) > 0:
		// It exists but failed to initialize: update it so that the
		// provider can finish.
		return g.single(w, OpUpdate), nil
	case d.Changes != resource.DiffSome:
		return g.single(w, OpSame), nil
	case !d.Replace():
		return g.single(w, OpUpdate), nil
	}
	return g.startReplace(w)
}

// startReplace begins a replacement: it refuses for a resource that is
// protected and stays so (a program that drops protect may replace it in
// the same update, as the reference engine allows), then re-checks the
// inputs without the old ones, so that the replacement does not inherit
// generated values such as auto-names. A refused replacement (protected,
// or refused by the analyzers) fails as a whole, as one replace step,
// before anything is created or deleted.
func (g *Generator) startReplace(w *work) (Actions, error) {
	if w.refusal == nil && w.old.Protect && w.new.Protect {
		w.refusal = &ProtectedError{URN: w.new.URN, Action: "replace"}
	}
	if w.refusal != nil {
		return g.single(w, OpReplace), nil
	}
	return ask(g.recheck(w)), nil
}

// decideComponent handles a component: no provider is involved, so the
// outcome follows from comparing inputs.
func (g *Generator) decideComponent(w *work) Actions {
	switch {
	case w.old == nil:
		return g.single(w, OpCreate)
	case w.old.Inputs.DeepEquals(w.new.Inputs):
		// Only the inputs count, as in the reference engine: a component
		// retyped through an alias with the same inputs is the same one.
		w.new.Outputs = w.old.Outputs
		return g.single(w, OpSame)
	default:
		w.diff = InputsDiff(w.old.Inputs, w.new.Inputs)
		w.providerChanged = false
		w.new.Outputs = w.old.Outputs
		return g.single(w, OpUpdate)
	}
}

// single issues the one step of a registration.
func (g *Generator) single(w *work, op Op) Actions {
	steps := g.loneStep(op, w.new.URN, w.old, w.new, w.reg)
	s := steps[0]
	s.Diff, s.Keys = w.diff, w.changedKeys()
	s.refuse(w.refusal)
	if op == OpSame {
		if w.new.Custom {
			s.New.ID = w.old.ID
			s.New.Outputs = w.old.Outputs
		}
		s.New.InitErrors = nil
	}
	if op == OpCreate && w.old != nil && !w.old.PendingReplacement {
		s.Old = nil
	}
	g.setNew(w.reg, w.new.URN, w.new)
	var acts Actions
	g.issueAlone(&acts, w.new, steps)
	return acts
}

func (g *Generator) step(op Op, urn resource.URN, old, new *resource.State, reg *Registration) *Step {
	return &Step{Op: op, urn: urn, Old: old, New: new, Reg: reg, Preview: g.cfg.Preview}
}

// stepAlone is a step and a one-element slice holding it, allocated
// together: most events issue a single step, and the Actions.Steps that
// returns it then needs no allocation of its own.
type stepAlone struct {
	step Step
	list [1]*Step
}

// loneStep returns a new step as the only element of a slice, for
// issueAlone.
func (g *Generator) loneStep(op Op, urn resource.URN, old, new *resource.State, reg *Registration) []*Step {
	b := &stepAlone{step: Step{Op: op, urn: urn, Old: old, New: new, Reg: reg, Preview: g.cfg.Preview}}
	b.list[0] = &b.step
	return b.list[:]
}

// replacement issues the create that replaces a resource once its inputs
// have been re-checked without the old ones (the replace step follows it,
// once it has ended: see Done).
func (g *Generator) replacement(w *work) (Actions, error) {
	w.new.ID = ""
	w.new.Created = time.Time{}
	if w.diff.DeleteBeforeReplace || w.reg.Goal.DeleteBeforeReplace || g.awaited(w.old) {
		return g.startDependents(w)
	}
	g.setNew(w.reg, w.new.URN, w.new)
	// The create condemns the old copy when it succeeds (Outcome.Condemns):
	// the copy deleted after the program is the old one marked Delete.
	marked := w.old.Clone()
	marked.Delete = true
	g.condemned = append(g.condemned, marked)
	create := g.step(OpCreateReplacement, w.new.URN, w.old, w.new, w.reg)
	create.Diff, create.Keys = w.diff, w.changedKeys()
	var acts Actions
	g.issue(&acts, w.new, create)
	return acts, nil
}
