package stepgen_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// TestOutputsFollowTheURNNotTheRegistration: what the generator records
// for a registration belongs to the URN the registration names when it is
// passed, even when the host passes a Registration it used before for
// another resource (here, one that registered component a, given the URN
// of component b to register b's outputs).
func TestOutputsFollowTheURNNotTheRegistration(t *testing.T) {
	h := newHost(t, stepgen.Config{}, nil)
	regA, _, err := h.register(resource.Goal{Type: group, Name: "a"})
	if err != nil {
		t.Fatal(err)
	}
	h.mustRegister(resource.Goal{Type: group, Name: "b"})
	stateA := h.gen.State(groupURN("a"))

	outs := props(map[string]any{"url": "https://example.com"})
	regA.URN = groupURN("b")
	acts, err := h.gen.RegisterOutputs(regA, outs)
	if err != nil {
		t.Fatal(err)
	}
	if s := onlyStep(t, [][]*stepgen.Step{acts.Steps}); s.URN() != groupURN("b") {
		t.Errorf("the outputs step is on %s, want %s", s.URN(), groupURN("b"))
	}
	if diff := cmp.Diff(outs, h.gen.State(groupURN("b")).Outputs); diff != "" {
		t.Errorf("b's outputs (-want +got):\n%s", diff)
	}
	if got := h.gen.State(groupURN("a")); got != stateA {
		t.Errorf("a's state changed to %+v", got)
	}
}
