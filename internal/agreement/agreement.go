// Package agreement is the oracle for the promise that a preview predicts
// the update: given the result of a preview run with engine.GeneratePlan
// and of the update run after it with engine.UsePlan, it says where the
// preview did not predict what the update did. The engine's property test
// and the conformance suite's agreement campaign both judge by it; each
// runs its own programs and collects the inputs the provider saw its own
// way.
package agreement

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/plan"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// Inputs holds the inputs each resource's provider was given, by URN.
type Inputs = map[resource.URN]resource.PropertyMap

// Compare returns the ways the preview's result does not predict the
// update's, each naming its resource (or the stack outputs), in URN
// order; none when it predicts it:
//
//   - the preview and the update touch the same resources;
//   - each resource's steps are the same, in the same order (a
//     replacement's order included; consecutive deletes of one URN's
//     copies, which the engine runs side by side, in any order), except
//     that where the preview could
//     not know a value — the resource's inputs held an unknown, or a
//     resource it depends on took a lesser step than predicted — a
//     predicted replacement may turn out an update or a same, and a
//     predicted update a same;
//   - the steps of a resource in reached (see CascadeReached) need only
//     come to the same, replaced or deleted, in any order;
//   - every input value the preview knew (previewInputs) is the update's
//     (upInputs), an unknown standing for any value, and so is every
//     stack output the preview knew.
func Compare(preview, up *engine.Result, previewInputs, upInputs Inputs, reached map[resource.URN]bool) []string {
	pre, got := opsByURN(preview), opsByURN(up)
	var out []string
	for _, urn := range slices.Sorted(maps.Keys(got)) {
		if _, ok := pre[urn]; !ok {
			out = append(out, fmt.Sprintf("%s: the update took %v, the preview nothing", urn, got[urn]))
		}
	}
	for _, urn := range slices.Sorted(maps.Keys(pre)) {
		if _, ok := got[urn]; !ok {
			out = append(out, fmt.Sprintf("%s: the preview took %v, the update nothing", urn, pre[urn]))
		}
	}
	lesser := lesserSteps(pre, got, previewInputs, dependsOn(up.Snapshot))
	for _, urn := range slices.Sorted(maps.Keys(got)) {
		p, ok := pre[urn]
		switch {
		case !ok || slices.Equal(p, got[urn]) || lesser[urn]:
		case reached[urn] && settled(p) == settled(got[urn]):
		default:
			out = append(out, fmt.Sprintf("%s: the preview took %v, the update %v", urn, p, got[urn]))
		}
	}
	for _, urn := range slices.Sorted(maps.Keys(upInputs)) {
		if p, ok := previewInputs[urn]; ok {
			if err := predicts(resource.NewObject(p), resource.NewObject(upInputs[urn])); err != nil {
				out = append(out, fmt.Sprintf("%s: inputs: %v", urn, err))
			}
		}
	}
	if err := predicts(resource.NewObject(preview.Outputs), resource.NewObject(up.Outputs)); err != nil {
		out = append(out, fmt.Sprintf("stack outputs: %v", err))
	}
	return out
}

// lesserSteps returns the resources whose steps may be lesser than
// predicted, to a fixpoint: those whose inputs the preview saw with an
// unknown, or that depend on one that took a lesser step.
func lesserSteps(pre, got map[resource.URN][]engine.StepOp, previewInputs Inputs, deps map[resource.URN][]resource.URN) map[resource.URN]bool {
	lesser := map[resource.URN]bool{}
	for changed := true; changed; {
		changed = false
		for urn, ops := range got {
			if lesser[urn] || slices.Equal(pre[urn], ops) || !weaker(pre[urn], ops) {
				continue
			}
			unknown := previewInputs[urn].ContainsUnknowns()
			for _, d := range deps[urn] {
				unknown = unknown || lesser[d]
			}
			if unknown {
				lesser[urn], changed = true, true
			}
		}
	}
	return lesser
}

// IsRefusal reports whether err is the update refusing the preview's
// plan: a *plan.ViolationError or a *plan.StaleError.
func IsRefusal(err error) bool {
	var violation *plan.ViolationError
	var stale *plan.StaleError
	return errors.As(err, &violation) || errors.As(err, &stale)
}

// IsCascadeRefusal reports whether err is the update refusing the plan
// for the exception a delete-before-replace cascade makes: a resource in
// reached (see CascadeReached) that the preview planned to stay or be
// updated, and that the cascade replaced or deleted. Whether the program
// registered that resource before the cascade was decided is the
// schedule's doing, which a preview cannot know.
func IsCascadeRefusal(err error, reached map[resource.URN]bool) bool {
	var v *plan.ViolationError
	if !errors.As(err, &v) || !reached[v.URN] {
		return false
	}
	stays := v.Planned == plan.OpSame || v.Planned == plan.OpUpdate
	takes := v.Op == plan.OpDeleteReplaced || v.Op == plan.OpCreateReplacement || v.Op == plan.OpDelete
	return stays && takes && v.Option == "" && len(v.Properties) == 0
}

// CascadeReached lists the resources whose last recorded copy (in prev,
// the state the preview started from) depended, directly or through
// others, on a resource that one of results replaced
// delete-before-replace. Such a resource's steps depend on whether the
// program registered it before that cascade was decided, which a preview
// cannot know: registered before, it is replaced create-before-delete and
// its old copy deleted in the cascade; after, the cascade deletes it and
// its registration creates it again, or replaces what the cascade might
// change.
func CascadeReached(prev *state.Snapshot, results ...*engine.Result) map[resource.URN]bool {
	reached := map[resource.URN]bool{}
	if prev == nil {
		return reached
	}
	var roots []resource.URN
	for _, res := range results {
		if res == nil {
			continue
		}
		for urn, ops := range opsByURN(res) {
			if i := slices.Index(ops, engine.StepDeleteReplaced); i >= 0 && slices.Contains(ops[i:], engine.StepCreate) {
				roots = append(roots, urn)
			}
		}
	}
	dependents := map[resource.URN][]resource.URN{}
	for urn, deps := range dependsOn(prev) {
		for _, d := range deps {
			dependents[d] = append(dependents[d], urn)
		}
	}
	for len(roots) > 0 {
		r := roots[len(roots)-1]
		roots = roots[:len(roots)-1]
		for _, d := range dependents[r] {
			if !reached[d] {
				reached[d] = true
				roots = append(roots, d)
			}
		}
	}
	return reached
}

// settled is what a resource's steps come to, for one a cascade reached:
// replaced or deleted, whichever order the steps took.
func settled(ops []engine.StepOp) string {
	switch {
	case slices.Contains(ops, engine.StepCreateReplacement) ||
		slices.Contains(ops, engine.StepDeleteReplaced) && slices.Contains(ops, engine.StepCreate):
		return "replaced"
	case !slices.ContainsFunc(ops, func(op engine.StepOp) bool { return op != engine.StepDelete && op != engine.StepDeleteReplaced }):
		return "deleted"
	}
	return fmt.Sprint(ops)
}

// opsByURN lists each resource's steps, in order.
func opsByURN(res *engine.Result) map[resource.URN][]engine.StepOp {
	out := map[resource.URN][]engine.StepOp{}
	for _, s := range res.Steps {
		out[s.URN] = append(out[s.URN], s.Op)
	}
	for _, ops := range out {
		sortDeleteRuns(ops)
	}
	return out
}

// sortDeleteRuns puts each run of consecutive deletes (delete and
// delete-replaced) in ops in one order. Those are deletes of copies of one
// URN (the live resource and old copies a failed replacement left) made
// in the same layer of the delete graph: no copy depends on another of its
// URN, so the engine runs them side by side and they end in whatever order
// the schedule gives, which a preview cannot predict.
func sortDeleteRuns(ops []engine.StepOp) {
	deleting := func(op engine.StepOp) bool { return op == engine.StepDelete || op == engine.StepDeleteReplaced }
	for i := 0; i < len(ops); {
		j := i
		for j < len(ops) && deleting(ops[j]) {
			j++
		}
		if j > i+1 {
			slices.Sort(ops[i:j])
		}
		i = max(j, i+1)
	}
}

// weaker reports whether got is a lesser step than pre predicted: a
// replacement that turned out an update or a same, or an update a same.
func weaker(pre, got []engine.StepOp) bool {
	single := func(ops []engine.StepOp, op engine.StepOp) bool { return len(ops) == 1 && ops[0] == op }
	replacing := slices.ContainsFunc(pre, func(op engine.StepOp) bool {
		return op == engine.StepReplace || op == engine.StepCreateReplacement || op == engine.StepDeleteReplaced
	})
	switch {
	case replacing:
		return single(got, engine.StepUpdate) || single(got, engine.StepSame)
	case single(pre, engine.StepUpdate):
		return single(got, engine.StepSame)
	}
	return false
}

// dependsOn lists what each recorded resource depends on: its
// dependencies, its parent and its property dependencies.
func dependsOn(snap *state.Snapshot) map[resource.URN][]resource.URN {
	out := map[resource.URN][]resource.URN{}
	if snap == nil {
		return out
	}
	for _, s := range snap.Resources {
		ds := slices.Clone(s.Dependencies)
		if s.Parent != "" {
			ds = append(ds, s.Parent)
		}
		for _, pd := range s.PropertyDependencies {
			ds = append(ds, pd...)
		}
		out[s.URN] = ds
	}
	return out
}

// predicts reports whether pre, a value a preview gave, stands for got:
// equal, an unknown standing for any value.
func predicts(pre, got resource.PropertyValue) error {
	switch {
	case pre.IsUnknown():
		return nil
	case pre.IsSecret() && got.IsSecret():
		return predicts(pre.SecretElement(), got.SecretElement())
	case pre.IsObject() && got.IsObject():
		po, gp := pre.ObjectValue(), got.ObjectValue()
		keys := slices.Sorted(maps.Keys(po))
		for _, k := range slices.Sorted(maps.Keys(gp)) {
			if _, ok := po[k]; !ok {
				keys = append(keys, k)
			}
		}
		var errs []error
		for _, k := range keys {
			if err := predicts(po[k], gp[k]); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", k, err))
			}
		}
		return errors.Join(errs...)
	case pre.IsArray() && got.IsArray() && len(pre.ArrayValue()) == len(got.ArrayValue()):
		for i, e := range pre.ArrayValue() {
			if err := predicts(e, got.ArrayValue()[i]); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return nil
	case pre.DeepEquals(got):
		return nil
	}
	return fmt.Errorf("the preview has %v, the update %v", pre, got)
}
