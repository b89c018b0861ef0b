package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/plan"
)

// Issue 29: a plan holds for the state it was made against. Applied a
// second time, after the first application changed the stack, it is
// refused with a *plan.StaleError that says to preview again, and nothing
// runs; it used to be applied again, reporting "unchanged" steps as if the
// plan still held.
func TestPlanAppliedTwiceIsRefused(t *testing.T) {
	c := newCloud()
	env := newEnv(t, c)
	program := things(map[string]engine.Props{"a": {"size": 1}, "b": {"size": 2}})
	p, _ := previewPlan(t, env, program)
	if _, err := env.Up(program, engine.UsePlan(p)); err != nil {
		t.Fatalf("the first up with the plan: %v", err)
	}
	writes := c.Writes()
	checks := c.checks

	res, err := env.Up(program, engine.UsePlan(p))
	var stale *plan.StaleError
	if !errors.As(err, &stale) {
		t.Fatalf("the second up with the plan: err = %v, want a *plan.StaleError", err)
	}
	wantErr(t, err, `stack "dev"`, "changed since the preview", "preview again")
	if res != nil && len(res.Steps) != 0 {
		t.Errorf("the refused up ran steps: %v", res.Steps)
	}
	if diff := cmp.Diff(writes, c.Writes()); diff != "" || c.checks != checks {
		t.Errorf("the refused up called the provider (writes -before +after):\n%s", diff)
	}

	// So is a plan given to a preview of the changed stack.
	if _, err := env.Preview(program, engine.UsePlan(p)); !errors.As(err, &stale) {
		t.Errorf("a preview with the stale plan: err = %v, want a *plan.StaleError", err)
	}
}

// A stack changed by another update between the preview and the update
// refuses the plan, even if the program would keep to it.
func TestPlanMadeBeforeAnotherUpdateIsRefused(t *testing.T) {
	env := newEnv(t, newCloud())
	program := things(map[string]engine.Props{"a": {"size": 1}})
	p, _ := previewPlan(t, env, program)
	if _, err := env.Up(things(map[string]engine.Props{"other": {}})); err != nil {
		t.Fatal(err)
	}
	var stale *plan.StaleError
	if _, err := env.Up(program, engine.UsePlan(p)); !errors.As(err, &stale) {
		t.Fatalf("err = %v, want a *plan.StaleError", err)
	}
}

// An update that changed nothing leaves the state as the plan found it:
// the plan still holds.
func TestPlanHoldsWhileTheStateIsUnchanged(t *testing.T) {
	env := newEnv(t, newCloud())
	program := things(map[string]engine.Props{"a": {"size": 1}})
	if _, err := env.Up(program); err != nil {
		t.Fatal(err)
	}
	p, _ := previewPlan(t, env, program)
	for i := range 2 {
		if _, err := env.Up(program, engine.UsePlan(p)); err != nil {
			t.Fatalf("up %d with the plan: %v", i+1, err)
		}
	}
}

// A plan that records no state (saved by a version that did not record
// one, or built by hand) cannot be checked, and is refused.
func TestPlanWithoutAStateIsRefused(t *testing.T) {
	env := newEnv(t, newCloud())
	program := things(map[string]engine.Props{"a": {"size": 1}})
	p, _ := previewPlan(t, env, program)
	p.State = ""
	_, err := env.Up(program, engine.UsePlan(p))
	var stale *plan.StaleError
	if !errors.As(err, &stale) || !strings.Contains(err.Error(), "does not record the state") {
		t.Fatalf("err = %v, want a *plan.StaleError for a plan without a state", err)
	}
}

// An update given a plan that fails for a resource's own reason reports
// that failure alone: the stack outputs it keeps after a failure (those
// recorded before, with the program's over them) are not held to the
// plan, which planned the program's. The conformance agreement campaign
// found the extra "does not keep to the plan" error.
func TestPlanDoesNotHoldTheOutputsKeptAfterAFailure(t *testing.T) {
	c := newCloud()
	env := newEnv(t, c)
	if _, err := env.Up(func(ctx *engine.Context) error {
		ctx.Export("old", 1)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	program := func(ctx *engine.Context) error {
		a := ctx.Register(thing, "a", engine.Props{})
		ctx.Register(thing, "b", engine.Props{})
		ctx.Export("new", a.ID())
		return nil
	}
	p, _ := previewPlan(t, env, program)
	c.failCreate["b"] = errors.New("quota exceeded")
	_, err := env.Up(program, engine.UsePlan(p))
	if err == nil || !strings.Contains(err.Error(), "quota exceeded") {
		t.Fatalf("err = %v, want b's failure", err)
	}
	if strings.Contains(err.Error(), "does not keep to the plan") {
		t.Errorf("the failed update also reports a plan violation: %v", err)
	}
}
