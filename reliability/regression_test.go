package reliability_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// Each test here reproduces, deterministically, a bug the crash test, the
// lifecycle fuzzer or the cancellation test found, and stays as its
// regression test.

// The fold refused to record the refresh of an old copy marked Delete
// while its replacement was live ("duplicate-urn"), so a Refresh after a
// replacement whose delete failed (or was interrupted) always failed.
func TestRegressionRefreshOfCopyMarkedDelete(t *testing.T) {
	c := newCloud()
	env := newEnv(t, c)
	prog := func(gen int) engine.Program {
		return func(ctx *engine.Context) error {
			ctx.Register(thing, "a", engine.Props{"gen": gen})
			return nil
		}
	}
	if _, err := env.Up(prog(1)); err != nil {
		t.Fatal(err)
	}
	c.Fail(map[string]failMode{"delete a": failPlain})
	if _, err := env.Up(prog(2)); err == nil {
		t.Fatal("the replacement's delete was meant to fail")
	}
	c.Fail(nil)
	if n := copiesOf(env.Snapshot().Resources, "a"); n != 2 {
		t.Fatalf("want the old copy marked Delete and its replacement recorded, got %d copies", n)
	}
	if _, err := env.Engine().Refresh(bg); err != nil {
		t.Fatalf("refresh with an old copy marked Delete: %v", err)
	}
	if n := copiesOf(env.Snapshot().Resources, "a"); n != 2 {
		t.Fatalf("refresh changed the copies of a: %d", n)
	}
	if _, err := env.Up(prog(2)); err != nil {
		t.Fatal(err)
	}
	if n, live := copiesOf(env.Snapshot().Resources, "a"), len(c.Live()); n != 1 || live != 1 {
		t.Fatalf("after the retry: %d copies recorded, %d in the world; want 1 and 1", n, live)
	}
}

func copiesOf(rs []*resource.State, name string) int {
	n := 0
	for _, r := range rs {
		if r.URN.Name() == name {
			n++
		}
	}
	return n
}

// A delete-before-replace that was interrupted after deleting a dependent
// (left recorded as pending replacement) deleted that dependent again on
// the next run, through the provider, although it no longer existed.
func TestRegressionDeleteBeforeReplaceOfDeletedDependent(t *testing.T) {
	c := newCloud()
	env := newEnv(t, c)
	prog := func(gen int) engine.Program {
		return func(ctx *engine.Context) error {
			a := ctx.Register(thing, "a", engine.Props{"gen": gen}, engine.DeleteBeforeReplace())
			ctx.Register(thing, "b", engine.Props{"ref": a.ID(), "rk": "ref"})
			return nil
		}
	}
	if _, err := env.Up(prog(1)); err != nil {
		t.Fatal(err)
	}
	// The chain deletes b, then fails to delete a: b is left recorded as
	// pending replacement, a as it was.
	c.Fail(map[string]failMode{"delete a": failPlain})
	if _, err := env.Up(prog(2)); err == nil {
		t.Fatal("the delete of a was meant to fail")
	}
	c.Fail(nil)
	if b := env.Resource(env.URN(thing, "b")); b == nil || !b.PendingReplacement {
		t.Fatalf("b = %+v; want it recorded as pending replacement", b)
	}
	res, err := env.Up(prog(2))
	if err != nil {
		t.Fatalf("the retry failed: %v", err)
	}
	for _, s := range res.Steps {
		if s.URN.Name() == "b" && (s.Op == engine.StepDelete || s.Op == engine.StepDeleteReplaced) && s.Err != nil {
			t.Errorf("b was deleted again: %v", s.Err)
		}
	}
	if live := len(c.Live()); live != 2 {
		t.Errorf("the world holds %d resources, want 2", live)
	}
}

// A refresh that found a resource gone while another recorded resource
// still depended on it wrote a journal that broke integrity: the refresh
// failed, and from then on the stack no longer loaded. It must drop the
// gone resource and every reference to it.
func TestRegressionRefreshOfGoneDependency(t *testing.T) {
	c := newCloud()
	env := newEnv(t, c)
	prog := func(ctx *engine.Context) error {
		a := ctx.Register(thing, "a", engine.Props{})
		ctx.Register(thing, "b", engine.Props{"ref": a.ID()}, engine.DependsOn(a))
		ctx.Register(thing, "c", engine.Props{}, engine.DeletedWith(a))
		ctx.Register(thing, "d", engine.Props{}, engine.Parent(a))
		return nil
	}
	if _, err := env.Up(prog); err != nil {
		t.Fatal(err)
	}
	a := env.URN(thing, "a")
	c.Remove(a)
	if _, err := env.Engine().Refresh(bg); err != nil {
		t.Fatalf("refresh: %v", err)
	}
	snap := env.Snapshot() // fails the test if the stack does not load
	for _, r := range snap.Resources {
		if r.URN == a {
			t.Fatalf("a is still recorded")
		}
		refs := slices.Concat(r.Dependencies, []resource.URN{r.DeletedWith, r.Parent})
		for _, us := range r.PropertyDependencies {
			refs = append(refs, us...)
		}
		if slices.Contains(refs, a) {
			t.Errorf("%s still refers to a: %+v", r.URN.Name(), r)
		}
	}
	if _, err := env.Up(prog); err != nil {
		t.Fatalf("up after the refresh: %v", err)
	}
	if live := len(c.Live()); live != 4 {
		t.Errorf("the world holds %d resources, want 4", live)
	}
}

// frozen is what a MemoryStore held for a stack at one moment: restoring
// it simulates the process dying then (the journal holds what had been
// appended; the lock is left behind and broken).
type frozen map[string][]byte

func freeze(st *memstore.Store, stack state.StackID) frozen {
	return st.Files(stack)
}

func (f frozen) restore(t testing.TB, st *memstore.Store, stack state.StackID) {
	t.Helper()
	for name := range st.Files(stack) {
		st.SetFile(stack, name, nil)
	}
	for name, data := range f {
		if name != "lock" {
			st.SetFile(stack, name, data)
		}
	}
}

// A refresh resolving the pending delete of an old copy marked Delete,
// which still existed, recorded that copy a second time, and the next Up
// deleted it twice (the second time failing).
func TestRegressionRefreshOfPendingDeleteOfCopyMarkedDelete(t *testing.T) {
	c := newCloud()
	env := newEnv(t, c)
	store := env.Store.(*memstore.Store)
	prog := func(gen int) engine.Program {
		return func(ctx *engine.Context) error {
			ctx.Register(thing, "a", engine.Props{"gen": gen})
			return nil
		}
	}
	if _, err := env.Up(prog(1)); err != nil {
		t.Fatal(err)
	}
	// Die as the old copy's delete begins.
	var crash frozen
	c.hook = func(_ context.Context, op string, urn resource.URN) error {
		if op == "delete" {
			crash = freeze(store, env.StackID())
			return errInjected
		}
		return nil
	}
	if _, err := env.Up(prog(2)); err == nil {
		t.Fatal("the delete was meant to fail")
	}
	c.hook = nil
	crash.restore(t, store, env.StackID())
	snap := env.Snapshot()
	if len(snap.PendingOperations) != 1 || copiesOf(snap.Resources, "a") != 2 {
		t.Fatalf("want a pending delete and two copies of a, got %d pending and %d copies", len(snap.PendingOperations), copiesOf(snap.Resources, "a"))
	}
	if _, err := env.Engine().Refresh(bg); err != nil {
		t.Fatalf("refresh: %v", err)
	}
	snap = env.Snapshot()
	if n := copiesOf(snap.Resources, "a"); n != 2 || len(snap.PendingOperations) != 0 {
		t.Fatalf("after refresh: %d copies of a (want the old one and its replacement), %d pending operations", n, len(snap.PendingOperations))
	}
	if _, err := env.Up(prog(2)); err != nil {
		t.Fatalf("up after the refresh: %v", err)
	}
	if n, live := copiesOf(env.Snapshot().Resources, "a"), len(c.Live()); n != 1 || live != 1 {
		t.Fatalf("%d copies recorded, %d in the world; want 1 and 1", n, live)
	}
}

// A delete-before-replace decides which dependents to delete first by
// asking their providers to diff, one call at a time. A dependent the
// program registered meanwhile (its new inputs no longer depend on the
// replaced resource) was replaced by its own steps and then deleted again
// by the delete-before-replace, whose record no longer matched: the run
// failed after deleting it.
func TestRegressionDeleteBeforeReplaceOfDependentRegisteredMeanwhile(t *testing.T) {
	c := newCloud()
	env := newEnv(t, c)
	if _, err := env.Up(func(ctx *engine.Context) error {
		a := ctx.Register(thing, "a", engine.Props{"gen": 1}, engine.DeleteBeforeReplace())
		ctx.Register(thing, "b", engine.Props{"ref": a.ID(), "rk": "ref"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	bReplaced, askingAboutB := make(chan struct{}), make(chan struct{})
	var once, asking sync.Once
	c.hook = func(_ context.Context, op string, urn resource.URN) error {
		if op == "create" && urn.Name() == "b" {
			once.Do(func() { close(bReplaced) })
		}
		return nil
	}
	p := c.provider()
	diff := p.DiffF
	p.DiffF = func(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
		if req.URN.Name() == "b" && req.NewInputs.ContainsUnknowns() {
			// The delete-before-replace asks about b: let the program
			// register b now, and b's own replacement happen first.
			asking.Do(func() { close(askingAboutB) })
			select {
			case <-bReplaced:
			case <-time.After(5 * time.Second):
			}
		}
		return diff(ctx, req)
	}
	env2 := enginetest.New(t)
	env2.Store = env.Store
	env2.Provider("fz", "", p)
	if _, err := env2.Up(func(ctx *engine.Context) error {
		ctx.Register(thing, "a", engine.Props{"gen": 2}, engine.DeleteBeforeReplace())
		<-askingAboutB
		ctx.Register(thing, "b", engine.Props{"ref": "elsewhere", "rk": "ref"})
		return nil
	}); err != nil {
		t.Fatalf("up: %v", err)
	}
	if live, n := len(c.Live()), len(env2.Snapshot().Resources); live != 2 {
		t.Errorf("the world holds %d resources (state %d), want 2", live, n)
	}
}

// A dependent registered after a delete-before-replace had issued its
// chain (which deletes that dependent first) was created again at once,
// while the chain's delete of its old copy had not run or not ended: the
// new copy existed beside the old one, which delete-before-replace is
// there to prevent, and the delete's record then no longer matched. Steps
// on one resource must run in the order they were issued.
func TestRegressionDependentRegisteredDuringDeleteBeforeReplace(t *testing.T) {
	c := newCloud()
	env := newEnv(t, c)
	if _, err := env.Up(func(ctx *engine.Context) error {
		a := ctx.Register(thing, "a", engine.Props{"gen": 1}, engine.DeleteBeforeReplace())
		ctx.Register(thing, "b", engine.Props{"ref": a.ID(), "rk": "ref"}, engine.DependsOn(a))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	deletingB, createdB := make(chan struct{}), make(chan struct{})
	var overlap atomic.Bool
	c.hook = func(_ context.Context, op string, urn resource.URN) error {
		switch {
		case op == "delete" && urn.Name() == "b":
			close(deletingB)
			select { // give a create of b the time to overtake
			case <-createdB:
				overlap.Store(true)
			case <-time.After(300 * time.Millisecond):
			}
		case op == "create" && urn.Name() == "b":
			close(createdB)
		}
		return nil
	}
	if _, err := env.Up(func(ctx *engine.Context) error {
		ctx.Register(thing, "a", engine.Props{"gen": 2}, engine.DeleteBeforeReplace())
		<-deletingB
		ctx.Register(thing, "b", engine.Props{"ref": "elsewhere", "rk": "ref"})
		return nil
	}); err != nil {
		t.Errorf("up: %v", err)
	}
	if overlap.Load() {
		t.Error("b's new copy was created while the delete of its old copy was still running")
	}
	if live := len(c.Live()); live != 2 {
		t.Errorf("the world holds %d resources, want 2", live)
	}
}

// A targeted resource that depends on a new resource outside the targets
// (which is therefore not created) was created anyway, and its record,
// naming a dependency that does not exist, was then refused by the
// journal: the resource existed, unrecorded but for a pending create. It
// must fail before anything is created.
func TestRegressionTargetDependsOnUntargetedNewResource(t *testing.T) {
	for _, how := range []string{"dependsOn", "parent", "deletedWith"} {
		t.Run(how, func(t *testing.T) {
			c := newCloud()
			env := newEnv(t, c)
			prog := func(ctx *engine.Context) error {
				a := ctx.Register(thing, "a", engine.Props{})
				opt := map[string]engine.ResourceOption{"dependsOn": engine.DependsOn(a), "parent": engine.Parent(a), "deletedWith": engine.DeletedWith(a)}[how]
				ctx.Register(thing, "b", engine.Props{}, opt)
				return nil
			}
			b := env.URN(thing, "b")
			if how == "parent" {
				b = resource.NewURN(env.Stack, env.Project, thing, thing, "b")
			}
			_, err := env.Up(prog, engine.Targets(b))
			if err == nil {
				t.Fatal("up succeeded; want an error naming the untargeted dependency")
			}
			t.Log(err)
			snap := env.Snapshot()
			if live := len(c.Live()); live != 0 || len(snap.PendingOperations) != 0 {
				t.Errorf("%d resources exist and %d pending operations are recorded; want none", live, len(snap.PendingOperations))
			}
		})
	}
}
