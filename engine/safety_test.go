package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/resource"
)

// The program mistakes of issue 20, problem 1: each used to hang Up
// forever with the stack locked. Each must now fail the operation, at
// once, with an error that names the resource and what is wrong, and
// leave the stack unlocked.

// upWithin runs Up and fails the test if it does not return within a
// generous bound: a hang is the bug these tests pin.
func upWithin(t *testing.T, env *enginetest.Env, ctx context.Context, program engine.Program, opts ...engine.Option) (*engine.Result, error) {
	t.Helper()
	type result struct {
		res *engine.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := env.Engine().Up(ctx, program, opts...)
		done <- result{res, err}
	}()
	select {
	case r := <-done:
		return r.res, r.err
	case <-time.After(30 * time.Second):
		t.Fatal("Up hung")
		return nil, nil
	}
}

// wantErr fails unless err's message holds every part.
func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one mentioning %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not mention %q", err, p)
		}
	}
}

// unlocked checks that the stack can be updated again.
func unlocked(t *testing.T, env *enginetest.Env) {
	t.Helper()
	if _, err := upWithin(t, env, context.Background(), func(*engine.Context) error { return nil }); err != nil {
		t.Errorf("a later Up on the same stack: %v", err)
	}
}

func TestProgramMistakesFailAtOnce(t *testing.T) {
	var nilResource *engine.Resource
	tests := []struct {
		name    string
		program engine.Program
		opts    []engine.Option
		// want are parts of the error; argument is set when the error is
		// an *engine.ArgumentError.
		want     []string
		argument bool
	}{
		{
			name: "nil resource in DependsOn",
			program: func(ctx *engine.Context) error {
				ctx.Register(thing, "a", engine.Props{}, engine.DependsOn(nilResource))
				return nil
			},
			want: []string{`test:index:Thing "a"`, "option DependsOn", "nil"}, argument: true,
		},
		{
			name: "nil resource as an input",
			program: func(ctx *engine.Context) error {
				ctx.Register(thing, "a", engine.Props{"ref": nilResource})
				return nil
			},
			want: []string{`test:index:Thing "a"`, `input "ref"`, "nil"}, argument: true,
		},
		{
			name: "zero Output as an input",
			program: func(ctx *engine.Context) error {
				ctx.Register(thing, "a", engine.Props{"x": engine.Output[string]{}})
				return nil
			},
			want: []string{`test:index:Thing "a"`, `input "x"`, "zero Output"}, argument: true,
		},
		{
			name: "zero Output nested in an input",
			program: func(ctx *engine.Context) error {
				ctx.Register(thing, "a", engine.Props{"list": []any{"ok", engine.Output[string]{}}})
				return nil
			},
			want: []string{`input "list[1]"`, "zero Output"}, argument: true,
		},
		{
			name: "nil parent",
			program: func(ctx *engine.Context) error {
				ctx.Register(thing, "a", engine.Props{}, engine.Parent(nilResource))
				return nil
			},
			want: []string{`test:index:Thing "a"`, "option Parent", "nil"}, argument: true,
		},
		{
			name: "name with ::",
			program: func(ctx *engine.Context) error {
				ctx.Register(thing, "a::b", engine.Props{})
				return nil
			},
			want: []string{`test:index:Thing "a::b"`, "the name", `"::"`}, argument: true,
		},
		{
			name: "empty name",
			program: func(ctx *engine.Context) error {
				ctx.Register(thing, "", engine.Props{})
				return nil
			},
			want: []string{"the name", "empty"}, argument: true,
		},
		{
			name: "custom type without a package",
			program: func(ctx *engine.Context) error {
				ctx.Register("Thing", "a", engine.Props{})
				return nil
			},
			want: []string{`Thing "a"`, "the type", "is not a custom resource type"}, argument: true,
		},
		{
			name: "provider option naming a resource that is not a provider",
			program: func(ctx *engine.Context) error {
				a := ctx.Register(thing, "a", engine.Props{})
				ctx.Register(thing, "b", engine.Props{}, engine.Provider(a))
				return nil
			},
			want: []string{`test:index:Thing "b"`, "option Provider", "not a provider"}, argument: true,
		},
		{
			name: "inputs that are not a struct",
			program: func(ctx *engine.Context) error {
				engine.NewResource[typedThing](ctx, thing, "a", 42)
				return nil
			},
			want: []string{`test:index:Thing "a"`, "the inputs", "must be a struct"}, argument: true,
		},
		{
			name: "a panicking transform",
			program: func(ctx *engine.Context) error {
				ctx.RegisterTransform(func(context.Context, *resource.Goal) error { panic("transform boom") })
				ctx.Register(thing, "a", engine.Props{})
				return nil
			},
			want: []string{"transform 1 of 1", `test:index:Thing "a"`, "the transform panicked: transform boom", "safety_test.go"},
		},
		{
			name: "a panicking stack transform",
			program: func(ctx *engine.Context) error {
				ctx.Register(thing, "a", engine.Props{})
				return nil
			},
			opts: []engine.Option{engine.Transforms(func(context.Context, *resource.Goal) error { panic("stack boom") })},
			want: []string{"panicked: stack boom", "safety_test.go"},
		},
		{
			name: "a panicking program",
			program: func(ctx *engine.Context) error {
				ctx.Register(thing, "a", engine.Props{})
				panic("program boom")
			},
			want: []string{"the program panicked: program boom", "safety_test.go"},
		},
		{
			name: "a panicking Apply",
			program: func(ctx *engine.Context) error {
				a := ctx.Register(thing, "a", engine.Props{"size": 1})
				out := engine.Apply(a.Output("size"), func(resource.PropertyValue) string { panic("apply boom") })
				ctx.Register(thing, "b", engine.Props{"x": out})
				return nil
			},
			want: []string{`an Apply on outputs of test:index:Thing "a"`, "the function panicked: apply boom", "safety_test.go"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud()
			env := newEnv(t, c)
			_, err := upWithin(t, env, context.Background(), tt.program, tt.opts...)
			wantErr(t, err, tt.want...)
			t.Logf("error: %v", err)
			var arg *engine.ArgumentError
			if tt.argument && !errors.As(err, &arg) {
				t.Errorf("error %v is not an *engine.ArgumentError", err)
			}
			unlocked(t, env)
		})
	}
}

// A panic becomes a *PanicError carrying the value and the stack.
func TestPanicError(t *testing.T) {
	env := newEnv(t, newCloud())
	boom := errors.New("boom")
	_, err := upWithin(t, env, context.Background(), func(ctx *engine.Context) error { panic(boom) })
	var pe *engine.PanicError
	if !errors.As(err, &pe) || !errors.Is(err, boom) || len(pe.Stack) == 0 {
		t.Fatalf("error %v: want a *PanicError wrapping the panic's error, with a stack", err)
	}
}

// Up ends when its context does, whatever the program does: here the
// program never returns.
func TestUpEndsWithItsContext(t *testing.T) {
	env := newEnv(t, newCloud())
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := upWithin(t, env, ctx, func(ctx *engine.Context) error {
		ctx.Register(thing, "a", engine.Props{})
		<-release
		return nil
	})
	var cancelled *engine.CancelledError
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &cancelled) {
		t.Fatalf("error %v: want a *CancelledError for the context's deadline", err)
	}
	unlocked(t, env)
}

// A registration from a goroutine that outlives the program fails at once
// instead of racing the end of the operation.
func TestRegisterAfterTheProgramReturned(t *testing.T) {
	env := newEnv(t, newCloud())
	var late *engine.Context
	if _, err := upWithin(t, env, context.Background(), func(ctx *engine.Context) error {
		late = ctx
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	r := late.Register(thing, "late", engine.Props{})
	select {
	case <-r.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a late registration did not finish")
	}
	if _, err := r.URN(); err == nil || !strings.Contains(err.Error(), "after the program returned") {
		t.Errorf("late registration: %v", err)
	}
}

// A component type without a package is not checked by the program API;
// a custom one is.
func TestComponentTypesAreNotChecked(t *testing.T) {
	env := newEnv(t, newCloud())
	var argErr error
	_, _ = upWithin(t, env, context.Background(), func(ctx *engine.Context) error {
		r := ctx.Component("component", "group")
		<-r.Done()
		var arg *engine.ArgumentError
		if err := r.Wait(); errors.As(err, &arg) {
			argErr = err
		}
		return nil
	})
	if argErr != nil {
		t.Errorf("the program API refused a component type: %v", argErr)
	}
}
