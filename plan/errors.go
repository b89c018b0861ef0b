package plan

import (
	"fmt"
	"strings"

	"github.com/groundwork-iac/groundwork/resource"
)

// ViolationError reports what an update given a plan refused: a step the
// plan does not allow, a planned step that did not happen, a resource
// option that changed, or properties outside the plan. A refused step or
// registration changed nothing.
type ViolationError struct {
	URN resource.URN
	// Op is the step refused, or the planned step not taken (NotTaken).
	Op Op
	// Planned is the planned step Op was held to; "" when the plan held
	// no (more) steps for the resource.
	Planned Op
	// NotTaken marks a planned step (Op) that the update did not take.
	NotTaken bool
	// Option names the resource option that changed ("protect",
	// "provider", "dependencies", ...).
	Option string
	// Properties are the inputs (or registered outputs) outside the plan.
	Properties []PropertyViolation

	detail string
}

// PropertyViolation is one property outside the plan.
type PropertyViolation struct {
	Key resource.PropertyKey
	// Output marks a registered output of a component or the stack, not
	// an input.
	Output bool
	// Planned and Actual say, in words, what the plan said of the
	// property and what happens to it now; secret values are masked.
	Planned string
	Actual  string
}

func (p PropertyViolation) String() string {
	what := "input"
	if p.Output {
		what = "output"
	}
	return fmt.Sprintf("%s %q was planned %s but %s", what, p.Key, p.Planned, p.Actual)
}

func (e *ViolationError) Error() string {
	return fmt.Sprintf("%s does not keep to the plan: %s; preview again to make a new plan", e.URN, e.what())
}

func (e *ViolationError) what() string {
	switch {
	case len(e.Properties) > 0:
		parts := make([]string, len(e.Properties))
		for i, p := range e.Properties {
			parts[i] = p.String()
		}
		return strings.Join(parts, ", ")
	case e.detail != "":
		return e.detail
	case e.NotTaken:
		return fmt.Sprintf("the plan says %s, but the update did not do it", e.Op)
	case e.Planned == "":
		return fmt.Sprintf("the plan holds no %s step for it", e.Op)
	}
	return fmt.Sprintf("the step would be %s, but the plan says %s", e.Op, e.Planned)
}
