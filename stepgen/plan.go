package stepgen

import (
	"slices"

	"github.com/groundwork-iac/groundwork/plan"
	"github.com/groundwork-iac/groundwork/resource"
)

// This file is the generator's side of saved plans (package plan). The
// generator consults its planner at three points only: when a
// registration's goal is settled (its inputs checked), when it issues
// steps (Register, Answer, Read, RegisterOutputs and Deletes pass what they
// return through planned), and when a component registers outputs. With
// Config.RecordPlan the planner writes down what the generator decides;
// with Config.Plan a plan.Checker refuses what that plan does not allow.

// planner records and checks plans for one generator.
type planner struct {
	// check holds the operation to Config.Plan; nil for none.
	check *plan.Checker
	// made is the plan being recorded; nil when not recording.
	made *plan.Plan
}

func newPlanner(cfg Config) planner {
	var p planner
	if cfg.Plan != nil {
		p.check = plan.NewChecker(cfg.Plan)
	}
	if cfg.RecordPlan {
		p.made = &plan.Plan{Project: cfg.Project, Stack: cfg.Stack, Resources: make(map[resource.URN]*plan.Resource, len(cfg.Old))}
	}
	return p
}

// active reports whether the planner records or checks anything.
func (p *planner) active() bool { return p.check != nil || p.made != nil }

// Plan returns the plan the generator recorded (Config.RecordPlan), or
// nil. It is complete once the operation's steps have all been issued.
func (g *Generator) Plan() *plan.Plan { return g.plan.made }

// PlanKept reports, once the operation's steps have all run, whether every
// step of the given plan (Config.Plan) was taken: nil, or a
// *plan.ViolationError naming the first one missing.
func (g *Generator) PlanKept() error {
	if g.plan.check == nil {
		return nil
	}
	return g.plan.check.Done(func(urn resource.URN) bool {
		return g.Old(urn) != nil || slices.ContainsFunc(g.condemned, func(s *resource.State) bool { return s.URN == urn })
	})
}

// planGoal records, or holds to the given plan, the goal of a registration
// whose inputs are settled (w.new.Inputs).
func (g *Generator) planGoal(w *work) error {
	if !g.plan.active() {
		return nil
	}
	actual := plan.GoalOf(w.reg.Goal)
	// The inputs are compared with those recorded, or with none for a
	// resource created afresh. A dependent that a delete-before-replace
	// cascade of this run deleted before it registered is compared with
	// the record the cascade deleted, as when it registers before the
	// cascade reaches it: which comes first is the schedule's doing.
	var olds resource.PropertyMap
	switch {
	case w.old == nil:
	case !w.old.PendingReplacement:
		olds = w.old.Inputs
	case g.cascadeDeletes[w.new.URN] != nil && !g.cascadeDeletes[w.new.URN].Old.PendingReplacement:
		olds = g.cascadeDeletes[w.new.URN].Old.Inputs
	}
	if g.plan.made != nil {
		goal := *actual
		goal.Inputs = plan.NewDiff(olds, w.new.Inputs)
		g.plan.entry(w.new.URN).Goal = &goal
	}
	if g.plan.check == nil {
		return nil
	}
	return g.plan.check.Goal(w.new.URN, w.old, actual, olds, w.new.Inputs)
}

// planOutputs records, or holds to the given plan, the outputs a
// component registers.
func (g *Generator) planOutputs(urn resource.URN, olds, news resource.PropertyMap) error {
	if g.plan.made != nil {
		e := g.plan.entry(urn)
		if e.Goal == nil {
			e.Goal = &plan.Goal{}
		}
		e.Goal.Outputs = plan.NewDiff(olds, news)
	}
	if g.plan.check == nil {
		return nil
	}
	return g.plan.check.Outputs(urn, olds, news)
}

// planned records, or holds to the given plan, the steps of what the
// generator returns, and counts the calls it asks for (see Settled).
func (g *Generator) planned(acts Actions, err error) (Actions, error) {
	if err == nil && g.plan.active() {
		err = g.planSteps(acts.Steps)
	}
	g.seal(err != nil)
	if err != nil {
		return Actions{}, err
	}
	g.calls += len(acts.Calls)
	return acts, nil
}

// planSteps records, or holds to the given plan, the operations of steps.
// The create (or read) of a replacement stands for its replace step too,
// which the generator issues only once the create has ended.
func (g *Generator) planSteps(steps []*Step) error {
	for _, s := range steps {
		if s.Op == OpOutputs {
			continue // outputs are held to the goal's Outputs instead
		}
		if err := g.planOp(s.urn, plan.Op(s.Op)); err != nil {
			return err
		}
		if (s.Op == OpCreateReplacement || s.Op == OpReadReplacement) && s.Refused() == nil {
			if err := g.planOp(s.urn, plan.Op(OpReplace)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (g *Generator) planOp(urn resource.URN, op plan.Op) error {
	if g.plan.made != nil {
		e := g.plan.entry(urn)
		e.Ops = append(e.Ops, op)
	}
	if g.plan.check != nil {
		return g.plan.check.Step(urn, op)
	}
	return nil
}

// entry returns the recorded plan's entry for urn, adding it if needed.
func (p *planner) entry(urn resource.URN) *plan.Resource {
	e := p.made.Resources[urn]
	if e == nil {
		e = &plan.Resource{}
		p.made.Resources[urn] = e
	}
	return e
}
