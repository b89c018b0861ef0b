package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
)

// TestDeletesRunAsLateAsDependenciesAllow: deletes run in antichains, and a
// resource goes in the antichain that its longest chain of doomed
// dependencies sets, as in the reference engine — so one that depends on
// nothing is deleted last, beside the deepest dependency. When its delete
// fails, the deletes of the chain above have run: here c and b are gone
// and d is still recorded. (Deleted as soon as nothing depended on it, d
// went first, and its failure stopped b's and a's deletes.)
func TestDeletesRunAsLateAsDependenciesAllow(t *testing.T) {
	program := func(ctx *engine.Context) error {
		a := ctx.Register(thing, "a", engine.Props{"n": 1})
		b := ctx.Register(thing, "b", engine.Props{"n": 1}, engine.DependsOn(a))
		ctx.Register(thing, "c", engine.Props{"n": 1}, engine.DependsOn(b))
		ctx.Register(thing, "d", engine.Props{"n": 1})
		return nil
	}
	for _, op := range []string{"destroy", "up without them"} {
		t.Run(op, func(t *testing.T) {
			c := newCloud()
			prov := c.provider()
			deleteOne := prov.DeleteF
			boom := errors.New("boom")
			prov.DeleteF = func(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
				if req.URN.Name() == "d" {
					return providers.DeleteResponse{}, boom
				}
				return deleteOne(ctx, req)
			}
			env := enginetest.New(t)
			env.Provider("test", "", prov)
			if _, err := env.Up(program); err != nil {
				t.Fatal(err)
			}
			var err error
			if op == "destroy" {
				_, err = env.Destroy()
			} else {
				_, err = env.Up(func(*engine.Context) error { return nil })
			}
			if !errors.Is(err, boom) {
				t.Fatalf("%s: %v, want the failed delete of d", op, err)
			}
			deleted := map[string]bool{}
			for _, w := range c.Writes() {
				deleted[w] = true
			}
			if !deleted["delete c"] || !deleted["delete b"] {
				t.Errorf("deletes %v: c and b must be deleted before d's antichain", c.Writes())
			}
			if env.Resource(env.URN(thing, "d")) == nil {
				t.Error("d is no longer recorded")
			}
		})
	}
}

// TestDeletesOfTwoCopiesOfOneURNRunTogether: the live record of a resource
// and an old copy a replacement left marked for deletion are independent;
// their deletes run side by side, as the reference engine runs them, so the
// old copy's failing delete does not keep the live one from being deleted.
func TestDeletesOfTwoCopiesOfOneURNRunTogether(t *testing.T) {
	c := newCloud("zone")
	prov := c.provider()
	deleteOne := prov.DeleteF
	boom := errors.New("boom")
	var failID string
	var destroying bool
	// In the destroy, the old copy's delete fails once the live copy's
	// has started (the two run side by side), or after a while.
	liveStarted := make(chan struct{})
	prov.DeleteF = func(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
		if string(req.ID) == failID {
			if destroying {
				select {
				case <-liveStarted:
				case <-time.After(2 * time.Second):
				}
			}
			return providers.DeleteResponse{}, boom
		}
		if destroying {
			close(liveStarted)
		}
		return deleteOne(ctx, req)
	}
	env := enginetest.New(t)
	env.Provider("test", "", prov)
	zone := func(z string) engine.Program {
		return func(ctx *engine.Context) error {
			ctx.Register(thing, "a", engine.Props{"zone": z})
			return nil
		}
	}
	if _, err := env.Up(zone("x")); err != nil {
		t.Fatal(err)
	}
	failID = string(env.Resource(env.URN(thing, "a")).ID)
	if _, err := env.Up(zone("y")); !errors.Is(err, boom) {
		t.Fatalf("replacing a: %v, want the failed delete of its old copy", err)
	}
	destroying = true
	if _, err := env.Destroy(); !errors.Is(err, boom) {
		t.Fatalf("destroy: %v, want the failed delete of the old copy", err)
	}
	var left []string
	for _, s := range env.Snapshot().Resources {
		if s.URN == env.URN(thing, "a") {
			left = append(left, string(s.ID))
		}
	}
	if len(left) != 1 || left[0] != failID {
		t.Errorf("records of a left: %v, want only the old copy %s (writes %v)", left, failID, c.Writes())
	}
}
