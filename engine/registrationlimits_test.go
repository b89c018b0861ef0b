package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers/providertest"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/filestore"
)

// What a registration may hold is what the state can record and read
// back: anything else is an *ArgumentError naming the resource, before
// anything is recorded, and the stack stays loadable.

// deepMap nests a map levels deep.
func deepMap(levels int) any {
	var v any = "leaf"
	for range levels {
		v = map[string]any{"k": v}
	}
	return v
}

// deepValue nests a property value levels deep.
func deepValue(levels int) resource.PropertyValue {
	v := resource.NewString("leaf")
	for range levels {
		v = resource.NewArray(v)
	}
	return v
}

func TestRegistrationLimits(t *testing.T) {
	cyclic := map[string]any{"a": 1}
	cyclic["self"] = cyclic
	type node struct {
		Name string `pulumi:"name"`
		Next *node  `pulumi:"next"`
	}
	loop := &node{Name: "x"}
	loop.Next = loop
	cyclicSlice := []any{1, nil}
	cyclicSlice[1] = cyclicSlice

	for _, c := range []struct {
		name      string
		component bool
		typ       string
		resName   string
		props     engine.Props
		argument  string // the ArgumentError's Argument
		reason    string // in its Reason
	}{
		{"a Go value nested 10,000 levels", false, memThing, "deep", engine.Props{"v": deepMap(10000)}, `input "v"`, "deeper than"},
		{"a property value nested 10,000 levels", false, memThing, "deep", engine.Props{"v": deepValue(10000)}, `input "v"`, "deeper than"},
		{"a secret one level too deep", false, memThing, "deep", engine.Props{"v": engine.Secret(engine.Val(deepValue(resource.MaxDepth)))}, `input "v"`, "deeper than"},
		{"a cyclic map", false, memThing, "cyclic", engine.Props{"v": cyclic}, `input "v.self"`, "contains itself"},
		{"a cyclic struct", false, memThing, "cyclic", engine.Props{"v": loop}, `input "v.next"`, "contains itself"},
		{"a cyclic slice", false, memThing, "cyclic", engine.Props{"v": cyclicSlice}, `input "v[1]"`, "contains itself"},
		{"a name that is not UTF-8", false, memThing, "bad\xffname", engine.Props{}, "the name", "UTF-8"},
		{"a component type that is not UTF-8", true, "my:C\xffomponent", "bad", nil, "the type", "UTF-8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			mem := providertest.NewMemory()
			env := enginetest.New(t)
			store, err := filestore.New(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			env.Store = store
			env.Provider("mem", "", mem.Provider())
			_, err = upWithin(t, env, t.Context(), func(ctx *engine.Context) error {
				ctx.Register(memThing, "fine", engine.Props{"name": "fine"})
				if c.component {
					ctx.Component(c.typ, c.resName)
				} else {
					ctx.Register(c.typ, c.resName, c.props)
				}
				return nil
			})
			var ae *engine.ArgumentError
			if !errors.As(err, &ae) {
				t.Fatalf("Up = %v; want an *engine.ArgumentError", err)
			}
			if ae.Name != c.resName || ae.Type != c.typ || ae.Argument != c.argument || !strings.Contains(ae.Reason, c.reason) {
				t.Errorf("ArgumentError = %q %q %q %q; want the resource, %q and a reason saying %q", ae.Type, ae.Name, ae.Argument, ae.Reason, c.argument, c.reason)
			}
			if mem.Count() != 1 {
				t.Errorf("the cloud holds %d resources; want the fine one alone", mem.Count())
			}
			// The stack is not bricked: it loads, and the next Up works.
			if _, err := upWithin(t, env, t.Context(), func(ctx *engine.Context) error {
				ctx.Register(memThing, "fine", engine.Props{"name": "fine"})
				return nil
			}); err != nil {
				t.Errorf("the next Up: %v", err)
			}
		})
	}
}
