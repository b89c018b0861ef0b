package engine_test

import (
	"testing"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/resource"
)

// Issue 29: a component's registration gives the program none of the
// outputs the component registered in the last run (they are the
// program's own to compute); reading one is an error in an update, as it
// would be on the first run.
func TestComponentOutputsAreNotGivenBack(t *testing.T) {
	env := newEnv(t, newCloud())
	program := func(x string, seen *resource.PropertyMap) engine.Program {
		return func(ctx *engine.Context) error {
			comp := ctx.Component("my:index:Component", "comp")
			out, err := comp.Outputs()
			if err != nil {
				return err
			}
			*seen = out
			ctx.RegisterOutputs(comp, engine.Props{"x": x})
			return nil
		}
	}
	var first, second resource.PropertyMap
	if _, err := env.Up(program("one", &first)); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Up(program("two", &second)); err != nil {
		t.Fatal(err)
	}
	if len(first) != 0 || len(second) != 0 {
		t.Errorf("the component's registration gave the outputs %v, then %v; want none", first, second)
	}
	if got := env.Resource(env.URN("my:index:Component", "comp")).Outputs["x"]; got.StringValue() != "two" {
		t.Errorf("recorded x = %v, want two", got)
	}
}
