package engine_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/resource"
)

// TestReadOfAManagedResource: a program that switches a resource it
// managed to a read under the same URN stops managing it, as the reference
// engine does. With the same ID the stack relinquishes it: the step is a
// read, nothing is deleted, and the record becomes an external one, which a
// later run that no longer reads it forgets without a delete. With another
// ID the resource read replaces the managed one, which is deleted after the
// program.
func TestReadOfAManagedResource(t *testing.T) {
	tests := []struct {
		name   string
		other  bool // read another resource than the managed one
		steps  []string
		writes []string
	}{
		{name: "the same ID: relinquished", steps: []string{"read a"}},
		{name: "another ID: replaced by the one read", other: true,
			steps:  []string{"delete-replaced a", "read-replacement a", "replace a"},
			writes: []string{"delete a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud()
			c.live["ext-1"] = resource.PropertyMap{"size": resource.NewNumber(9)}
			env := newEnv(t, c)
			if _, err := env.Up(func(ctx *engine.Context) error {
				ctx.Register(thing, "a", engine.Props{"size": 1})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			managed := env.Resource(env.URN(thing, "a")).ID
			id := managed
			if tt.other {
				id = "ext-1"
			}
			before := len(c.Writes())
			res, err := env.Up(func(ctx *engine.Context) error {
				ctx.Read(thing, "a", id, nil)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.steps, outcomes(res)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.writes, c.Writes()[before:], cmpEmpty); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
			var copies int
			for _, s := range env.Snapshot().Resources {
				if s.URN == env.URN(thing, "a") {
					copies++
					if !s.External || s.ID != id || s.Delete {
						t.Errorf("a is recorded as %+v, want an external record of %s", s, id)
					}
				}
			}
			if copies != 1 {
				t.Errorf("a is recorded %d times, want once", copies)
			}
			if _, ok := c.live[managed]; ok == tt.other {
				t.Errorf("the managed resource exists: %t, want %t", ok, !tt.other)
			}
			// A run that no longer reads it forgets it: nothing is deleted.
			before = len(c.Writes())
			if _, err := env.Up(func(*engine.Context) error { return nil }); err != nil {
				t.Fatal(err)
			}
			if w := c.Writes()[before:]; len(w) != 0 || env.Resource(env.URN(thing, "a")) != nil {
				t.Errorf("after the read was dropped: writes %v, record %+v; want none and none", w, env.Resource(env.URN(thing, "a")))
			}
			if _, ok := c.live[id]; !ok {
				t.Errorf("the resource read (%s) no longer exists", id)
			}
		})
	}
}

// TestReadIgnoresProtect: protect on a read records nothing, as in the
// reference engine: an external resource is never deleted, so there is
// nothing to protect, and a program that stops reading it (or a destroy)
// forgets it without a refusal. The protect of a managed resource the read
// takes over is not kept either.
func TestReadIgnoresProtect(t *testing.T) {
	tests := []struct {
		name    string
		managed bool // the stack managed a protected resource under the read's URN, with its ID
		destroy bool // a destroy instead of an update without the read
	}{
		{name: "dropped from the program"},
		{name: "a destroy", destroy: true},
		{name: "a protected managed resource relinquished, then dropped", managed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud()
			c.live["ext-1"] = resource.PropertyMap{"size": resource.NewNumber(9)}
			env := newEnv(t, c)
			id := resource.ID("ext-1")
			if tt.managed {
				if _, err := env.Up(func(ctx *engine.Context) error {
					ctx.Register(thing, "a", engine.Props{"size": 1}, engine.Protect())
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				id = env.Resource(env.URN(thing, "a")).ID
			}
			if _, err := env.Up(func(ctx *engine.Context) error {
				ctx.Read(thing, "a", id, nil, engine.Protect())
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if r := env.Resource(env.URN(thing, "a")); r == nil || !r.External || r.Protect {
				t.Fatalf("a is recorded as %+v, want an external record without protect", r)
			}
			before := len(c.Writes())
			var err error
			if tt.destroy {
				_, err = env.Destroy()
			} else {
				_, err = env.Up(func(*engine.Context) error { return nil })
			}
			if err != nil {
				t.Fatalf("forgetting the resource read: %v", err)
			}
			if w := c.Writes()[before:]; len(w) != 0 || env.Resource(env.URN(thing, "a")) != nil {
				t.Errorf("writes %v, record %+v; want none and none", w, env.Resource(env.URN(thing, "a")))
			}
			if _, ok := c.live[id]; !ok {
				t.Errorf("the resource read (%s) no longer exists", id)
			}
		})
	}
}

// Issue 29: a resource the program read and no longer reads is forgotten
// with a discard step, as Pulumi reports it, not a delete: no provider
// Delete runs, and it is not counted as a delete.
func TestDroppedReadIsDiscarded(t *testing.T) {
	c := newCloud()
	c.live["ext-1"] = resource.PropertyMap{"size": resource.NewNumber(9)}
	env := newEnv(t, c)
	if _, err := env.Up(func(ctx *engine.Context) error {
		ctx.Read(thing, "found", "ext-1", nil)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, run := range []struct {
		name string
		op   func() (*engine.Result, error)
	}{
		{"preview", func() (*engine.Result, error) { return env.Preview(func(*engine.Context) error { return nil }) }},
		{"update", func() (*engine.Result, error) { return env.Up(func(*engine.Context) error { return nil }) }},
	} {
		res, err := run.op()
		if err != nil {
			t.Fatalf("%s: %v", run.name, err)
		}
		if diff := cmp.Diff([]string{"discard found"}, outcomes(res)); diff != "" {
			t.Errorf("%s: steps (-want +got):\n%s", run.name, diff)
		}
		if diff := cmp.Diff(map[engine.StepOp]int{engine.StepSame: 1, engine.StepDiscard: 1}, res.Counts); diff != "" {
			t.Errorf("%s: counts (-want +got):\n%s", run.name, diff)
		}
	}
	if w := c.Writes(); len(w) != 0 {
		t.Errorf("writes %v, want none", w)
	}
	if env.Resource(env.URN(thing, "found")) != nil {
		t.Errorf("the dropped read is still recorded")
	}
}
