package stepgen_test

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/groundwork-iac/groundwork/plan"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// TestPlanHoldsWhateverTheSchedule checks that a plan recorded while one
// schedule ran a program is kept when another schedule runs it again on
// the same recorded state: the registrations arrive, and the calls and
// steps end, in another order. A preview and the update it plans never
// share a schedule (the update waits for real creates), so a plan that
// depended on the schedule would refuse updates that do what the preview
// said. The programs are TestDeleteOrderProperty's.
//
// One thing a schedule decides, in this engine as in the reference: what a
// delete-before-replace cascade does to a dependent (a resource whose
// recorded copy depended on the one replaced, directly or through
// others). Registered before the cascade is decided, the dependent is
// replaced create-before-delete, or stays as it is; registered after, the
// cascade has deleted it (when its inputs might change) and the
// registration creates it again. The plan takes a replacement in either
// order, and a delete by the cascade or after the program, but holds a
// dependent planned to stay to that: the update refuses, before the
// dependent is touched, and the check allows that refusal only for a
// dependent a cascade reached.
//
// It checks 1,000 programs unless -rapid.checks or GROUNDWORK_RAPID_CHECKS
// says otherwise.
func TestPlanHoldsWhateverTheSchedule(t *testing.T) {
	defer manyChecks(t)()
	rapid.Check(t, func(rt *rapid.T) {
		p := drawOrderProgram(rt)
		first, _ := runOrderProgramWith(rt, p, stepgen.Config{RecordPlan: true})
		recorded := first.Plan()
		again, refused := runOrderProgramWith(rt, p, stepgen.Config{Plan: recorded})
		if refused != nil {
			if reachedByCascade(p, recorded)[refused.URN] && cascadeTook(refused) {
				return
			}
			rt.Fatalf("the plan refused: %v (planned for it: %v)", refused, recorded.Resources[refused.URN].Ops)
		}
		if err := again.PlanKept(); err != nil {
			rt.Fatalf("the plan was not kept: %v", err)
		}
	})
}

// reachedByCascade lists the resources whose recorded copy (or an old
// copy an earlier run left) depended, directly or through others, on one
// the plan replaces delete-before-replace.
func reachedByCascade(p *orderProgram, pl *plan.Plan) map[resource.URN]bool {
	reached := map[resource.URN]bool{}
	var roots []resource.URN
	for urn, r := range pl.Resources {
		if i := slices.Index(r.Ops, plan.OpDeleteReplaced); i >= 0 && slices.Contains(r.Ops[i:], plan.OpCreate) {
			roots = append(roots, urn)
		}
	}
	for len(roots) > 0 {
		root := roots[len(roots)-1]
		roots = roots[:len(roots)-1]
		for _, r := range p.res {
			ties := dependsOnOld(r.old, root) || r.copy != nil && dependsOnOld(r.copy, root)
			if !reached[r.old.URN] && ties {
				reached[r.old.URN] = true
				roots = append(roots, r.old.URN)
			}
		}
	}
	return reached
}

// cascadeTook reports whether a refusal is of a cascade taking a
// resource planned to stay (or to be updated): a replacement or a delete
// where the plan has a same or an update.
//
// The engine's agreement oracle (TestPreviewPredictsTheUpdate) allows the
// same refusal.
func cascadeTook(v *plan.ViolationError) bool {
	stays := v.Planned == plan.OpSame || v.Planned == plan.OpUpdate
	takes := v.Op == plan.OpDeleteReplaced || v.Op == plan.OpCreateReplacement || v.Op == plan.OpDelete
	return stays && takes && v.Option == "" && len(v.Properties) == 0
}
