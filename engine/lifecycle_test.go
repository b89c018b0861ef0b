package engine_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

const thing = "test:index:Thing"

// things registers one Thing per name, each with the given inputs.
func things(inputs map[string]engine.Props) engine.Program {
	return func(ctx *engine.Context) error {
		for _, name := range sortedNames(inputs) {
			ctx.Register(thing, name, inputs[name])
		}
		return nil
	}
}

func sortedNames(m map[string]engine.Props) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// chain registers a → b → c, each taking the previous one's id as input.
func chain(names ...string) engine.Program {
	return func(ctx *engine.Context) error {
		var prev *engine.Resource
		for _, n := range names {
			props := engine.Props{"name": n}
			if prev != nil {
				props["after"] = prev.ID()
			}
			prev = ctx.Register(thing, n, props)
		}
		return nil
	}
}

// step is one operation of a lifecycle scenario and what it must do.
type step struct {
	op      string // "up" (default), "preview", "destroy"
	program engine.Program
	opts    []engine.Option
	// writes are the provider calls that change something, in any order
	// unless ordered is set.
	writes  []string
	ordered bool
	wantErr string
	// live are the names of the custom resources recorded afterwards.
	live []string
}

func runScenario(t *testing.T, c *cloud, steps []step) *enginetest.Env {
	t.Helper()
	env := enginetest.New(t)
	env.Provider("test", "", c.provider())
	for i, s := range steps {
		before := len(c.Writes())
		var err error
		switch s.op {
		case "", "up":
			_, err = env.Up(s.program, s.opts...)
		case "preview":
			_, err = env.Preview(s.program, s.opts...)
		case "destroy":
			_, err = env.Destroy(s.opts...)
		}
		switch {
		case s.wantErr == "" && err != nil:
			t.Fatalf("step %d (%s): unexpected error: %v", i, s.op, err)
		case s.wantErr != "" && (err == nil || !strings.Contains(err.Error(), s.wantErr)):
			t.Fatalf("step %d (%s): error %v, want one containing %q", i, s.op, err, s.wantErr)
		}
		got := c.Writes()[before:]
		want := s.writes
		if !s.ordered {
			got, want = sorted(got), sorted(want)
		}
		if diff := cmp.Diff(want, got, cmpEmpty); diff != "" {
			t.Errorf("step %d (%s): provider writes (-want +got):\n%s", i, s.op, diff)
		}
		if diff := cmp.Diff(sorted(s.live), liveNames(env), cmpEmpty); diff != "" {
			t.Errorf("step %d (%s): recorded resources (-want +got):\n%s", i, s.op, diff)
		}
	}
	return env
}

var cmpEmpty = cmp.Comparer(func(a, b []string) bool { return slices.Equal(a, b) })

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func liveNames(env *enginetest.Env) []string {
	var out []string
	for _, s := range env.Snapshot().Resources {
		if s.Custom && !s.IsProvider() && !s.Delete {
			out = append(out, s.URN.Name())
		}
	}
	slices.Sort(out)
	return out
}

func TestLifecycle(t *testing.T) {
	ab := map[string]engine.Props{"a": {"size": 1}, "b": {"size": 2}}
	tests := []struct {
		name  string
		cloud *cloud
		steps []step
	}{
		{
			name:  "create from empty, then an identical run changes nothing",
			cloud: newCloud(),
			steps: []step{
				{program: things(ab), writes: []string{"create a", "create b"}, live: []string{"a", "b"}},
				{program: things(ab), writes: nil, live: []string{"a", "b"}},
			},
		},
		{
			name:  "update of one property",
			cloud: newCloud(),
			steps: []step{
				{program: things(ab), writes: []string{"create a", "create b"}, live: []string{"a", "b"}},
				{program: things(map[string]engine.Props{"a": {"size": 10}, "b": {"size": 2}}),
					writes: []string{"update a"}, live: []string{"a", "b"}},
			},
		},
		{
			name:  "replacement creates before it deletes, and deletes after the program",
			cloud: newCloud("zone"),
			steps: []step{
				{program: things(map[string]engine.Props{"a": {"zone": "x"}}), writes: []string{"create a"}, live: []string{"a"}},
				{program: things(map[string]engine.Props{"a": {"zone": "y"}}), ordered: true,
					writes: []string{"create a", "delete a"}, live: []string{"a"}},
			},
		},
		{
			name:  "delete-before-replace when the resource asks for it",
			cloud: newCloud("zone"),
			steps: []step{
				{program: things(map[string]engine.Props{"a": {"zone": "x"}}), writes: []string{"create a"}, live: []string{"a"}},
				{program: func(ctx *engine.Context) error {
					ctx.Register(thing, "a", engine.Props{"zone": "y"}, engine.DeleteBeforeReplace())
					return nil
				}, ordered: true, writes: []string{"delete a", "create a"}, live: []string{"a"}},
			},
		},
		{
			name:  "an unregistered resource is deleted; a chain is deleted dependents first",
			cloud: newCloud(),
			steps: []step{
				{program: chain("a", "b", "c"), ordered: true, writes: []string{"create a", "create b", "create c"}, live: []string{"a", "b", "c"}},
				{program: chain("a", "b"), writes: []string{"delete c"}, live: []string{"a", "b"}},
				{op: "destroy", ordered: true, writes: []string{"delete b", "delete a"}},
			},
		},
		{
			name:  "preview calls no provider write and records nothing",
			cloud: newCloud(),
			steps: []step{
				{op: "preview", program: things(ab), writes: nil, live: nil},
				{program: things(ab), writes: []string{"create a", "create b"}, live: []string{"a", "b"}},
				{op: "preview", program: things(map[string]engine.Props{"a": {"size": 5}}), writes: nil, live: []string{"a", "b"}},
			},
		},
		{
			name:  "a failure in the middle keeps the completed steps",
			cloud: func() *cloud { c := newCloud(); c.failCreate["c"] = errors.New("quota exceeded"); return c }(),
			steps: []step{
				{program: chain("a", "b", "c", "d"), ordered: true, wantErr: "quota exceeded",
					writes: []string{"create a", "create b"}, live: []string{"a", "b"}},
			},
		},
		{
			name:  "a program error still records what completed",
			cloud: newCloud(),
			steps: []step{
				{program: func(ctx *engine.Context) error {
					ctx.Register(thing, "a", engine.Props{})
					return errors.New("boom")
				}, wantErr: "boom", writes: []string{"create a"}, live: []string{"a"}},
			},
		},
		{
			name:  "a program error deletes nothing",
			cloud: newCloud(),
			steps: []step{
				{program: things(ab), writes: []string{"create a", "create b"}, live: []string{"a", "b"}},
				{program: func(ctx *engine.Context) error { return errors.New("boom") }, wantErr: "boom", live: []string{"a", "b"}},
			},
		},
		{
			name:  "a duplicate URN is an error",
			cloud: newCloud(),
			steps: []step{
				{program: func(ctx *engine.Context) error {
					if err := ctx.Register(thing, "a", engine.Props{}).Wait(); err != nil {
						return err
					}
					ctx.Register(thing, "a", engine.Props{})
					return nil
				}, wantErr: "registered twice", writes: []string{"create a"}, live: []string{"a"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { runScenario(t, tt.cloud, tt.steps) })
	}
}

func TestContinueOnErrorSkipsOnlyDependents(t *testing.T) {
	c := newCloud()
	c.failCreate["a"] = errors.New("quota exceeded")
	env := enginetest.New(t)
	env.Provider("test", "", c.provider())
	_, err := env.Up(func(ctx *engine.Context) error {
		a := ctx.Register(thing, "a", engine.Props{})
		ctx.Register(thing, "b", engine.Props{}, engine.DependsOn(a))
		ctx.Register(thing, "c", engine.Props{"after": a.ID()})
		ctx.Register(thing, "x", engine.Props{})
		ctx.Register(thing, "y", engine.Props{})
		return nil
	}, engine.ContinueOnError())
	if err == nil || !strings.Contains(err.Error(), "quota exceeded") {
		t.Fatalf("Up: err = %v, want the create failure", err)
	}
	if strings.Count(err.Error(), "quota exceeded") != 1 {
		t.Errorf("the one real failure should be reported once, got: %v", err)
	}
	if diff := cmp.Diff([]string{"create x", "create y"}, sorted(c.Writes())); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"x", "y"}, liveNames(env)); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
}

func TestDependencyThroughOutputs(t *testing.T) {
	c := newCloud()
	env := enginetest.New(t)
	env.Provider("test", "", c.provider())
	_, err := env.Up(func(ctx *engine.Context) error {
		a := ctx.Register(thing, "a", engine.Props{"size": 1})
		ctx.Register(thing, "b", engine.Props{"parentID": a.ID(), "label": "b"})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	a, b := env.Resource(env.URN(thing, "a")), env.Resource(env.URN(thing, "b"))
	if got := b.Inputs["parentID"]; !got.DeepEquals(resource.NewString(string(a.ID))) {
		t.Errorf("b.parentID = %v, want a's ID %q", got, a.ID)
	}
	if diff := cmp.Diff([]resource.URN{a.URN}, b.Dependencies); diff != "" {
		t.Errorf("b.Dependencies (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[resource.PropertyKey][]resource.URN{"parentID": {a.URN}}, b.PropertyDependencies); diff != "" {
		t.Errorf("b.PropertyDependencies (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"create a", "create b"}, c.Writes()); diff != "" {
		t.Errorf("b must be created after a (-want +got):\n%s", diff)
	}
}

func TestPreviewWritesNothingToTheStore(t *testing.T) {
	c := newCloud("zone")
	env := enginetest.New(t)
	env.Provider("test", "", c.provider())
	store := env.Store.(*memstore.Store)
	if _, err := env.Up(chain("a", "b", "c")); err != nil {
		t.Fatal(err)
	}
	before := store.Files(env.StackID())
	writes := len(c.Writes())
	previews := []engine.Program{
		chain("a", "b"), // a delete
		things(map[string]engine.Props{"a": {"zone": "z"}, "d": {}}), // a replace, a create, deletes
	}
	for _, p := range previews {
		if _, err := env.Preview(p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := env.Engine().PreviewDestroy(context.Background()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, store.Files(env.StackID())); diff != "" {
		t.Errorf("previews changed the store (-before +after):\n%s", diff)
	}
	if got := c.Writes()[writes:]; len(got) != 0 {
		t.Errorf("previews called provider writes: %v", got)
	}
}
