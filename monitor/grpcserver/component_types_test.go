package grpcserver_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/resource"
)

// TestWireComponentTypes: components registered over the wire may have any
// type the SDKs accept, such as "component" without a package; their
// children are deployed under them, and a rerun, which loads the URNs back
// from the state, changes nothing.
func TestWireComponentTypes(t *testing.T) {
	const thing = "test:index:Thing"
	prog := []wireRes{
		{typ: "component", name: "plain"},
		{typ: "my component", name: "spaced", parent: "plain"},
		{typ: thing, name: "leaf", parent: "spaced", custom: true},
	}
	s := &store{live: map[resource.ID]bool{}}
	env := enginetest.New(t)
	env.Provider("test", "", s.provider())
	for _, run := range []string{"first", "rerun"} {
		if _, err := env.Up(wireProgram(prog)); err != nil {
			t.Fatalf("%s run: %v", run, err)
		}
	}
	if diff := cmp.Diff([]string{"create leaf"}, s.log()); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	var urns []string
	for _, r := range env.Snapshot().Resources {
		if !r.IsProvider() && r.URN.Type() != resource.RootStackType {
			urns = append(urns, string(r.URN))
		}
	}
	slices.Sort(urns)
	want := []string{
		"urn:pulumi:dev::test::component$my component$test:index:Thing::leaf",
		"urn:pulumi:dev::test::component$my component::spaced",
		"urn:pulumi:dev::test::component::plain",
	}
	if diff := cmp.Diff(want, urns); diff != "" {
		t.Errorf("recorded URNs (-want +got):\n%s", diff)
	}
}
