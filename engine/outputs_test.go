package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/resource"
)

// TestStackOutputsAfterAFailedOperation: the stack outputs an update
// records are the ones its program registered when it succeeds; when
// anything fails (the program, a step), the outputs recorded before are
// kept, with the ones the program registered over them, as the reference
// engine does. An output whose value comes from a resource that failed is
// left out of what is registered, and the others are still registered. A
// failed update never records empty outputs, nor drops one it registered.
func TestStackOutputsAfterAFailedOperation(t *testing.T) {
	errProgram := errors.New("the program gave up")
	first := func(ctx *engine.Context) error {
		x := ctx.Register(thing, "x", engine.Props{"size": 2})
		ctx.Export("a", "a1")
		ctx.Export("b", x.Output("size"))
		ctx.Export("c", "c1")
		return nil
	}
	str, num := resource.NewString, resource.NewNumber
	tests := []struct {
		name     string
		program  engine.Program
		preview  bool
		failY    bool // y's create fails
		wantErr  bool
		outputs  resource.PropertyMap // the stack outputs afterwards
		recorded resource.PropertyMap // what the state records, when not outputs
	}{
		{
			name: "a program that succeeds records what it exports",
			program: func(ctx *engine.Context) error {
				ctx.Register(thing, "x", engine.Props{"size": 2})
				ctx.Export("a", "a2")
				return nil
			},
			outputs: resource.PropertyMap{"a": str("a2")},
		},
		{
			name: "a program that fails after exporting one",
			program: func(ctx *engine.Context) error {
				ctx.Register(thing, "x", engine.Props{"size": 2})
				ctx.Export("a", "a2")
				return errProgram
			},
			wantErr: true,
			outputs: resource.PropertyMap{"a": str("a2"), "b": num(2), "c": str("c1")},
		},
		{
			name:    "a program that fails before exporting any",
			program: func(*engine.Context) error { return errProgram },
			wantErr: true,
			outputs: resource.PropertyMap{"a": str("a1"), "b": num(2), "c": str("c1")},
		},
		{
			name: "a resource fails: the outputs of the others are registered",
			program: func(ctx *engine.Context) error {
				x := ctx.Register(thing, "x", engine.Props{"size": 3})
				y := ctx.Register(thing, "y", engine.Props{"size": 4}, engine.DependsOn(x))
				ctx.Export("a", "a2")
				ctx.Export("b", x.Output("size"))
				ctx.Export("d", y.Output("size"))
				return nil
			},
			failY:   true,
			wantErr: true,
			outputs: resource.PropertyMap{"a": str("a2"), "b": num(3), "c": str("c1")},
		},
		{
			name: "a failed preview shows the outputs an update would record",
			program: func(ctx *engine.Context) error {
				ctx.Export("a", "a2")
				return errProgram
			},
			preview:  true,
			wantErr:  true,
			outputs:  resource.PropertyMap{"a": str("a2"), "b": num(2), "c": str("c1")},
			recorded: resource.PropertyMap{"a": str("a1"), "b": num(2), "c": str("c1")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud()
			env := newEnv(t, c)
			if _, err := env.Up(first); err != nil {
				t.Fatal(err)
			}
			if tt.failY {
				c.failCreate["y"] = errors.New("quota exceeded")
			}
			run := env.Up
			if tt.preview {
				run = env.Preview
			}
			res, err := run(tt.program)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want an error: %t", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.outputs, res.Outputs); diff != "" {
				t.Errorf("the result's outputs (-want +got):\n%s", diff)
			}
			recorded := tt.recorded
			if recorded == nil {
				recorded = tt.outputs
			}
			outs, err := env.Engine().Outputs(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(recorded, outs); diff != "" {
				t.Errorf("recorded outputs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestImportKeepsStackOutputs: a standalone import runs no program of the
// user's: it leaves the stack outputs as they were.
func TestImportKeepsStackOutputs(t *testing.T) {
	c := newCloud()
	c.live["existing-1"] = resource.PropertyMap{"size": resource.NewNumber(3)}
	env := newEnv(t, c)
	if _, err := env.Up(func(ctx *engine.Context) error {
		ctx.Export("a", "a1")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	res, err := env.Engine().Import(context.Background(), []engine.ImportSpec{{Type: thing, Name: "imp", ID: "existing-1"}})
	if err != nil {
		t.Fatal(err)
	}
	want := resource.PropertyMap{"a": resource.NewString("a1")}
	outs, err := env.Engine().Outputs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, outs); diff != "" {
		t.Errorf("recorded outputs (-want +got):\n%s", diff)
	}
	if res.Outputs != nil {
		t.Errorf("the import's result has outputs %v, want none", res.Outputs)
	}
}
