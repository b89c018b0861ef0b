package engine_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/resource"
)

// TestMandatoryPolicyViolationIsAFailedStep: a resource that violates a
// mandatory policy fails at the step it would have taken (create, same,
// update or replace), without a provider call: the event stream shows that
// step failed, the summary counts the failure, the operation's error is the
// *engine.PolicyError, and the resource's record is left as it was.
func TestMandatoryPolicyViolationIsAFailedStep(t *testing.T) {
	noBig := policy{resource: func(r *resource.State) []engine.PolicyFinding {
		if r.Type == thing && r.Inputs["size"].NumberValue() > 10 {
			return []engine.PolicyFinding{{Policy: "no-big", Message: "too big", Mandatory: true}}
		}
		return nil
	}}
	one := func(props engine.Props) engine.Program {
		return func(ctx *engine.Context) error {
			ctx.Register(thing, "a", props)
			return nil
		}
	}
	tests := []struct {
		name    string
		first   engine.Program // deployed without the policy; nil for none
		program engine.Program
		preview bool
		step    string
		size    float64 // a's recorded size afterwards; 0 for no record
	}{
		{name: "a new resource", program: one(engine.Props{"size": 50}), step: "create a: failed"},
		{name: "an update", first: one(engine.Props{"size": 1}), program: one(engine.Props{"size": 50}),
			step: "update a: failed", size: 1},
		{name: "an unchanged resource", first: one(engine.Props{"size": 50}), program: one(engine.Props{"size": 50}),
			step: "same a: failed", size: 50},
		{name: "a replacement", first: one(engine.Props{"size": 1, "zone": "x"}), program: one(engine.Props{"size": 50, "zone": "y"}),
			step: "replace a: failed", size: 1},
		{name: "a preview", first: one(engine.Props{"size": 1}), program: one(engine.Props{"size": 50}), preview: true,
			step: "update a: failed", size: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud("zone")
			env := newEnv(t, c)
			if tt.first != nil {
				if _, err := env.Up(tt.first); err != nil {
					t.Fatal(err)
				}
			}
			before := len(c.Writes())
			run := env.Up
			if tt.preview {
				run = env.Preview
			}
			res, err := run(tt.program, engine.Analyzers(noBig))
			var pe *engine.PolicyError
			if !errors.As(err, &pe) || len(pe.Findings) != 1 || pe.Findings[0].URN != env.URN(thing, "a") {
				t.Fatalf("err = %v, want a PolicyError about a", err)
			}
			if w := c.Writes()[before:]; len(w) != 0 {
				t.Errorf("writes = %v, want none", w)
			}
			if diff := cmp.Diff([]string{tt.step}, outcomes(res)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			step := tt.step[:len(tt.step)-len(": failed")]
			if diff := cmp.Diff([]string{step}, failedEvents(env)); diff != "" {
				t.Errorf("failed step events (-want +got):\n%s", diff)
			}
			if s := summary(t, env); s.Failed != 1 || s.Error == "" {
				t.Errorf("summary: %d failed, error %q; want 1 and the error", s.Failed, s.Error)
			}
			a := env.Resource(env.URN(thing, "a"))
			switch {
			case tt.size == 0 && a != nil:
				t.Errorf("a is recorded: %+v", a)
			case tt.size != 0 && (a == nil || a.Inputs["size"].NumberValue() != tt.size):
				t.Errorf("a = %+v, want its record with size %v", a, tt.size)
			}
		})
	}
}
