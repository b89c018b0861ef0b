package stepgen_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// TestAliases: a registration takes over the old resource its aliases name,
// which is then diffed (not created and deleted) and remembers the URN it
// was known by.
func TestAliases(t *testing.T) {
	in := map[string]any{"x": 1}
	oldGroup := "test:index:OldGroup"
	childOf := func(parentType, name string) resource.URN {
		return resource.NewURN(testStack, testProject, parentType, thing, name)
	}
	tests := []struct {
		name string
		old  *resource.State
		// parent, when set, is a Group registered first as the parent of
		// the registration.
		parent string
		alias  resource.Alias
	}{
		{
			name:  "by name",
			old:   recorded("before", in),
			alias: resource.Alias{Name: "before"},
		},
		{
			name: "by type",
			old: recorded("a", in, func(s *resource.State) {
				s.Type, s.URN = "test:index:OldThing", resource.NewURN(testStack, testProject, "", "test:index:OldThing", "a")
			}),
			alias: resource.Alias{Type: "test:index:OldThing"},
		},
		{
			name: "by parent",
			old: recorded("a", in, func(s *resource.State) {
				s.URN, s.Parent = childOf(oldGroup, "a"), resource.NewURN(testStack, testProject, "", oldGroup, "p")
			}),
			parent: "p",
			alias:  resource.Alias{Parent: resource.NewURN(testStack, testProject, "", oldGroup, "p")},
		},
		{
			name:   "no longer top-level",
			old:    recorded("a", in),
			parent: "p",
			alias:  resource.Alias{NoParent: true},
		},
		{
			name:  "by full URN",
			old:   recorded("before", in),
			alias: resource.Alias{URN: urn("before")},
		},
		{
			name: "by stack and project",
			old: recorded("a", in, func(s *resource.State) {
				s.URN = resource.NewURN("old-stack", "old-project", "", thing, "a")
			}),
			alias: resource.Alias{Stack: "old-stack", Project: "old-project"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t, stepgen.Config{Old: []*resource.State{tt.old}}, nil)
			g := goal("a", in, func(g *resource.Goal) { g.Aliases = []resource.Alias{tt.alias} })
			if tt.parent != "" {
				h.mustRegister(resource.Goal{Type: group, Name: tt.parent})
				g.Parent = groupURN(tt.parent)
			}
			h.calls = nil
			s := onlyStep(t, h.mustRegister(g))
			if s.Op != stepgen.OpSame || s.Old != tt.old {
				t.Fatalf("step = %s of old %v, want same of the aliased resource", s.Op, s.Old)
			}
			if diff := cmp.Diff([]resource.URN{tt.old.URN}, s.New.Aliases); diff != "" {
				t.Errorf("New.Aliases (-want +got):\n%s", diff)
			}
			if s.New.ID != tt.old.ID {
				t.Errorf("ID = %q, want the aliased resource's %q", s.New.ID, tt.old.ID)
			}
			if diff := cmp.Diff(tt.old.Inputs, h.calls[0].Check.Olds); diff != "" {
				t.Errorf("Check olds (-want +got):\n%s", diff)
			}
			layers, err := h.deletes()
			if err != nil || len(layers) != 0 {
				t.Errorf("Deletes = %v, %v; want nothing (the old resource was taken over)", antichainNames(layers), err)
			}
		})
	}
}

// TestAliasMatchingTwo: aliases that match two recorded resources are an
// error naming both.
func TestAliasMatchingTwo(t *testing.T) {
	old := []*resource.State{recorded("x", nil), recorded("y", nil)}
	h := newHost(t, stepgen.Config{Old: old}, nil)
	_, _, err := h.register(goal("a", nil, func(g *resource.Goal) {
		g.Aliases = []resource.Alias{{Name: "x"}, {Name: "y"}, {URN: urn("x")}}
	}))
	var ae *stepgen.AliasError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v, want AliasError", err)
	}
	if diff := cmp.Diff(&stepgen.AliasError{URN: urn("a"), Matches: []resource.URN{urn("x"), urn("y")}}, ae); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}

// TestAliasTakesOverOnce: an old resource is taken over by one
// registration only. A second alias of it, or its own URN registered after
// an alias took it, starts afresh.
func TestAliasTakesOverOnce(t *testing.T) {
	t.Run("two aliases", func(t *testing.T) {
		old := recorded("before", nil)
		h := newHost(t, stepgen.Config{Old: []*resource.State{old}}, nil)
		alias := func(g *resource.Goal) { g.Aliases = []resource.Alias{{Name: "before"}} }
		first := onlyStep(t, h.mustRegister(goal("a", nil, alias)))
		second := onlyStep(t, h.mustRegister(goal("b", nil, alias)))
		if first.Op != stepgen.OpSame || first.Old != old {
			t.Errorf("first: %s of %v, want same of the old resource", first.Op, first.Old)
		}
		if second.Op != stepgen.OpCreate || second.Old != nil {
			t.Errorf("second: %s of %v, want a create", second.Op, second.Old)
		}
	})
	t.Run("alias first, then the old URN itself", func(t *testing.T) {
		old := recorded("before", nil)
		h := newHost(t, stepgen.Config{Old: []*resource.State{old}}, nil)
		h.mustRegister(goal("a", nil, func(g *resource.Goal) { g.Aliases = []resource.Alias{{Name: "before"}} }))
		if s := onlyStep(t, h.mustRegister(goal("before", nil))); s.Op != stepgen.OpCreate {
			t.Errorf("registering the old URN after an alias took it: %s, want create", s.Op)
		}
	})
	t.Run("the old URN first, then an alias of it", func(t *testing.T) {
		old := recorded("before", nil)
		h := newHost(t, stepgen.Config{Old: []*resource.State{old}}, nil)
		h.mustRegister(goal("before", nil))
		if s := onlyStep(t, h.mustRegister(goal("a", nil, func(g *resource.Goal) { g.Aliases = []resource.Alias{{Name: "before"}} }))); s.Op != stepgen.OpCreate {
			t.Errorf("alias of a resource registered in this run: %s, want create", s.Op)
		}
	})
	t.Run("an exact URN wins over aliases", func(t *testing.T) {
		a, other := recorded("a", nil), recorded("other", nil)
		h := newHost(t, stepgen.Config{Old: []*resource.State{a, other}}, nil)
		s := onlyStep(t, h.mustRegister(goal("a", nil, func(g *resource.Goal) { g.Aliases = []resource.Alias{{Name: "other"}} })))
		if s.Old != a || len(s.New.Aliases) != 0 {
			t.Errorf("took over %v with aliases %v, want a itself", s.Old.URN, s.New.Aliases)
		}
		layers, _ := h.deletes()
		if diff := cmp.Diff([][]string{{"delete other"}}, antichainNames(layers)); diff != "" {
			t.Errorf("deletes (-want +got):\n%s", diff)
		}
	})
}
