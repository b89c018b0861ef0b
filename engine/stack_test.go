package engine_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/resource"
)

// The stack's outputs and state are readable between operations, with no
// operation running and no lock taken.
func TestOutputsAndStateWithoutAnOperation(t *testing.T) {
	env := enginetest.New(t)
	env.Provider("test", "", newCloud().provider())
	eng := env.Engine()
	ctx := context.Background()

	outs, err := eng.Outputs(ctx)
	if err != nil || outs != nil {
		t.Fatalf("Outputs of a new stack = %v, %v; want nil, nil", outs, err)
	}
	_, err = env.Up(func(ctx *engine.Context) error {
		a := ctx.Register(thing, "a", engine.Props{"size": 3})
		ctx.Export("name", "web")
		ctx.Export("size", a.Output("size"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	outs, err = eng.Outputs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := resource.PropertyMap{"name": resource.NewString("web"), "size": resource.NewNumber(3)}
	if diff := cmp.Diff(want, outs); diff != "" {
		t.Errorf("Outputs (-want +got):\n%s", diff)
	}
	snap, err := eng.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, s := range snap.Resources {
		types = append(types, s.Type)
	}
	if !contains(types, thing) || !contains(types, resource.RootStackType) {
		t.Errorf("State holds %v; want the root stack and %s", types, thing)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
