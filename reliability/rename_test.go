package reliability_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// Regression tests for renames (through aliases) of resources that other
// records refer to. During an operation a record names what it refers to
// by the URNs those resources had when it was written; the renamed record
// lists its old URNs among its aliases, and every part of the engine must
// resolve a reference through them as the state does. A committed
// operation settles the renames, but one that ended before it committed
// (its journal replayed by the next load) leaves them unsettled.

// refersTo is a way for b to refer to a.
type refersTo struct {
	name string
	opt  func(a *engine.Resource) engine.ResourceOption
	// props are b's extra inputs referring to a (a property dependency).
	props func(a *engine.Resource) engine.Props
}

var referenceKinds = []refersTo{
	{name: "dependsOn", opt: func(a *engine.Resource) engine.ResourceOption { return engine.DependsOn(a) }},
	{name: "deletedWith", opt: func(a *engine.Resource) engine.ResourceOption { return engine.DeletedWith(a) }},
	{name: "parent", opt: func(a *engine.Resource) engine.ResourceOption { return engine.Parent(a) }},
	{name: "property", props: func(a *engine.Resource) engine.Props { return engine.Props{"ref": a.ID()} }},
}

// register registers b referring to a the way k says, with inputs in.
func (k refersTo) register(ctx *engine.Context, a *engine.Resource, in engine.Props, opts ...engine.ResourceOption) *engine.Resource {
	props := engine.Props{}
	for key, v := range in {
		props[key] = v
	}
	if k.props != nil {
		for key, v := range k.props(a) {
			props[key] = v
		}
	}
	if k.opt != nil {
		opts = append(opts, k.opt(a))
	}
	return ctx.Register(thing, "b", props, opts...)
}

// named returns the live record named name (whatever its parent), or nil.
func named(snap []*resource.State, name string) *resource.State {
	for _, r := range snap {
		if r.URN.Name() == name && !r.Delete {
			return r
		}
	}
	return nil
}

// refs lists every URN r refers to, its provider aside.
func refs(r *resource.State) []resource.URN {
	out := slices.Concat(r.Dependencies, []resource.URN{r.Parent, r.DeletedWith})
	for _, us := range r.PropertyDependencies {
		out = append(out, us...)
	}
	out = slices.DeleteFunc(out, func(u resource.URN) bool { return u == "" || u.Type() == resource.RootStackType })
	slices.Sort(out)
	return slices.Compact(out)
}

// A resource renamed in the same run as a resource referring to it is
// replaced: the old record of the referrer, still naming the old URN, is
// written again (left pending by a delete-before-replace, or marked for
// deletion by a create-before-replace) once the rename is recorded. The
// journal refused it ("dependency … is not recorded before it") after the
// provider had deleted the resource: the delete stayed a pending
// operation, and the run failed.
func TestRegressionReplaceReferrerOfResourceRenamedInTheSameRun(t *testing.T) {
	for _, k := range referenceKinds {
		for _, dbr := range []bool{true, false} {
			name := k.name + "/create-before-replace"
			if dbr {
				name = k.name + "/delete-before-replace"
			}
			t.Run(name, func(t *testing.T) {
				c := newCloud()
				env := newEnv(t, c)
				var opts []engine.ResourceOption
				if dbr {
					opts = append(opts, engine.DeleteBeforeReplace())
				}
				if _, err := env.Up(func(ctx *engine.Context) error {
					a := ctx.Register(thing, "a", engine.Props{})
					k.register(ctx, a, engine.Props{"gen": 1}, opts...)
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				// b's registration waits for ax's, so the rename is
				// recorded before b's replacement begins.
				if _, err := env.Up(func(ctx *engine.Context) error {
					a := ctx.Register(thing, "ax", engine.Props{}, engine.Aliases(resource.Alias{Name: "a"}))
					k.register(ctx, a, engine.Props{"gen": 2}, opts...)
					return nil
				}); err != nil {
					t.Fatalf("up: %v", err)
				}
				snap := env.Snapshot()
				if len(snap.PendingOperations) > 0 {
					t.Errorf("%d pending operations remain", len(snap.PendingOperations))
				}
				ax, b := named(snap.Resources, "ax"), named(snap.Resources, "b")
				if ax == nil || b == nil || len(snap.Resources) != 4 { // with the default provider and the stack
					t.Fatalf("want ax and b recorded once each, got %d records", len(snap.Resources))
				}
				if got := refs(b); !slices.Equal(got, []resource.URN{ax.URN}) {
					t.Errorf("b refers to %v; want only %s", got, ax.URN)
				}
				if live := len(c.Live()); live != 2 {
					t.Errorf("the world holds %d resources, want 2", live)
				}
			})
		}
	}
}

// renamedWithStaleReferrer leaves a stack in which a was renamed to ax
// while b, whose update failed, still refers to a by its old URN: the
// state of an operation that ended before it committed (a committed one
// settles b's reference to name ax).
func renamedWithStaleReferrer(t *testing.T, c *fakeCloud, env *enginetest.Env, k refersTo, opts ...engine.ResourceOption) {
	t.Helper()
	if _, err := env.Up(func(ctx *engine.Context) error {
		a := ctx.Register(thing, "a", engine.Props{"gen": 1}, opts...)
		k.register(ctx, a, engine.Props{"val": 1})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	c.Fail(map[string]failMode{"update b": failPlain})
	if _, err := env.Up(func(ctx *engine.Context) error {
		a := ctx.Register(thing, "ax", engine.Props{"gen": 1}, append([]engine.ResourceOption{engine.Aliases(resource.Alias{Name: "a"})}, opts...)...)
		k.register(ctx, a, engine.Props{"val": 2})
		return nil
	}); err == nil {
		t.Fatal("b's update was meant to fail")
	}
	c.Fail(nil)
	snap := env.Snapshot()
	oldURN := env.URN(thing, "a")
	ax, b := named(snap.Resources, "ax"), named(snap.Resources, "b")
	if ax == nil || b == nil || !slices.Contains(refs(b), ax.URN) || len(ax.Aliases) > 0 {
		t.Fatalf("ax = %+v, b = %+v; want the rename settled: b referring to ax, ax without aliases", ax, b)
	}
	// Unsettle the rename, as the journal of an operation that never
	// committed leaves it.
	newURN := ax.URN
	ax.Aliases = []resource.URN{oldURN}
	back := func(u resource.URN) resource.URN {
		if u == newURN {
			return oldURN
		}
		return u
	}
	b.Parent, b.DeletedWith = back(b.Parent), back(b.DeletedWith)
	for i, d := range b.Dependencies {
		b.Dependencies[i] = back(d)
	}
	for _, deps := range b.PropertyDependencies {
		for i, d := range deps {
			deps[i] = back(d)
		}
	}
	if err := env.Store.Save(context.Background(), env.StackID(), snap); err != nil {
		t.Fatal(err)
	}
	if b := named(env.Snapshot().Resources, "b"); b == nil || !slices.Contains(refs(b), oldURN) {
		t.Fatalf("b = %+v; want it still referring to a", b)
	}
}

// The deletes at the end of a run were ordered by URN only: a resource
// renamed in an earlier run and a record still naming its old URN were
// deleted in parallel. When the referrer's delete failed, the renamed
// resource was gone while a record still referred to it, and the stack no
// longer loaded. (A referrer deleted with the renamed resource has no
// delete of its own to fail: it goes with it.)
func TestRegressionDeleteOfRenamedResourceWaitsForStaleReferrer(t *testing.T) {
	for _, k := range referenceKinds {
		t.Run(k.name, func(t *testing.T) {
			c := newCloud()
			env := newEnv(t, c)
			renamedWithStaleReferrer(t, c, env, k)
			// b's delete fails, after giving a delete of ax running beside
			// it the time to happen.
			axDeleting := make(chan struct{})
			var once sync.Once
			c.hook = func(_ context.Context, op string, urn resource.URN) error {
				switch {
				case op == "delete" && urn.Name() == "ax":
					once.Do(func() { close(axDeleting) })
				case op == "delete" && urn.Name() == "b":
					select {
					case <-axDeleting:
					case <-time.After(300 * time.Millisecond):
					}
					return errInjected
				}
				return nil
			}
			_, err := env.Destroy()
			snap := env.Snapshot() // fails the test if the stack does not load
			if k.name == "deletedWith" {
				// The fake world does not delete b with ax: it stays, let go.
				if err != nil || len(snap.Resources) != 0 || len(c.Live()) != 1 {
					t.Errorf("destroy: %v; %d records and %d resources remain, want no record and b (deleted with ax, no call of its own)", err, len(snap.Resources), len(c.Live()))
				}
				return
			}
			if err == nil {
				t.Fatal("b's delete was meant to fail")
			}
			for _, name := range []string{"ax", "b"} {
				if named(snap.Resources, name) == nil {
					t.Errorf("%s is no longer recorded", name)
				}
			}
			if live := len(c.Live()); live != 2 {
				t.Errorf("the world holds %d resources, want 2: ax must wait for b", live)
			}
		})
	}
}

// A targeted delete of a renamed resource did not see that a resource
// outside the targets still referred to it by its old URN: it was deleted,
// the referrer's record dangled, and the stack no longer loaded. It must
// be refused, as it is for a reference by the current URN; and targeting
// with dependents must take the referrer in.
func TestRegressionTargetedDeleteOfRenamedResourceWithStaleReferrer(t *testing.T) {
	for _, k := range referenceKinds {
		if k.name == "parent" {
			continue // a child of ax cannot be registered without it
		}
		for _, withDependents := range []bool{false, true} {
			name := k.name
			if withDependents {
				name += "/with-dependents"
			}
			t.Run(name, func(t *testing.T) {
				c := newCloud()
				env := newEnv(t, c)
				renamedWithStaleReferrer(t, c, env, k)
				opts := []engine.Option{engine.Targets(env.URN(thing, "ax"))}
				if withDependents {
					opts = append(opts, engine.TargetDependents())
				}
				_, err := env.Up(func(ctx *engine.Context) error {
					ctx.Register(thing, "b", engine.Props{"val": 2})
					return nil
				}, opts...)
				snap := env.Snapshot()
				if withDependents {
					if err != nil {
						t.Fatalf("up: %v", err)
					}
					b := named(snap.Resources, "b")
					if named(snap.Resources, "ax") != nil || b == nil || len(refs(b)) > 0 || len(c.Live()) != 1 {
						t.Errorf("want ax deleted and b updated to refer to nothing; b = %+v, %d resources exist", b, len(c.Live()))
					}
					return
				}
				if err == nil {
					t.Fatal("the targeted delete of ax succeeded; want it refused while b refers to it")
				}
				t.Log(err)
				if named(snap.Resources, "ax") == nil || len(c.Live()) != 2 {
					t.Errorf("ax was deleted")
				}
			})
		}
	}
}

// A delete-before-replace of a resource renamed in an earlier run looked
// for the dependents to delete first by its current URN only: a dependent
// whose record still named the old URN was left in place while the
// resource it refers to was deleted under it.
func TestRegressionDeleteBeforeReplaceOfRenamedResourceWithStaleDependent(t *testing.T) {
	c := newCloud()
	env := newEnv(t, c)
	// b is replaced when its ref changes.
	k := refersTo{name: "property", props: func(a *engine.Resource) engine.Props {
		return engine.Props{"ref": a.ID(), "rk": "ref"}
	}}
	renamedWithStaleReferrer(t, c, env, k, engine.DeleteBeforeReplace())
	oldID := named(env.Snapshot().Resources, "ax").ID
	var mu sync.Mutex
	var violations []string
	c.hook = func(_ context.Context, op string, urn resource.URN) error {
		if op != "delete" || urn.Name() != "ax" {
			return nil
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		for id, p := range c.live {
			if ref := p.Inputs["ref"]; ref.IsString() && ref.StringValue() == string(oldID) {
				mu.Lock()
				violations = append(violations, string(id))
				mu.Unlock()
			}
		}
		return nil
	}
	if _, err := env.Up(func(ctx *engine.Context) error {
		a := ctx.Register(thing, "ax", engine.Props{"gen": 2}, engine.Aliases(resource.Alias{Name: "a"}), engine.DeleteBeforeReplace())
		k.register(ctx, a, engine.Props{"val": 2})
		return nil
	}); err != nil {
		t.Fatalf("up: %v", err)
	}
	if len(violations) > 0 {
		t.Errorf("ax was deleted while %v still referred to it", violations)
	}
	env.Snapshot()
	if live := len(c.Live()); live != 2 {
		t.Errorf("the world holds %d resources, want 2", live)
	}
}

// A refresh that found a resource gone dropped every reference to a URN
// no remaining record held: a reference to a renamed resource by its old
// URN was dropped although the resource remains (a child lost its
// parent), and a child of a gone renamed resource, named by its old URN,
// did not climb to that resource's parent.
func TestRegressionRefreshKeepsReferencesToRenamedResources(t *testing.T) {
	for _, k := range referenceKinds {
		for _, axGone := range []bool{false, true} {
			name := k.name + "/ax-remains"
			if axGone {
				name = k.name + "/ax-gone"
			}
			t.Run(name, func(t *testing.T) {
				c := newCloud()
				env := newEnv(t, c)
				parent := func(ctx *engine.Context) engine.ResourceOption {
					r := ctx.Register(thing, "p", engine.Props{})
					return engine.Parent(r)
				}
				if _, err := env.Up(func(ctx *engine.Context) error {
					a := ctx.Register(thing, "a", engine.Props{}, parent(ctx))
					k.register(ctx, a, engine.Props{"val": 1})
					ctx.Register(thing, "c", engine.Props{})
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				c.Fail(map[string]failMode{"update b": failPlain})
				if _, err := env.Up(func(ctx *engine.Context) error {
					a := ctx.Register(thing, "ax", engine.Props{}, engine.Aliases(resource.Alias{Name: "a"}), parent(ctx))
					k.register(ctx, a, engine.Props{"val": 2})
					ctx.Register(thing, "c", engine.Props{})
					return nil
				}); err == nil {
					t.Fatal("b's update was meant to fail")
				}
				c.Fail(nil)
				snap := env.Snapshot()
				ax, before := named(snap.Resources, "ax"), named(snap.Resources, "b")
				p := named(snap.Resources, "p").URN
				gone := named(snap.Resources, "c").ID
				if axGone {
					gone = ax.ID
				}
				c.mu.Lock()
				delete(c.live, gone)
				c.mu.Unlock()
				if _, err := env.Engine().Refresh(bg); err != nil {
					t.Fatalf("refresh: %v", err)
				}
				after := named(env.Snapshot().Resources, "b")
				if after == nil {
					t.Fatal("b is no longer recorded")
				}
				want := refs(before)
				if axGone {
					want = nil
					if k.name == "parent" {
						want = []resource.URN{p} // it climbs to ax's parent
					}
				}
				if got := refs(after); !slices.Equal(got, want) {
					t.Errorf("after the refresh b refers to %v; want %v", got, want)
				}
			})
		}
	}
}

// Renaming (through an alias) an explicit provider keeps its ID: it is the
// same provider, and the resources it manages are not replaced. Their
// records name it by a reference ("<URN>::<ID>") with its old URN until
// their own steps rewrite them, and that reference must keep resolving, in
// the state and in the registry of provider instances. The run that
// renamed it failed ("provider … is unknown"), after marking the resource
// for replacement, and left a stack that no longer loaded.
func TestRegressionRenameOfExplicitProvider(t *testing.T) {
	tests := []struct {
		name string
		fail map[string]failMode // in the run that renames the provider
		then string              // what runs next: "up", "destroy" or "refresh"
	}{
		{name: "the resource updates", then: "up"},
		{name: "the resource's update fails, then up", fail: map[string]failMode{"update r": failPlain}, then: "up"},
		{name: "the resource's update fails, then destroy", fail: map[string]failMode{"update r": failPlain}, then: "destroy"},
		{name: "the resource's update fails, then refresh", fail: map[string]failMode{"update r": failPlain}, then: "refresh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud()
			env := newEnv(t, c)
			prog := func(name string, val int, opts ...engine.ResourceOption) engine.Program {
				return func(ctx *engine.Context) error {
					p := ctx.Provider("fz", name, engine.Props{}, opts...)
					ctx.Register(thing, "r", engine.Props{"val": val}, engine.Provider(p))
					return nil
				}
			}
			if _, err := env.Up(prog("p", 1)); err != nil {
				t.Fatal(err)
			}
			id := named(env.Snapshot().Resources, "r").ID
			c.Fail(tt.fail)
			renamed := prog("px", 2, engine.Aliases(resource.Alias{Name: "p"}))
			_, err := env.Up(renamed)
			if (err != nil) != (tt.fail != nil) {
				t.Fatalf("up that renames the provider: %v", err)
			}
			c.Fail(nil)
			snap := env.Snapshot() // fails the test if the stack does not load
			if r := named(snap.Resources, "r"); r == nil || r.ID != id {
				t.Fatalf("r = %+v; want it kept (id %s), not replaced", r, id)
			}
			switch tt.then {
			case "up":
				_, err = env.Up(renamed)
			case "destroy":
				_, err = env.Destroy()
			case "refresh":
				_, err = env.Engine().Refresh(bg)
			}
			if err != nil {
				t.Fatalf("%s: %v", tt.then, err)
			}
			snap = env.Snapshot()
			live := c.Live()
			switch r := named(snap.Resources, "r"); {
			case tt.then == "destroy":
				if len(snap.Resources) != 0 || len(live) != 0 {
					t.Errorf("after destroy: %d records, %d resources", len(snap.Resources), len(live))
				}
			case r == nil || r.ID != id || len(live) != 1:
				t.Errorf("r = %+v, %d resources exist; want r kept (id %s)", r, len(live), id)
			case tt.then == "up" && !r.Inputs["val"].DeepEquals(resource.NewNumber(2)):
				t.Errorf("r's inputs are %v; want val 2", r.Inputs)
			}
		})
	}
}

// A crash in the middle of a run that renames a resource and replaces a
// referrer of it leaves a journal whose records name the resource by its
// old URN: a pending delete of the referrer, or the referrer's pending
// replacement record. Replaying it must give a stack that loads, and the
// next runs must converge.
func TestRegressionCrashDuringRenameOfReferencedResource(t *testing.T) {
	for _, at := range []string{"delete", "create"} {
		t.Run("dies as b's "+at+" begins", func(t *testing.T) {
			c := newCloud()
			env := newEnv(t, c)
			store := env.Store.(*memstore.Store)
			if _, err := env.Up(func(ctx *engine.Context) error {
				a := ctx.Register(thing, "a", engine.Props{})
				ctx.Register(thing, "b", engine.Props{"gen": 1}, engine.DependsOn(a), engine.DeleteBeforeReplace())
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			renamed := func(ctx *engine.Context) error {
				a := ctx.Register(thing, "ax", engine.Props{}, engine.Aliases(resource.Alias{Name: "a"}))
				ctx.Register(thing, "b", engine.Props{"gen": 2}, engine.DependsOn(a), engine.DeleteBeforeReplace())
				return nil
			}
			var crash frozen
			c.hook = func(_ context.Context, op string, urn resource.URN) error {
				if op == at && urn.Name() == "b" && crash == nil {
					crash = freeze(store, env.StackID())
					return errInjected
				}
				return nil
			}
			if _, err := env.Up(renamed); err == nil {
				t.Fatal("the run was meant to die")
			}
			c.hook = nil
			crash.restore(t, store, env.StackID())
			snap := env.Snapshot() // fails the test if the replayed stack does not load
			if len(snap.PendingOperations) != 1 {
				t.Fatalf("%d pending operations after the crash; want b's", len(snap.PendingOperations))
			}
			if _, err := env.Engine().Refresh(bg); err != nil {
				t.Fatalf("refresh: %v", err)
			}
			if _, err := env.Up(renamed); err != nil {
				t.Fatalf("up after the crash: %v", err)
			}
			if at == "create" {
				// b's create died before its provider returned an ID: no
				// refresh can look it up, so it stays pending until it is
				// discarded on purpose.
				snap = env.Snapshot()
				if p := snap.PendingOperations; len(p) != 1 || p[0].Kind != resource.OperationCreating || p[0].Resource.ID != "" {
					t.Fatalf("pending operations after the retry = %v; want b's create, without an ID", p)
				}
				if _, err := env.Engine().Refresh(bg, engine.DiscardPendingCreates()); err != nil {
					t.Fatalf("refresh discarding the pending create: %v", err)
				}
			}
			snap = env.Snapshot()
			ax, b := named(snap.Resources, "ax"), named(snap.Resources, "b")
			if len(snap.PendingOperations) != 0 || ax == nil || b == nil || b.PendingReplacement || len(c.Live()) != 2 {
				t.Errorf("after the retry: %d pending, ax %v, b %+v, %d resources exist; want ax and b, each once", len(snap.PendingOperations), ax != nil, b, len(c.Live()))
			}
		})
	}
}
