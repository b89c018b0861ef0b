package engine_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/resource"
)

// Issue 20, problem 2: an output the provider never returned used to be a
// silent null that flowed into other inputs. It is now an error naming the
// resource, the key and the input, and the resource that would have taken
// it is not created.
func TestMissingOutputIsAnError(t *testing.T) {
	c := newCloud()
	env := newEnv(t, c)
	_, err := upWithin(t, env, context.Background(), func(ctx *engine.Context) error {
		a := ctx.Register(thing, "a", engine.Props{"size": 1})
		ctx.Register(thing, "b", engine.Props{"x": a.Output("sise")})
		return nil
	})
	var missing *engine.MissingOutputError
	if !errors.As(err, &missing) || missing.Key != "sise" || missing.Name != "a" {
		t.Fatalf("error %v: want a *MissingOutputError for a's output sise", err)
	}
	wantErr(t, err, `test:index:Thing "b": input "x"`, `test:index:Thing "a" has no output "sise" (its outputs: id, size)`)
	if got := liveNames(env); !slices.Equal(got, []string{"a"}) {
		t.Errorf("recorded %v, want only a", got)
	}
}

// A function of constants alone that fails belongs to no resource's
// operation: the registration that takes its result reports the error, and
// the update fails, rather than leaving the resource out in silence.
func TestFailedFunctionOfConstantsFailsTheUpdate(t *testing.T) {
	tests := []struct {
		name string
		out  func() engine.Output[string]
		want string
	}{
		{"ApplyErr", func() engine.Output[string] {
			return engine.ApplyErr(engine.Val("v"), func(string) (string, error) { return "", errors.New("boom") })
		}, "boom"},
		{"a panic in Apply", func() engine.Output[string] {
			return engine.Apply(engine.Val("v"), func(string) string { panic("kaboom") })
		}, "kaboom"},
		{"a function of a failed one", func() engine.Output[string] {
			bad := engine.ApplyErr(engine.Val("v"), func(string) (string, error) { return "", errors.New("deep boom") })
			return engine.Apply(bad, func(s string) string { return s + "!" })
		}, "deep boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t, newCloud())
			_, err := upWithin(t, env, context.Background(), func(ctx *engine.Context) error {
				ctx.Register(thing, "a", engine.Props{"x": tt.out()})
				return nil
			})
			wantErr(t, err, `test:index:Thing "a"`, tt.want)
			if got := liveNames(env); len(got) != 0 {
				t.Errorf("recorded %v, want nothing", got)
			}
		})
	}
}

// In a preview, an output the resource does not have yet is unknown, not
// an error: the resource may return it when it is created.
func TestMissingOutputInAPreviewIsUnknown(t *testing.T) {
	env := newEnv(t, newCloud())
	var applied atomic.Int32
	_, err := env.Preview(func(ctx *engine.Context) error {
		a := ctx.Register(thing, "a", engine.Props{"size": 1})
		x := engine.Apply(engine.OutputOf[string](a, "later"), func(s string) string {
			applied.Add(1)
			return s
		})
		ctx.Register(thing, "b", engine.Props{"x": x})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if applied.Load() != 0 {
		t.Errorf("the Apply ran %d times on an unknown value", applied.Load())
	}
}

// A typed read of an output that does not decode into its type is an
// error naming the resource, the key and the types; it is never the zero
// value.
func TestTypedOutputOfTheWrongType(t *testing.T) {
	env := newEnv(t, newCloud())
	var got error
	_, err := upWithin(t, env, context.Background(), func(ctx *engine.Context) error {
		a := ctx.Register(thing, "a", engine.Props{"size": "big"})
		_, got = engine.OutputOf[int](a, "size").Await(ctx.Context())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var de *resource.DecodeError
	if !errors.As(got, &de) {
		t.Fatalf("Await: %v, want a *resource.DecodeError", got)
	}
	wantErr(t, got, `output "size" of test:index:Thing "a"`, "want a number, found a string")
}

// Typed resources: the outputs struct's fields are bound to the resource's
// outputs, typed; Await gives their values; Val and typed args become the
// inputs.
func TestNewResourceBindsTypedOutputs(t *testing.T) {
	env := newEnv(t, newCloud())
	var size int
	var id string
	_, err := upWithin(t, env, context.Background(), func(ctx *engine.Context) error {
		a := engine.NewResource[typedThing](ctx, thing, "a", struct {
			Size engine.Output[int] `prop:"size"`
			Note engine.Output[string]
		}{Size: engine.Val(3)})
		var err error
		if size, err = a.Size.Await(ctx.Context()); err != nil {
			return err
		}
		id, err = a.ID.Await(ctx.Context())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if size != 3 || id == "" {
		t.Errorf("size %d, id %q; want 3 and an ID", size, id)
	}
	got := env.Resource(env.URN(thing, "a")).Inputs
	if diff := cmp.Diff(resource.PropertyMap{"size": resource.NewNumber(3)}, got); diff != "" {
		t.Errorf("inputs (-want +got); a zero Output field is left out:\n%s", diff)
	}
}

// A typed resource's Go type must embed *engine.Resource (the compiler
// checks that) and hold only Outputs: anything else fails the
// registration at once.
func TestNewResourceRejectsBadTypes(t *testing.T) {
	type deeper struct{ *engine.Resource }
	type notDirect struct {
		deeper
		Size engine.Output[int] `prop:"size"`
	}
	type plainField struct {
		*engine.Resource
		Size int `prop:"size"`
	}
	for name, program := range map[string]engine.Program{
		"a handle embedded too deep": func(ctx *engine.Context) error {
			engine.NewResource[notDirect](ctx, thing, "a", nil)
			return nil
		},
		"a plain field": func(ctx *engine.Context) error {
			engine.NewResource[plainField](ctx, thing, "a", nil)
			return nil
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := upWithin(t, newEnv(t, newCloud()), context.Background(), program)
			var arg *engine.ArgumentError
			if !errors.As(err, &arg) || arg.Name != "a" {
				t.Fatalf("error %v: want an *ArgumentError for a", err)
			}
		})
	}
}

// Issue 20, problem 3: a value made from two resources' outputs records
// both as dependencies, with Apply2, All and Sprintf alike, so that the
// resource that takes it is deleted before either.
func TestCombinedOutputsRecordEveryDependency(t *testing.T) {
	combine := map[string]func(a, b *engine.Resource) any{
		"Apply2": func(a, b *engine.Resource) any {
			return engine.Apply2(engine.OutputOf[int](a, "size"), engine.OutputOf[int](b, "size"), func(x, y int) int { return x + y })
		},
		"All": func(a, b *engine.Resource) any {
			return engine.All(engine.OutputOf[int](a, "size"), engine.OutputOf[int](b, "size"))
		},
		"Sprintf": func(a, b *engine.Resource) any {
			return engine.Sprintf("%v+%v", a.Output("size"), engine.OutputOf[int](b, "size"))
		},
	}
	want := map[string]resource.PropertyValue{
		"Apply2":  resource.NewNumber(3),
		"All":     resource.NewArray(resource.NewNumber(1), resource.NewNumber(2)),
		"Sprintf": resource.NewString("1+2"),
	}
	for name, make := range combine {
		t.Run(name, func(t *testing.T) {
			c := newCloud()
			env := newEnv(t, c)
			_, err := upWithin(t, env, context.Background(), func(ctx *engine.Context) error {
				a := ctx.Register(thing, "a", engine.Props{"size": 1})
				b := ctx.Register(thing, "b", engine.Props{"size": 2})
				ctx.Register(thing, "sum", engine.Props{"x": make(a, b)})
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			sum := env.Resource(env.URN(thing, "sum"))
			if !sum.Inputs["x"].DeepEquals(want[name]) {
				t.Errorf("x = %v, want %v", sum.Inputs["x"], want[name])
			}
			deps := []resource.URN{env.URN(thing, "a"), env.URN(thing, "b")}
			if diff := cmp.Diff(deps, sum.Dependencies); diff != "" {
				t.Errorf("dependencies (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(deps, sum.PropertyDependencies["x"]); diff != "" {
				t.Errorf("property dependencies of x (-want +got):\n%s", diff)
			}
			if _, err := env.Destroy(); err != nil {
				t.Fatal(err)
			}
			deletes := writesOf(c, "delete")
			if len(deletes) != 3 || deletes[0] != "delete sum" {
				t.Errorf("deletes %v: want sum first", deletes)
			}
		})
	}
}

// A secret stays secret through Apply and into the inputs of the
// resource that takes it; Val makes a known constant.
func TestSecretsFlowThroughApply(t *testing.T) {
	env := newEnv(t, newCloud())
	_, err := upWithin(t, env, context.Background(), func(ctx *engine.Context) error {
		a := ctx.Register(thing, "a", engine.Props{"size": engine.Secret(engine.Val(4))})
		doubled := engine.Apply(engine.OutputOf[int](a, "size"), func(n int) int { return 2 * n })
		ctx.Register(thing, "b", engine.Props{"size": doubled})
		ctx.Export("size", doubled)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := env.Resource(env.URN(thing, "b")).Inputs["size"]
	if !got.IsSecret() || !got.SecretElement().DeepEquals(resource.NewNumber(8)) {
		t.Errorf("b's size = %v, want secret 8", got)
	}
}

// Issue 20, problem 3: an Apply that waited for a resource registered
// after it used to hang the operation. Waiting inside an Apply is now
// refused with an error; where the wait would have been a cycle (the
// resource waits for the Apply's result), the error is a *CycleError that
// names both.
func TestWaitingInsideApply(t *testing.T) {
	t.Run("a resource registered later", func(t *testing.T) {
		env := newEnv(t, newCloud())
		_, err := upWithin(t, env, context.Background(), func(ctx *engine.Context) error {
			a := ctx.Register(thing, "a", engine.Props{"size": 1})
			ready := make(chan *engine.Resource, 1)
			x := engine.ApplyErr(engine.OutputOf[int](a, "size"), func(n int) (int, error) {
				b := <-ready
				m, err := engine.OutputOf[int](b, "size").Await(ctx.Context())
				return n + m, err
			})
			ready <- ctx.Register(thing, "b", engine.Props{"size": 2})
			ctx.Register(thing, "c", engine.Props{"x": x})
			return nil
		})
		wantErr(t, err, `an Apply on outputs of test:index:Thing "a"`, `waiting for output "size" of test:index:Thing "b" inside`, "refused", "engine.All")
	})
	t.Run("a cycle", func(t *testing.T) {
		env := newEnv(t, newCloud())
		_, err := upWithin(t, env, context.Background(), func(ctx *engine.Context) error {
			a := ctx.Register(thing, "a", engine.Props{"size": 1})
			ready := make(chan *engine.Resource, 1)
			x := engine.ApplyErr(engine.OutputOf[int](a, "size"), func(n int) (int, error) {
				b := <-ready
				return n, b.Wait()
			})
			ready <- ctx.Register(thing, "b", engine.Props{"x": x})
			return nil
		})
		var cycle *engine.CycleError
		if !errors.As(err, &cycle) {
			t.Fatalf("error %v: want a *CycleError", err)
		}
		want := []string{`an Apply on outputs of test:index:Thing "a"`, `test:index:Thing "b"`, `an Apply on outputs of test:index:Thing "a"`}
		if diff := cmp.Diff(want, cycle.Cycle); diff != "" {
			t.Errorf("cycle (-want +got):\n%s", diff)
		}
	})
}

// An Await in the program function itself may wait for anything; in a
// preview a value that is not known yet is ErrUnknown.
func TestAwaitInTheProgram(t *testing.T) {
	env := newEnv(t, newCloud())
	program := func(got *string, gotErr *error) engine.Program {
		return func(ctx *engine.Context) error {
			a := ctx.Register(thing, "a", engine.Props{"size": 1})
			*got, *gotErr = engine.Sprintf("size %v, id %v", a.Output("size"), a.ID()).Await(ctx.Context())
			return nil
		}
	}
	var got string
	var gotErr error
	if _, err := env.Preview(program(&got, &gotErr)); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(gotErr, engine.ErrUnknown) {
		t.Errorf("preview: %q, %v; want ErrUnknown", got, gotErr)
	}
	if _, err := upWithin(t, env, context.Background(), program(&got, &gotErr)); err != nil {
		t.Fatal(err)
	}
	if gotErr != nil || got != "size 1, id id-1" {
		t.Errorf("up: %q, %v", got, gotErr)
	}
}

// Secret marks a resource's output secret where another resource takes
// it, and a constant too.
func TestSecretOfAnOutput(t *testing.T) {
	env := newEnv(t, newCloud())
	_, err := upWithin(t, env, context.Background(), func(ctx *engine.Context) error {
		a := ctx.Register(thing, "a", engine.Props{"size": 4})
		ctx.Register(thing, "b", engine.Props{"size": engine.Secret(a.Output("size")), "name": engine.Secret(engine.Val("x"))})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	in := env.Resource(env.URN(thing, "b")).Inputs
	if !in["size"].IsSecret() || !in["name"].IsSecret() {
		t.Errorf("b's inputs %v: want size and name secret", in)
	}
}

// As decodes an untyped Output; a value that does not decode fails the
// registration that takes it, naming where it came from.
func TestAs(t *testing.T) {
	env := newEnv(t, newCloud())
	_, err := upWithin(t, env, context.Background(), func(ctx *engine.Context) error {
		a := ctx.Register(thing, "a", engine.Props{"size": 4, "name": "x"})
		ctx.Register(thing, "b", engine.Props{"size": engine.Apply(engine.As[int](a.Output("size")), func(n int) int { return n + 1 })})
		ctx.Register(thing, "c", engine.Props{"size": engine.As[int](a.Output("name"))})
		return nil
	})
	wantErr(t, err, `As on outputs of test:index:Thing "a"`, "want a number, found a string")
	if got := env.Resource(env.URN(thing, "b")); got == nil || !got.Inputs["size"].DeepEquals(resource.NewNumber(5)) {
		t.Errorf("b = %+v, want size 5", got)
	}
}
