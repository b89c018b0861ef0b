package stepgen_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// TestTargetSets builds the sets of Config.Targets and Config.Excludes
// from the URNs an operation names: none named is no limit; with
// dependents, every live resource that depends on a named one, directly
// or not, joins it, and one marked for deletion does not.
func TestTargetSets(t *testing.T) {
	dependsOn := func(u resource.URN) func(*resource.State) {
		return func(s *resource.State) { s.Dependencies = append(s.Dependencies, u) }
	}
	doomed := func(s *resource.State) { s.Delete = true }
	old := []*resource.State{
		recorded("a", nil),
		recorded("b", nil, dependsOn(urn("a"))),
		recorded("c", nil, dependsOn(urn("b"))),
		recorded("d", nil, dependsOn(urn("a")), doomed),
		recorded("e", nil),
	}
	set := func(names ...string) map[resource.URN]bool {
		m := map[resource.URN]bool{}
		for _, n := range names {
			m[urn(n)] = true
		}
		return m
	}
	tests := []struct {
		name                     string
		targets, excludes        []resource.URN
		dependents               bool
		wantTargets, wantExclude map[resource.URN]bool
	}{
		{name: "none named"},
		{name: "targets", targets: []resource.URN{urn("a")}, wantTargets: set("a")},
		{name: "targets and their dependents", targets: []resource.URN{urn("a")}, dependents: true,
			wantTargets: set("a", "b", "c")},
		{name: "excludes and their dependents", excludes: []resource.URN{urn("b")}, dependents: true,
			wantExclude: set("b", "c")},
		{name: "both", targets: []resource.URN{urn("e")}, excludes: []resource.URN{urn("a")},
			wantTargets: set("e"), wantExclude: set("a")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			targets, excludes, err := stepgen.TargetSets(old, tt.targets, tt.excludes, tt.dependents)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantTargets, targets); diff != "" {
				t.Errorf("targets (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantExclude, excludes); diff != "" {
				t.Errorf("excludes (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("a URN that does not parse", func(t *testing.T) {
		_, _, err := stepgen.TargetSets(old, nil, []resource.URN{"web"}, false)
		if err == nil || !strings.Contains(err.Error(), `target "web"`) {
			t.Errorf("err = %v, want one naming the target", err)
		}
	})
}
