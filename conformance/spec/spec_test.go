package spec

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	parent := "g"
	for _, tc := range []struct {
		name string
		p    Program
		err  string
	}{
		{"valid", Program{Versions: []Version{
			{Resources: []Resource{{Name: "g", Type: GroupType}, {Name: "a", Parent: "g", Props: []Prop{{Key: "v", Value: "1"}}}}},
			{Resources: []Resource{{Name: "b", Props: []Prop{{Key: "v", Value: "1"}}, Aliases: []Alias{{Name: "a", Parent: &parent}}}},
				Exports: []string{"b"}},
		}}, ""},
		{"twice", Program{Versions: []Version{{Resources: []Resource{{Name: "a"}, {Name: "a"}}}}}, "registered twice"},
		{"parent later", Program{Versions: []Version{{Resources: []Resource{{Name: "a", Parent: "g"}, {Name: "g", Type: GroupType}}}}}, "parent"},
		{"property of a component", Program{Versions: []Version{{Resources: []Resource{
			{Name: "g", Type: GroupType}, {Name: "a", Props: []Prop{{Key: "p", From: "g"}}}}}}}, "not a custom resource"},
		{"alias parent unknown", Program{Versions: []Version{{Resources: []Resource{{Name: "a", Aliases: []Alias{{Parent: &parent}}}}}}}, "alias parent"},
		{"bad failure", Program{Versions: []Version{{Failures: []Failure{{Op: "read", Name: "a"}}}}}, "unknown operation"},
		{"destroy failures without a destroy", Program{DestroyFailures: []Failure{{Op: OpDelete, Name: "a"}}}, "without a destroy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate()
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("got %v, want %q", err, tc.err)
			}
		})
	}
}

func TestURNs(t *testing.T) {
	p := Program{Versions: []Version{{Resources: []Resource{{Name: "g", Type: GroupType}, {Name: "a", Parent: "g"}}}}}
	urns := p.URNs(0)
	if urns["a"] != "urn:pulumi:stk::proj::world:index:Group$world:index:Thing::a" ||
		urns["g"] != "urn:pulumi:stk::proj::world:index:Group::g" {
		t.Fatalf("URNs %v", urns)
	}
}
