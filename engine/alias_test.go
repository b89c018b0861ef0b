package engine_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/resource"
)

// TestReplaceOfRenamedResourceDeletesUnderOldURN: a resource renamed
// through an alias and replaced in the same run is deleted under the URN
// it was recorded under, as the reference engine does: the provider's
// Delete sees the old object's URN, not the new one.
func TestReplaceOfRenamedResourceDeletesUnderOldURN(t *testing.T) {
	tests := []struct {
		name string
		dbr  bool
		want []string
	}{
		{"create before delete", false, []string{"create new", "delete old"}},
		{"delete before replace", true, []string{"delete old", "create new"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud("zone")
			env := enginetest.New(t)
			env.Provider("test", "", c.provider())
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
			_, err = env.Up(func(ctx *engine.Context) error {
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
