package engine_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
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

// TestDeleteBeforeReplaceAfterItsDependents is the program of a
// delete-before-replace cascade whose dependent registers, and is replaced,
// before the cascade is decided (issue 27):
//
//	v1: r2{a2=1}; o3{a2=2, aref0<-r2.a2} deleteBeforeReplace; o4{a1=3, rref0<-r2.id}; r5{a1=4, rref0<-o3.id}
//	v2: r2{a2=7}; o3{a2=2, r2=8, aref0<-r2.a2} deleteBeforeReplace; o4{a1=3, rref0<-r2.id, rref1<-r2.id}; r5{a1=4, rref0<-o4.id}
//
// In v2, o3 is replaced delete-before-replace (r2 changes) and o4
// create-before-delete (rref1 is new); r5 now takes o4's ID, so it is
// replaced too, and it no longer waits for o3: with provider calls taking
// random time, it may register before or after o3's cascade is decided.
// Either way, the old r5, which took o3's ID, must be deleted before o3.
// The provider sleeps a random 0–2 ms in every call and parallelism is
// drawn from 1 to 16. GROUNDWORK_DELETEORDER_RUNS sets the number of runs
// (default 30; 200 take about 15 s under -race on two busy cores).
func TestDeleteBeforeReplaceAfterItsDependents(t *testing.T) {
	runs := 30
	if s := os.Getenv("GROUNDWORK_DELETEORDER_RUNS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("GROUNDWORK_DELETEORDER_RUNS=%q: want a positive number", s)
		}
		runs = n
	}
	v1 := func(ctx *engine.Context) error {
		r2 := ctx.Register(thing, "r2", engine.Props{"a2": 1})
		o3 := ctx.Register(thing, "o3", engine.Props{"a2": 2, "aref0": r2.Output("a2")}, engine.DeleteBeforeReplace())
		ctx.Register(thing, "o4", engine.Props{"a1": 3, "rref0": r2.ID()})
		ctx.Register(thing, "r5", engine.Props{"a1": 4, "rref0": o3.ID()})
		return nil
	}
	v2 := func(ctx *engine.Context) error {
		r2 := ctx.Register(thing, "r2", engine.Props{"a2": 7})
		ctx.Register(thing, "o3", engine.Props{"a2": 2, "r2": 8, "aref0": r2.Output("a2")}, engine.DeleteBeforeReplace())
		o4 := ctx.Register(thing, "o4", engine.Props{"a1": 3, "rref0": r2.ID(), "rref1": r2.ID()})
		ctx.Register(thing, "r5", engine.Props{"a1": 4, "rref0": o4.ID()})
		return nil
	}
	for run := 0; run < runs; run++ {
		c := newCloud("r2", "rref0", "rref1")
		env := enginetest.New(t)
		env.Provider("test", "", jittery(c.provider()))
		parallelism := engine.Parallelism(1 + rand.IntN(16))
		if _, err := env.Up(v1, parallelism); err != nil {
			t.Fatal(err)
		}
		before := env.Snapshot()
		ids := map[resource.ID]*resource.State{}
		for _, s := range before.Resources {
			ids[s.ID] = s
		}
		// At each delete, no resource that depended on the deleted one
		// in v1 may still exist if v2 deletes it too.
		var mu sync.Mutex
		var deleted []resource.ID
		alive := map[resource.ID][]resource.ID{} // deleted ID → old dependents alive at its delete
		prov := jittery(c.provider())
		deleteOne := prov.DeleteF
		prov.DeleteF = func(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
			mu.Lock()
			for _, s := range before.Resources {
				if dependsOnURN(s, req.URN) && !slices.Contains(deleted, s.ID) {
					alive[req.ID] = append(alive[req.ID], s.ID)
				}
			}
			mu.Unlock()
			resp, err := deleteOne(ctx, req)
			if err == nil {
				mu.Lock()
				deleted = append(deleted, req.ID)
				mu.Unlock()
			}
			return resp, err
		}
		env2 := enginetest.New(t)
		env2.Store = env.Store
		env2.Provider("test", "", prov)
		if _, err := env2.Up(v2, parallelism); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		for x, deps := range alive {
			for _, d := range deps {
				if slices.Contains(deleted, d) {
					t.Fatalf("run %d: %s (%s) was deleted while %s (%s), which depended on it and was deleted after it, still existed; deletes %v",
						run, ids[x].URN.Name(), x, ids[d].URN.Name(), d, c.Writes())
				}
			}
		}
		if got := c.Live(); got != 4 {
			t.Fatalf("run %d: %d resources exist, want 4 (writes %v)", run, got, c.Writes())
		}
	}
}

// dependsOnURN reports whether s depends on u: as its parent, through a
// dependency or property dependency, or deleted with it.
func dependsOnURN(s *resource.State, u resource.URN) bool {
	if s.Parent == u || s.DeletedWith == u || slices.Contains(s.Dependencies, u) {
		return true
	}
	for _, deps := range s.PropertyDependencies {
		if slices.Contains(deps, u) {
			return true
		}
	}
	return false
}

// jittery makes every call of p take a random 0–2 ms longer.
func jittery(p *providers.Func) *providers.Func {
	sleep := func() { time.Sleep(rand.N(2 * time.Millisecond)) }
	check, diff, create, update, del := p.CheckF, p.DiffF, p.CreateF, p.UpdateF, p.DeleteF
	p.CheckF = func(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
		sleep()
		return check(ctx, req)
	}
	p.DiffF = func(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
		sleep()
		return diff(ctx, req)
	}
	p.CreateF = func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
		sleep()
		return create(ctx, req)
	}
	p.UpdateF = func(ctx context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
		sleep()
		return update(ctx, req)
	}
	p.DeleteF = func(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
		sleep()
		return del(ctx, req)
	}
	return p
}
