package engine_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/providers"
)

// The tests in this file pin the deliberate differences from the reference
// engine that COMPATIBILITY.md lists; each names its entry.

// TestInterruptedDeleteBeforeReplaceIsNotDeletedAgain pins "An interrupted
// delete-before-replace is not deleted again". A delete-before-replace
// whose create failed leaves the record pending replacement: the object is
// gone. When the next update replaces the resource create-before-delete,
// the replacement is a plain create that takes the pending record's place;
// the object already deleted is not deleted again.
func TestInterruptedDeleteBeforeReplaceIsNotDeletedAgain(t *testing.T) {
	program := func(zone string, dbr bool) engine.Program {
		return func(ctx *engine.Context) error {
			var opts []engine.ResourceOption
			if dbr {
				opts = append(opts, engine.DeleteBeforeReplace())
			}
			ctx.Register(thing, "a", engine.Props{"zone": zone}, opts...)
			return nil
		}
	}
	tests := []struct {
		name string
		zone string // of the third run, without delete-before-replace
	}{
		{"the next run asks for other inputs", "z"},
		{"the next run asks for the inputs the failed create had", "y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud("zone")
			env := newEnv(t, c)
			if _, err := env.Up(program("x", true)); err != nil {
				t.Fatal(err)
			}
			c.failCreate["a"] = errors.New("interrupted")
			if _, err := env.Up(program("y", true)); err == nil {
				t.Fatal("the create was meant to fail")
			}
			if a := env.Resource(env.URN(thing, "a")); a == nil || !a.PendingReplacement || c.Live() != 0 {
				t.Fatalf("after the failed create: a = %+v, %d objects; want a pending replacement and none", a, c.Live())
			}
			delete(c.failCreate, "a")
			before := len(c.Writes())
			res, err := env.Up(program(tt.zone, false))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"create a"}, c.Writes()[before:]); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"create a"}, outcomes(res)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"a " + tt.zone}, records(env)); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			if a := env.Resource(env.URN(thing, "a")); a == nil || a.PendingReplacement || c.Live() != 1 {
				t.Errorf("a = %+v, %d objects; want a live record and one object", a, c.Live())
			}
		})
	}
}

// TestDependentRegisteredDuringACascadeIsRecordedOnce pins "A dependent
// registered before a delete-before-replace cascade is deleted first"
// (COMPATIBILITY.md) for a dependent that is not replaced. The
// program registers c, which no longer takes a's zone, and while c's diff
// is still under way, a, whose replacement deletes first. The cascade that
// decides which of a's dependents to delete before a takes c as its own
// steps decide: it waits for c's diff, and a's old copy is deleted only
// once c's step is decided. c is neither deleted nor replaced, and it is
// recorded once.
func TestDependentRegisteredDuringACascadeIsRecordedOnce(t *testing.T) {
	c := newCloud("zone")
	env := newEnv(t, c)
	if _, err := env.Up(func(ctx *engine.Context) error {
		a := ctx.Register(thing, "a", engine.Props{"zone": "x"}, engine.DeleteBeforeReplace())
		ctx.Register(thing, "c", engine.Props{"zone": a.Output("zone")})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// c's own diff waits until a's diff has been made: a's cascade starts
	// while c's diff is under way.
	aDiffed := make(chan struct{})
	var cDiffed atomic.Bool
	c.onDiff = func(ctx context.Context, req providers.DiffRequest) error {
		switch {
		case req.URN.Name() == "a":
			close(aDiffed)
		case req.URN.Name() == "c" && !req.NewInputs.ContainsUnknowns():
			defer cDiffed.Store(true)
			select {
			case <-aDiffed:
			case <-time.After(10 * time.Second):
				return fmt.Errorf("a was not diffed while c's diff was under way")
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}
	var deletedEarly atomic.Bool
	c.onDelete = func(name string) {
		if name == "a" && !cDiffed.Load() {
			deletedEarly.Store(true)
		}
	}
	before := len(c.Writes())
	res, err := env.Up(func(ctx *engine.Context) error {
		ctx.Register(thing, "c", engine.Props{"zone": "x"})
		ctx.Register(thing, "a", engine.Props{"zone": "y"}, engine.DeleteBeforeReplace())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"delete a", "create a"}, c.Writes()[before:]); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"create a", "delete-replaced a", "same c"}, outcomes(res)); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if deletedEarly.Load() {
		t.Error("a was deleted before c's diff ended")
	}
	if diff := cmp.Diff([]string{"a y", "c x"}, sorted(records(env))); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if c.Live() != 2 {
		t.Errorf("%d objects exist, want 2", c.Live())
	}
}
