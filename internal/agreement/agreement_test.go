package agreement

import (
	"fmt"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/plan"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

func result(outputs resource.PropertyMap, steps ...engine.StepRecord) *engine.Result {
	return &engine.Result{Steps: steps, Outputs: outputs, Snapshot: &state.Snapshot{}}
}

func step(op engine.StepOp, urn resource.URN) engine.StepRecord {
	return engine.StepRecord{Op: op, URN: urn}
}

func TestCompare(t *testing.T) {
	known := Inputs{"a": {"x": resource.NewString("1")}}
	unknown := Inputs{"a": {"x": resource.NewUnknown()}}
	replaced := []engine.StepRecord{
		step(engine.StepCreateReplacement, "a"), step(engine.StepReplace, "a"), step(engine.StepDeleteReplaced, "a"),
	}
	tests := []struct {
		name        string
		preview, up *engine.Result
		preIn, upIn Inputs
		reached     map[resource.URN]bool
		want        []string // substrings, one a disagreement
	}{
		{name: "the same steps", preview: result(nil, step(engine.StepUpdate, "a")), up: result(nil, step(engine.StepUpdate, "a"))},
		{name: "a resource the preview did not touch",
			preview: result(nil), up: result(nil, step(engine.StepCreate, "a")),
			want: []string{"a: the update took [create], the preview nothing"}},
		{name: "a resource the update did not touch",
			preview: result(nil, step(engine.StepCreate, "a")), up: result(nil),
			want: []string{"a: the preview took [create], the update nothing"}},
		{name: "an update where the preview knew every input",
			preview: result(nil, replaced...), up: result(nil, step(engine.StepUpdate, "a")), preIn: known,
			want: []string{"a: the preview took [create-replacement replace delete-replaced], the update [update]"}},
		{name: "an update where the preview saw an unknown",
			preview: result(nil, replaced...), up: result(nil, step(engine.StepUpdate, "a")), preIn: unknown},
		{name: "a stronger step than predicted, even with an unknown",
			preview: result(nil, step(engine.StepUpdate, "a")), up: result(nil, replaced...), preIn: unknown,
			want: []string{"a: the preview took [update], the update [create-replacement replace delete-replaced]"}},
		{name: "a cascade's other order",
			preview: result(nil, replaced...),
			up:      result(nil, step(engine.StepDeleteReplaced, "a"), step(engine.StepCreate, "a")),
			reached: map[resource.URN]bool{"a": true}},
		{name: "another order a cascade did not reach",
			preview: result(nil, replaced...),
			up:      result(nil, step(engine.StepDeleteReplaced, "a"), step(engine.StepCreate, "a")),
			want:    []string{"a: the preview took"}},
		{name: "deletes of one URN's copies in the other order",
			preview: result(nil, step(engine.StepDeleteReplaced, "a"), step(engine.StepDelete, "a")),
			up:      result(nil, step(engine.StepDelete, "a"), step(engine.StepDeleteReplaced, "a"))},
		{name: "a replacement's delete does not move past its create",
			preview: result(nil, step(engine.StepCreateReplacement, "a"), step(engine.StepReplace, "a"), step(engine.StepDeleteReplaced, "a")),
			up:      result(nil, step(engine.StepDeleteReplaced, "a"), step(engine.StepCreateReplacement, "a"), step(engine.StepReplace, "a")),
			want:    []string{"a: the preview took"}},
		{name: "a known input that changed",
			preview: result(nil, step(engine.StepCreate, "a")), up: result(nil, step(engine.StepCreate, "a")),
			preIn: known, upIn: Inputs{"a": {"x": resource.NewString("2")}},
			want: []string{"a: inputs: x: the preview has"}},
		{name: "an unknown input stands for any value",
			preview: result(nil, step(engine.StepCreate, "a")), up: result(nil, step(engine.StepCreate, "a")),
			preIn: unknown, upIn: known},
		{name: "a stack output that changed",
			preview: result(resource.PropertyMap{"o": resource.NewString("1")}),
			up:      result(resource.PropertyMap{"o": resource.NewString("2")}),
			want:    []string{"stack outputs: o: the preview has"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compare(tt.preview, tt.up, tt.preIn, tt.upIn, tt.reached)
			if len(got) != len(tt.want) {
				t.Fatalf("Compare = %q, want %d disagreements like %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("disagreement %d = %q, want it to hold %q", i, got[i], w)
				}
			}
		})
	}
}

func TestCascadeReachedAndRefusal(t *testing.T) {
	prev := &state.Snapshot{Resources: []*resource.State{
		{URN: "root"}, {URN: "child", Dependencies: []resource.URN{"root"}},
		{URN: "grandchild", PropertyDependencies: map[resource.PropertyKey][]resource.URN{"p": {"child"}}},
		{URN: "alone"},
	}}
	up := result(nil, step(engine.StepDeleteReplaced, "root"), step(engine.StepCreate, "root"))
	reached := CascadeReached(prev, nil, up)
	if fmt.Sprint(reached) != "map[child:true grandchild:true]" {
		t.Fatalf("CascadeReached = %v, want child and grandchild", reached)
	}
	if got := CascadeReached(nil, up); len(got) != 0 {
		t.Errorf("CascadeReached with no earlier state = %v, want none", got)
	}
	tests := []struct {
		err              error
		refusal, excused bool
	}{
		{err: nil},
		{err: fmt.Errorf("boom")},
		{err: &plan.StaleError{}, refusal: true},
		{err: &plan.ViolationError{URN: "child", Op: plan.OpDeleteReplaced, Planned: plan.OpSame}, refusal: true, excused: true},
		{err: fmt.Errorf("up: %w", &plan.ViolationError{URN: "grandchild", Op: plan.OpDelete, Planned: plan.OpUpdate}), refusal: true, excused: true},
		{err: &plan.ViolationError{URN: "alone", Op: plan.OpDeleteReplaced, Planned: plan.OpSame}, refusal: true},
		{err: &plan.ViolationError{URN: "child", Op: plan.OpUpdate, Planned: plan.OpSame}, refusal: true},
		{err: &plan.ViolationError{URN: "child", Op: plan.OpDeleteReplaced, Planned: plan.OpSame, Option: "protect"}, refusal: true},
	}
	for i, tt := range tests {
		if got := IsRefusal(tt.err); got != tt.refusal {
			t.Errorf("%d: IsRefusal(%v) = %v", i, tt.err, got)
		}
		if got := IsCascadeRefusal(tt.err, reached); got != tt.excused {
			t.Errorf("%d: IsCascadeRefusal(%v) = %v", i, tt.err, got)
		}
	}
}
