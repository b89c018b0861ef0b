package stepgen_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// TestErrorMessages: each error says what is wrong, with what, and what to
// do about it.
func TestErrorMessages(t *testing.T) {
	tests := []struct {
		err  error
		want []string
	}{
		{&stepgen.RegistrationError{URN: urn("a"), Reason: "no good"}, []string{string(urn("a")), "no good"}},
		{&stepgen.RegistrationError{Type: thing, Name: "a", Reason: "no good"}, []string{thing, `"a"`, "no good"}},
		{&stepgen.RegistrationError{Reason: "no good"}, []string{"registering a resource: no good"}},
		{&stepgen.DuplicateURNError{URN: urn("a")}, []string{string(urn("a")), "registered twice", "unique name"}},
		{&stepgen.CheckFailedError{URN: urn("a"), Failures: []providers.CheckFailure{{Property: "x", Reason: "too big"}, {Reason: "bad"}}},
			[]string{string(urn("a")), "x: too big; bad"}},
		{&stepgen.AliasError{URN: urn("a"), Matches: []resource.URN{urn("x"), urn("y")}}, []string{string(urn("x")) + ", " + string(urn("y")), "keep only"}},
		{&stepgen.ProtectedError{URN: urn("a"), Action: "delete"}, []string{"cannot be deleted", "protect"}},
		{&stepgen.ProtectedError{URN: urn("a"), Action: "replace"}, []string{"cannot be replaced"}},
		{&stepgen.ProtectedError{URN: urn("c"), Action: "replace", For: urn("a")},
			[]string{string(urn("c")), "cannot be replaced as part of replacing " + string(urn("a")), "does not replace a first"}},
		{&stepgen.DanglingDependentError{URN: urn("a"), Dependent: urn("b")}, []string{"cannot delete " + string(urn("a")), string(urn("b")) + " depends on it"}},
		{&stepgen.ImportMismatchError{URN: urn("a"), ID: "i-1", Keys: []resource.PropertyKey{"size", "name"}}, []string{"id i-1", "size, name"}},
		{&stepgen.NotFoundError{URN: urn("a"), ID: "i-1"}, []string{string(urn("a")), `"i-1"`}},
		{&stepgen.PartialError{URN: urn("a"), Op: stepgen.OpCreate, Err: errBoom}, []string{"create of " + string(urn("a")), "partially failed", "boom"}},
	}
	for _, tt := range tests {
		msg := tt.err.Error()
		for _, w := range tt.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%T: %q does not contain %q", tt.err, msg, w)
			}
		}
	}
	if !errors.Is(&stepgen.PartialError{Err: errBoom}, errBoom) {
		t.Error("PartialError does not unwrap to the provider's error")
	}
}

// TestRegistrationWithoutGoal: a registration with no goal is refused with
// a RegistrationError, by Register and by Read alike, not a panic.
func TestRegistrationWithoutGoal(t *testing.T) {
	gen, err := stepgen.New(stepgen.Config{Stack: "dev", Project: "proj"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		call func() (stepgen.Actions, error)
	}{
		{"Register, nil registration", func() (stepgen.Actions, error) { return gen.Register(nil) }},
		{"Register, no goal", func() (stepgen.Actions, error) { return gen.Register(&stepgen.Registration{}) }},
		{"Read, nil registration", func() (stepgen.Actions, error) { return gen.Read(nil, "id-1") }},
		{"Read, no goal", func() (stepgen.Actions, error) { return gen.Read(&stepgen.Registration{}, "id-1") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acts, err := tt.call()
			var re *stepgen.RegistrationError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), "no goal") {
				t.Errorf("err = %v, want a RegistrationError saying there is no goal", err)
			}
			if len(acts.Calls) != 0 || len(acts.Steps) != 0 {
				t.Errorf("actions = %+v, want none", acts)
			}
		})
	}
}
