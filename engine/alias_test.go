package engine_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

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

// TestChildrenFindRecordsAfterTheirParentWasRenamedInAnEarlierRun: a
// parent renamed (retyped) through an alias in one update whose program did
// not register its children (it failed first, so nothing was deleted).
// When that update commits, the renames settle as in the reference
// engine: the children's records name the parent's new URN, and a retype
// moves them under the parent's new type. A later update that registers
// the children under the parent again finds their records: through the
// aliases they inherit from the parent's aliases, which the program keeps
// (where the reference engine, whose children inherit only an alias the
// parent's record was found under, creates the child anew and deletes its
// record: COMPATIBILITY.md, "A child inherits every alias of its parent"),
// or, after a retype, under their own URNs. A rename whose alias the
// program drops links nothing: a child named after the parent's old name
// is created anew and the old one deleted, in both engines.
func TestChildrenFindRecordsAfterTheirParentWasRenamedInAnEarlierRun(t *testing.T) {
	const oldGroup, newGroup = "my:index:Group", "my:index:Team"
	errStop := errors.New("stop before the children")
	program := func(typ, name string, children bool, opts ...engine.ResourceOption) engine.Program {
		return func(ctx *engine.Context) error {
			g := ctx.Component(typ, name, opts...)
			if !children {
				return errStop
			}
			fn := ctx.Register(thing, name+"-fn", engine.Props{"size": 1}, engine.Parent(g))
			ctx.Register(thing, "log", engine.Props{"size": 2}, engine.Parent(fn))
			return nil
		}
	}
	tests := []struct {
		name, typ, group string
		alias            resource.Alias
		keepAlias        bool
		ops, writes      []string
	}{
		{name: "renamed", typ: oldGroup, group: "web", alias: resource.Alias{Name: "app"}, keepAlias: true,
			ops: []string{"same web-fn", "same log"}},
		{name: "retyped", typ: newGroup, group: "app", alias: resource.Alias{Type: oldGroup},
			ops: []string{"same app-fn", "same log"}},
		{name: "renamed, alias dropped", typ: oldGroup, group: "web", alias: resource.Alias{Name: "app"},
			ops: []string{"create web-fn", "same log", "delete app-fn"}, writes: []string{"create web-fn", "delete app-fn"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud()
			env := enginetest.New(t)
			env.Provider("test", "", c.provider())
			if _, err := env.Up(program(oldGroup, "app", true)); err != nil {
				t.Fatal(err)
			}
			if _, err := env.Up(program(tt.typ, tt.group, false, engine.Aliases(tt.alias))); !errors.Is(err, errStop) {
				t.Fatalf("the renaming update: %v", err)
			}
			for _, s := range env.Snapshot().Resources {
				if len(s.Aliases) > 0 || (s.Parent != "" && env.Resource(s.Parent) == nil) {
					t.Errorf("%s: aliases %v, parent %s; want the rename settled", s.URN, s.Aliases, s.Parent)
				}
			}
			var opts []engine.ResourceOption
			if tt.keepAlias {
				opts = append(opts, engine.Aliases(tt.alias))
			}
			before := len(c.Writes())
			res, err := env.Up(program(tt.typ, tt.group, true, opts...))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.writes, c.Writes()[before:], cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.ops, enginetest.Ops(res, thing)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if n := len(env.Snapshot().Resources); n != 5 {
				t.Errorf("%d records, want 5 (stack, provider, group, two children)", n)
			}
		})
	}
}

// TestOldCopyOfRenamedResourceSettlesUnderTheNewURN: the old copy of a
// resource renamed and replaced in one update, whose delete failed there,
// is deleted under the URN it was created under in that update (behaviour
// of the reference engine too); when the update commits, the rename
// settles and the copy is recorded under the new URN, beside the live
// replacement, as in the reference engine. The next update's Delete of it
// receives that URN.
func TestOldCopyOfRenamedResourceSettlesUnderTheNewURN(t *testing.T) {
	c := newCloud("zone")
	p := c.provider()
	failing := true
	var (
		mu      sync.Mutex // the deletes of one run may go side by side
		deletes []string
	)
	del := p.DeleteF
	p.DeleteF = func(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
		mu.Lock()
		deletes = append(deletes, req.URN.Name())
		mu.Unlock()
		if failing {
			return providers.DeleteResponse{}, errors.New("boom")
		}
		return del(ctx, req)
	}
	env := enginetest.New(t)
	env.Provider("test", "", p)
	if _, err := env.Up(func(ctx *engine.Context) error {
		ctx.Register(thing, "old", engine.Props{"zone": "x"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Up(func(ctx *engine.Context) error {
		ctx.Register(thing, "new", engine.Props{"zone": "y"}, engine.Aliases(resource.Alias{Name: "old"}))
		return nil
	}); err == nil {
		t.Fatal("the update whose delete of the old copy fails succeeded")
	}
	if diff := cmp.Diff([]string{"old"}, deletes); diff != "" {
		t.Errorf("URNs the failed update's Deletes received (-want +got):\n%s", diff)
	}
	var copies []resource.URN
	for _, s := range env.Snapshot().Resources {
		if s.Type == thing {
			copies = append(copies, s.URN)
			if len(s.Aliases) > 0 {
				t.Errorf("%s keeps aliases %v after the update committed", s.URN, s.Aliases)
			}
		}
	}
	if want := []resource.URN{env.URN(thing, "new"), env.URN(thing, "new")}; !slices.Equal(copies, want) {
		t.Fatalf("records %v, want the old copy and its replacement, both under the new URN", copies)
	}
	failing, deletes = false, nil
	if _, err := env.Up(func(*engine.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"new", "new"}, deletes); diff != "" {
		t.Errorf("URNs the Deletes received (-want +got):\n%s", diff)
	}
}
