package stepgen_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/groundwork-iac/groundwork/plan"
	"github.com/groundwork-iac/groundwork/providers"
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

// TestPlanHeldWithAnOldCopyInTheCascade holds an update to the plan of a
// run that met its resources in another order, where a delete-before-
// replace cascade reaches a dependent that has an old copy an earlier run
// left. a is replaced delete-before-replace; c, whose recorded copy
// depends on a, is replaced create-before-delete; b takes an input from c
// and has an old copy that does too. Planned with a registered before b,
// a's cascade deletes b and b's old copy, and b is created again; held with
// b registered before a, b stays as it is and the cascade deletes only its
// old copy. The plan has both deletes of b; only that of its current copy
// is not needed.
func TestPlanHeldWithAnOldCopyInTheCascade(t *testing.T) {
	a, b, c := urn("a"), urn("b"), urn("c")
	old := []*resource.State{
		recorded("a", map[string]any{"ra": "1"}),
		recorded("c", map[string]any{"rv": "1", "rc": "1"}, dependsOn(a)),
		recorded("b", map[string]any{"rp": "1"}, inputFrom("rp", c)),
		recorded("b", map[string]any{"rp": "0"}, inputFrom("rp", c), func(s *resource.State) {
			s.Delete, s.ID = true, "id-b-old"
		}),
	}
	goals := map[resource.URN]resource.Goal{
		a: goal("a", map[string]any{"ra": "2"}, func(g *resource.Goal) { g.DeleteBeforeReplace = true }),
		c: goal("c", map[string]any{"rv": "1", "rc": "2"}),
		b: goal("b", map[string]any{"rp": "1"}, func(g *resource.Goal) {
			g.PropertyDependencies = map[resource.PropertyKey][]resource.URN{"rp": {c}}
		}),
	}
	run := func(t *testing.T, cfg stepgen.Config, order []resource.URN) (*host, error) {
		t.Helper()
		created := 0
		prov := &providers.Func{
			DiffF: func(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
				return orderDiff(req.OldInputs, req.NewInputs), nil
			},
			CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
				created++
				return providers.CreateResponse{ID: resource.ID(fmt.Sprintf("id-%s-%d", req.URN.Name(), created)), Outputs: req.Inputs}, nil
			},
		}
		cfg.Old = old
		h := newHost(t, cfg, prov)
		for _, u := range order {
			_, chains, err := h.register(goals[u])
			if err != nil {
				return h, fmt.Errorf("registering %s: %w", u.Name(), err)
			}
			h.apply(chains)
		}
		layers, err := h.deletes()
		if err != nil {
			return h, fmt.Errorf("Deletes: %w", err)
		}
		h.apply(layers)
		return h, nil
	}
	tests := []struct {
		name            string
		planned, update []resource.URN
		// refused is the resource whose step the plan refuses, "" for none.
		refused string
	}{
		{"planned cascade first, updated dependent first", []resource.URN{c, a, b}, []resource.URN{c, b, a}, ""},
		{"same order", []resource.URN{c, a, b}, []resource.URN{c, a, b}, ""},
		// b was planned to stay: the cascade may not take it (see
		// TestPlanHoldsWhateverTheSchedule).
		{"planned dependent first, updated cascade first", []resource.URN{c, b, a}, []resource.URN{c, a, b}, "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first, err := run(t, stepgen.Config{RecordPlan: true}, tt.planned)
			if err != nil {
				t.Fatal(err)
			}
			recorded := first.gen.Plan()
			h, err := run(t, stepgen.Config{Plan: recorded}, tt.update)
			var v *plan.ViolationError
			switch {
			case tt.refused != "" && (!errors.As(err, &v) || v.URN != urn(tt.refused) || !cascadeTook(v)):
				t.Fatalf("got %v, want the plan to refuse the cascade's delete of %s", err, tt.refused)
			case tt.refused != "":
			case err != nil:
				t.Fatalf("%v (planned for b: %v)", err, recorded.Resources[b].Ops)
			default:
				if err := h.gen.PlanKept(); err != nil {
					t.Fatalf("the plan was not kept: %v (planned for b: %v)", err, recorded.Resources[b].Ops)
				}
			}
		})
	}
}
