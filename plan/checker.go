package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/resource"
)

// Checker holds one operation to a plan. It follows, resource by resource,
// which planned steps have been taken, so the plan itself is never
// changed. A Checker must not be used from more than one goroutine at a
// time.
type Checker struct {
	plan *Plan
	// left holds, per URN, the planned steps not taken yet (filled from
	// the plan on first use).
	left map[resource.URN][]Op
}

// NewChecker returns a Checker for p.
func NewChecker(p *Plan) *Checker {
	return &Checker{plan: p, left: make(map[resource.URN][]Op, len(p.Resources))}
}

// Goal holds a registration to the plan once its inputs are checked. old
// is the resource's recorded state (nil for none), actual the program's
// options (GoalOf), olds the recorded inputs the registration is compared
// with (nil for a resource created afresh) and news its checked inputs.
func (c *Checker) Goal(urn resource.URN, old *resource.State, actual *Goal, olds, news resource.PropertyMap) error {
	r := c.plan.Resources[urn]
	switch {
	case r == nil && old != nil:
		return checkUnplanned(old, actual, news)
	case r == nil:
		return nil // its create is refused by Step
	case r.Goal == nil:
		return &ViolationError{URN: urn, Option: "declared", detail: fmt.Sprintf(
			"the program declares it, but the plan only has it %s", describeOps(r.Ops))}
	}
	return r.Goal.Check(urn, actual, olds, news)
}

// Outputs holds the outputs a component (or the stack) registers to the
// plan: olds are those recorded before, news those registered now.
func (c *Checker) Outputs(urn resource.URN, olds, news resource.PropertyMap) error {
	if r := c.plan.Resources[urn]; r != nil && r.Goal != nil {
		return r.Goal.CheckOutputs(urn, olds, news)
	}
	return nil
}

// Step holds the next step on a resource to the plan: a resource the plan
// does not hold may only stay the same; otherwise the step must be allowed
// by the next planned one (Allows), or be one of the replacement steps
// planned next (takeFromGroup). A replacement planned and found to be
// an update or a same drops the rest of the replacement's steps.
func (c *Checker) Step(urn resource.URN, op Op) error {
	left, seen := c.left[urn]
	if !seen {
		r := c.plan.Resources[urn]
		if r == nil {
			if op == OpSame {
				return nil
			}
			return &ViolationError{URN: urn, Op: op}
		}
		left = slices.Clone(r.Ops)
	}
	if r := c.plan.Resources[urn]; deleting(op) && r.Goal == nil && len(r.Ops) > 0 && !slices.ContainsFunc(r.Ops, notDeleting) {
		// A resource the program no longer declares is deleted by a
		// delete-before-replace cascade of a resource it depended on, or
		// after the program, depending on whether the cascade learns in
		// time that it is going; either way it is deleted as planned.
		c.left[urn] = nil
		return nil
	}
	if len(left) == 0 {
		return &ViolationError{URN: urn, Op: op}
	}
	if !Allows(left[0], op) {
		if rest, ok := takeFromGroup(left, op); ok {
			c.left[urn] = rest
			return nil
		}
	}
	planned := left[0]
	left = left[1:]
	if !Allows(planned, op) {
		return &ViolationError{URN: urn, Op: op, Planned: planned}
	}
	if planned != op && replacing(planned) {
		left = withoutReplacement(planned, left)
	}
	c.left[urn] = left
	return nil
}

// deleting reports whether op deletes a resource's object.
func deleting(op Op) bool { return op == OpDelete || op == OpDeleteReplaced }

func notDeleting(op Op) bool { return !deleting(op) }

// replacing reports whether op is a step of a replacement.
func replacing(op Op) bool {
	return op == OpCreateReplacement || op == OpReplace || op == OpDeleteReplaced
}

// takeFromGroup takes op out of the replacement steps planned next (the
// leading run of creates, create-replacements, replaces and deletes in
// left) when the next planned step does not allow it, and returns the
// rest. What the steps of a resource's replacement, and the deletes of its
// old copies, come in order of is the schedule's doing: whether a
// resource whose old copy depended on one replaced delete-before-replace
// is registered before or after that cascade reaches it, which a preview
// cannot know. So op may be any of them, and a replacement may be taken in
// the other order: a create where create-replacement, replace were planned
// (delete-before-create taken for create-before-delete), or a
// create-replacement where a create was (the reverse), its replace then
// expected. The resource's own deleteBeforeReplace is held by its goal.
func takeFromGroup(left []Op, op Op) ([]Op, bool) {
	n := 0
	for n < len(left) && grouped(left[n]) {
		n++
	}
	if !grouped(op) || n == 0 {
		return nil, false
	}
	group, rest := slices.Clone(left[:n]), left[n:]
	switch i := slices.Index(group, op); {
	case i >= 0:
		group = slices.Delete(group, i, i+1)
	case op == OpCreate && slices.Contains(group, OpCreateReplacement):
		i := slices.Index(group, OpCreateReplacement)
		group = slices.Delete(group, i, i+1)
		if j := slices.Index(group, OpReplace); j >= 0 {
			group = slices.Delete(group, j, j+1)
		}
	case op == OpCreateReplacement && slices.Contains(group, OpCreate):
		group[slices.Index(group, OpCreate)] = OpReplace
	default:
		return nil, false
	}
	return append(group, rest...), true
}

// grouped reports whether op is a step of a replacement or a delete.
func grouped(op Op) bool {
	return op == OpCreate || op == OpCreateReplacement || op == OpReplace || op == OpDeleteReplaced || op == OpDelete
}

// withoutReplacement drops the rest of a planned replacement that turned
// out an update or a same: the replacement's other steps will not come —
// the create that follows a delete-before-replace's delete, or the replace
// and the delete of the replaced copy that follow a create-replacement.
// One step of each kind is dropped, not all: the other delete-replaced
// steps planned for the resource are the deletes of old copies an earlier
// run left, which still come, before or after this step.
func withoutReplacement(first Op, left []Op) []Op {
	left = slices.Clone(left)
	drop := func(op Op) {
		if i := slices.Index(left, op); i >= 0 {
			left = slices.Delete(left, i, i+1)
		}
	}
	switch first {
	case OpDeleteReplaced:
		drop(OpCreate)
	case OpCreateReplacement:
		drop(OpReplace)
		drop(OpDeleteReplaced)
	case OpReplace:
		drop(OpCreateReplacement)
		drop(OpDeleteReplaced)
	}
	return left
}

// Done reports, once the operation has issued all its steps, whether
// every planned step was taken. A planned delete of a resource the stack
// does not record (recorded reports false) was not needed. It returns a
// *ViolationError for the first step missing, in URN order, or nil.
func (c *Checker) Done(recorded func(resource.URN) bool) error {
	urns := make([]resource.URN, 0, len(c.plan.Resources))
	for u := range c.plan.Resources {
		urns = append(urns, u)
	}
	slices.Sort(urns)
	for _, u := range urns {
		left, seen := c.left[u]
		if !seen {
			left = c.plan.Resources[u].Ops
		}
		if len(left) == 0 || onlyDeletes(left) && !recorded(u) {
			continue
		}
		return &ViolationError{URN: u, Op: left[0], NotTaken: true}
	}
	return nil
}

func onlyDeletes(ops []Op) bool {
	return !slices.ContainsFunc(ops, func(op Op) bool { return op != OpDelete && op != OpDeleteReplaced && op != OpDiscard })
}

func describeOps(ops []Op) string {
	if len(ops) == 0 {
		return "with no steps"
	}
	return "for " + strings.Join(strs(ops), ", then ")
}
