package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// TestReplaceOfRenamedResourceDeletesUnderOldURN: a resource renamed
// through an alias and replaced in the same run is deleted under the URN
// it was recorded under, as the reference engine does: the provider's
// Delete sees the old object's URN, not the new one.
func TestReplaceOfRenamedResourceDeletesUnderOldURN(t *testing.T) {
	tests := []struct {
		name  string
		dbr   bool
		want  []string // provider writes
		steps []string
	}{
		{"create before delete", false, []string{"create new", "delete old"},
			[]string{"create-replacement new", "delete-replaced old", "replace new"}},
		{"delete before replace", true, []string{"delete old", "create new"},
			[]string{"create new", "delete-replaced old"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud("zone")
			env := enginetest.New(t)
			p := c.provider()
			var deleted []resource.URN
			del := p.DeleteF
			p.DeleteF = func(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
				deleted = append(deleted, req.URN)
				return del(ctx, req)
			}
			env.Provider("test", "", p)
			opts := func() []engine.ResourceOption {
				if tt.dbr {
					return []engine.ResourceOption{engine.DeleteBeforeReplace()}
				}
				return nil
			}
			_, err := env.Up(func(ctx *engine.Context) error {
				ctx.Register(thing, "old", engine.Props{"zone": "x"}, opts()...)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			before := len(c.Writes())
			res, err := env.Up(func(ctx *engine.Context) error {
				ctx.Register(thing, "new", engine.Props{"zone": "y"},
					append(opts(), engine.Aliases(resource.Alias{Name: "old"}))...)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, c.Writes()[before:]); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]resource.URN{env.URN(thing, "old")}, deleted); diff != "" {
				t.Errorf("URNs the provider's Delete saw (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.steps, outcomes(res)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if c.Live() != 1 {
				t.Errorf("%d resources exist, want 1", c.Live())
			}
			snap := env.Snapshot()
			if len(snap.Resources) != 3 || env.Resource(env.URN(thing, "new")) == nil {
				t.Errorf("state holds %d resources, want the stack, the provider and new", len(snap.Resources))
			}
		})
	}
}

// TestAliasedRetypeWithUnchangedInputsIsSame: a resource whose type changed,
// with an alias to the old type, and whose inputs did not change is the same
// resource: the step is a same, not an update, and the record carries the
// new type.
func TestAliasedRetypeWithUnchangedInputsIsSame(t *testing.T) {
	const other = "test:index:Other"
	tests := []struct {
		name             string
		oldType, newType string
		register         func(ctx *engine.Context, typ string, opts ...engine.ResourceOption)
	}{
		{"component", "my:index:Old", "my:index:New", func(ctx *engine.Context, typ string, opts ...engine.ResourceOption) {
			ctx.Component(typ, "r", opts...)
		}},
		{"custom", thing, other, func(ctx *engine.Context, typ string, opts ...engine.ResourceOption) {
			ctx.Register(typ, "r", engine.Props{"size": 1}, opts...)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud()
			env := enginetest.New(t)
			env.Provider("test", "", c.provider())
			if _, err := env.Up(func(ctx *engine.Context) error {
				tt.register(ctx, tt.oldType)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			before := len(c.Writes())
			res, err := env.Up(func(ctx *engine.Context) error {
				tt.register(ctx, tt.newType, engine.Aliases(resource.Alias{Type: tt.oldType}))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"same r"}, enginetest.Ops(res, tt.oldType, tt.newType)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if w := c.Writes()[before:]; len(w) != 0 {
				t.Errorf("the retype wrote %v", w)
			}
			if env.Resource(env.URN(tt.oldType, "r")) != nil {
				t.Error("the old URN is still recorded")
			}
			if r := env.Resource(env.URN(tt.newType, "r")); r == nil || r.Type != tt.newType {
				t.Errorf("record = %+v, want one of type %s", r, tt.newType)
			}
		})
	}
}

// TestChildrenInheritParentAliases: when a parent is renamed, retyped or
// re-parented through an alias, its children (and theirs) find their old
// records through aliases derived from the parent's, as the Pulumi SDKs
// and engine derive them: nothing is created or deleted, every resource
// keeps its ID under its new URN.
func TestChildrenInheritParentAliases(t *testing.T) {
	const oldGroup, newGroup = "my:index:Group", "my:index:Team"
	// world registers a component with two children, one named after it
	// and one not, and a grandchild under the first child.
	type world struct {
		outer     bool   // register an "outer" component as the group's parent
		groupType string // the group's type
		group     string // the group's name
		groupOpts []engine.ResourceOption
		kid       string // the name of the child that does not start with the group's
		kidOpts   []engine.ResourceOption
	}
	program := func(w world) engine.Program {
		return func(ctx *engine.Context) error {
			opts := w.groupOpts
			if w.outer {
				opts = append(opts, engine.Parent(ctx.Component(oldGroup, "outer")))
			}
			g := ctx.Component(w.groupType, w.group, opts...)
			fn := ctx.Register(thing, w.group+"-fn", engine.Props{"size": 1}, engine.Parent(g))
			ctx.Register(thing, w.group+"-fn-log", engine.Props{"size": 2}, engine.Parent(fn))
			ctx.Register(thing, w.kid, engine.Props{"size": 3}, append([]engine.ResourceOption{engine.Parent(g)}, w.kidOpts...)...)
			return nil
		}
	}
	v1 := world{groupType: oldGroup, group: "app", kid: "db"}
	tests := []struct {
		name string
		v2   world
	}{
		{"renamed", world{groupType: oldGroup, group: "web", kid: "db",
			groupOpts: []engine.ResourceOption{engine.Aliases(resource.Alias{Name: "app"})}}},
		{"retyped", world{groupType: newGroup, group: "app", kid: "db",
			groupOpts: []engine.ResourceOption{engine.Aliases(resource.Alias{Type: oldGroup})}}},
		{"re-parented", world{outer: true, groupType: oldGroup, group: "app", kid: "db",
			groupOpts: []engine.ResourceOption{engine.Aliases(resource.Alias{NoParent: true})}}},
		{"renamed and retyped, child renamed too", world{groupType: newGroup, group: "web", kid: "store",
			groupOpts: []engine.ResourceOption{engine.Aliases(resource.Alias{Name: "app", Type: oldGroup})},
			kidOpts:   []engine.ResourceOption{engine.Aliases(resource.Alias{Name: "db"})}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud()
			env := enginetest.New(t)
			env.Provider("test", "", c.provider())
			if _, err := env.Up(program(v1)); err != nil {
				t.Fatal(err)
			}
			ids := map[string]resource.ID{}
			for _, s := range env.Snapshot().Resources {
				if s.Type == thing {
					ids[s.Inputs["size"].String()] = s.ID
				}
			}
			before := len(c.Writes())
			res, err := env.Up(program(tt.v2))
			if err != nil {
				t.Fatal(err)
			}
			if w := c.Writes()[before:]; len(w) != 0 {
				t.Errorf("writes = %v, want none", w)
			}
			for _, op := range enginetest.Ops(res, thing, oldGroup, newGroup) {
				if !strings.HasPrefix(op, "same ") && op != "create outer" {
					t.Errorf("step %q, want only sames", op)
				}
			}
			snap := env.Snapshot()
			got := map[string]resource.ID{}
			for _, s := range snap.Resources {
				if s.Type == thing {
					got[s.Inputs["size"].String()] = s.ID
				}
			}
			if diff := cmp.Diff(ids, got); diff != "" {
				t.Errorf("IDs by size (-before +after):\n%s", diff)
			}
			// The stack, the provider, the group, its three descendants
			// and the outer component if any: no old record is left.
			want := 6
			if tt.v2.outer {
				want++
			}
			if len(snap.Resources) != want {
				var urns []resource.URN
				for _, s := range snap.Resources {
					urns = append(urns, s.URN)
				}
				t.Errorf("state holds %d resources, want %d: %v", len(urns), want, urns)
			}
		})
	}
}
