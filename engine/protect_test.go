package engine_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// outcomes renders a result's steps on custom resources and components
// (not providers, the stack or outputs) as "op name", with ": failed" or
// ": skipped" for those that did not succeed, sorted.
func outcomes(res *engine.Result) []string {
	var out []string
	for _, s := range res.Steps {
		typ := s.URN.Type()
		if resource.IsProviderType(typ) || typ == resource.RootStackType || s.Op == engine.StepOutputs {
			continue
		}
		o := string(s.Op) + " " + s.URN.Name()
		var skip *engine.SkippedError
		switch {
		case errors.As(s.Err, &skip):
			o += ": skipped"
		case s.Err != nil:
			o += ": failed"
		}
		out = append(out, o)
	}
	slices.Sort(out)
	return out
}

// recordedNames lists the resources the stack records (custom resources,
// components and explicit providers, not the stack), sorted.
func recordedNames(env *enginetest.Env) []string {
	var out []string
	for _, s := range env.Snapshot().Resources {
		if s.Type != resource.RootStackType && !strings.HasPrefix(s.URN.Name(), "default") {
			out = append(out, s.URN.Name())
		}
	}
	slices.Sort(out)
	return out
}

// summary returns the last operation's summary event.
func summary(t *testing.T, env *enginetest.Env) engine.SummaryEvent {
	t.Helper()
	evs := env.Events()
	for i := len(evs) - 1; i >= 0; i-- {
		if s, ok := evs[i].(engine.SummaryEvent); ok {
			return s
		}
	}
	t.Fatal("no summary event")
	return engine.SummaryEvent{}
}

// failedEvents lists the "op name" of every StepFailedEvent of the last
// operation that is not a skip.
func failedEvents(env *enginetest.Env) []string {
	var out []string
	evs := env.Events()
	for i := len(evs) - 1; i >= 0; i-- {
		if _, ok := evs[i].(engine.OperationStartEvent); ok {
			evs = evs[i:]
			break
		}
	}
	for _, ev := range evs {
		if f, ok := ev.(engine.StepFailedEvent); ok && !f.Skipped {
			out = append(out, string(f.Op)+" "+f.URN.Name())
		}
	}
	slices.Sort(out)
	return out
}

// TestProtectedResourceLeftOut: when an update no longer declares a
// protected resource, or a destroy would delete one, it is not deleted, and
// neither is anything it depends on (its dependencies, parent, provider and
// deleted-with target, transitively); every other resource that goes is
// deleted, dependents first, and the operation then fails with a
// ProtectedError naming the protected resource, reported as a failed
// delete step, as the reference engine does. What depends on the protected
// resource is deleted: it stays.
func TestProtectedResourceLeftOut(t *testing.T) {
	// full: base (protected) ← mid ← p (protected) ← user, free on its
	// own; p is a child of the component g and uses the explicit provider
	// prov; the table goes with p. base stays as p's dependency, without a
	// refusal of its own, as in the reference engine.
	full := func(ctx *engine.Context) error {
		prov := ctx.Provider("test", "prov", engine.Props{})
		g := ctx.Component("test:index:Group", "g")
		base := ctx.Register(thing, "base", engine.Props{}, engine.Protect())
		mid := ctx.Register(thing, "mid", engine.Props{"base": base.ID()})
		p := ctx.Register(thing, "p", engine.Props{"mid": mid.ID()}, engine.Protect(), engine.Parent(g), engine.Provider(prov))
		ctx.Register(thing, "user", engine.Props{}, engine.DependsOn(p))
		ctx.Register(thing, "table", engine.Props{}, engine.DeletedWith(p))
		ctx.Register(thing, "free", engine.Props{})
		return nil
	}
	kept := []string{"base", "g", "mid", "p", "prov"}
	tests := []struct {
		name    string
		op      func(env *enginetest.Env) (*engine.Result, error)
		writes  []string
		steps   []string
		records []string
	}{
		{
			name: "an update that no longer declares it",
			op: func(env *enginetest.Env) (*engine.Result, error) {
				return env.Up(func(*engine.Context) error { return nil })
			},
			writes:  []string{"delete free", "delete table", "delete user"},
			steps:   []string{"delete free", "delete p: failed", "delete table", "delete user"},
			records: kept,
		},
		{
			name:    "a destroy",
			op:      func(env *enginetest.Env) (*engine.Result, error) { return env.Destroy() },
			writes:  []string{"delete free", "delete table", "delete user"},
			steps:   []string{"delete free", "delete p: failed", "delete table", "delete user"},
			records: kept,
		},
		{
			name:    "a destroy's preview",
			op:      func(env *enginetest.Env) (*engine.Result, error) { return env.Engine().PreviewDestroy(t.Context()) },
			steps:   []string{"delete free", "delete p: failed", "delete table", "delete user"},
			records: []string{"base", "free", "g", "mid", "p", "prov", "table", "user"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud()
			env := newEnv(t, c)
			if _, err := env.Up(full); err != nil {
				t.Fatal(err)
			}
			before := len(c.Writes())
			res, err := tt.op(env)
			var pe *engine.ProtectedError
			if !errors.As(err, &pe) || pe.URN.Name() != "p" || pe.Action != "delete" || !strings.Contains(err.Error(), string(pe.URN)) {
				t.Fatalf("err = %v, want a ProtectedError naming p", err)
			}
			if diff := cmp.Diff(tt.writes, sorted(c.Writes()[before:]), cmpEmpty); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.steps, outcomes(res)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.records, recordedNames(env)); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"delete p"}, failedEvents(env)); diff != "" {
				t.Errorf("failed step events (-want +got):\n%s", diff)
			}
			if s := summary(t, env); s.Failed != 1 || s.Error == "" {
				t.Errorf("summary: %d failed, error %q; want 1 and the error", s.Failed, s.Error)
			}
		})
	}
}

// TestRefusedDeleteNotReachedIsNotReported: the reference engine schedules
// the delete of a protected resource like any other and reports its
// refusal only if it gets to it. When a delete it runs before that one
// fails — one in an antichain further up the dependency graph, or (with
// continue-on-error) one that depends on the protected resource — the
// protected resource stays without a failed step of its own: the failure
// is the operation's error.
func TestRefusedDeleteNotReachedIsNotReported(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name     string
		program  engine.Program // the first update; the second declares nothing
		opts     []engine.Option
		failing  string
		failed   []string // failed step events of the second update
		reported bool     // whether it reports the refusal of p
	}{
		{
			// b's delete comes before p's (b is higher up: it depends
			// on a), and fails.
			name: "a failed delete scheduled before it",
			program: func(ctx *engine.Context) error {
				ctx.Component("my:index:Group", "p", engine.Protect())
				a := ctx.Register(thing, "a", engine.Props{"n": 1})
				ctx.Register(thing, "b", engine.Props{"n": 1}, engine.DependsOn(a))
				return nil
			},
			failing: "b", failed: []string{"delete b"},
		},
		{
			name: "with continue-on-error it is reached",
			program: func(ctx *engine.Context) error {
				ctx.Component("my:index:Group", "p", engine.Protect())
				a := ctx.Register(thing, "a", engine.Props{"n": 1})
				ctx.Register(thing, "b", engine.Props{"n": 1}, engine.DependsOn(a))
				return nil
			},
			opts:    []engine.Option{engine.ContinueOnError()},
			failing: "b", failed: []string{"delete b", "delete p"}, reported: true,
		},
		{
			// d depends on p: its delete comes first and fails.
			name: "a failed delete of a dependent, with continue-on-error",
			program: func(ctx *engine.Context) error {
				p := ctx.Register(thing, "p", engine.Props{"n": 1}, engine.Protect())
				ctx.Register(thing, "d", engine.Props{"n": 1}, engine.DependsOn(p))
				return nil
			},
			opts:    []engine.Option{engine.ContinueOnError()},
			failing: "d", failed: []string{"delete d"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud()
			prov := c.provider()
			deleteOne := prov.DeleteF
			prov.DeleteF = func(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
				if req.URN.Name() == tt.failing {
					return providers.DeleteResponse{}, boom
				}
				return deleteOne(ctx, req)
			}
			env := enginetest.New(t)
			env.Provider("test", "", prov)
			if _, err := env.Up(tt.program); err != nil {
				t.Fatal(err)
			}
			_, err := env.Up(func(*engine.Context) error { return nil }, tt.opts...)
			var pe *engine.ProtectedError
			if !errors.Is(err, boom) || errors.As(err, &pe) != tt.reported {
				t.Fatalf("err = %v; want the failed delete, and the refusal %v", err, tt.reported)
			}
			if diff := cmp.Diff(tt.failed, failedEvents(env)); diff != "" {
				t.Errorf("failed step events (-want +got):\n%s", diff)
			}
			if !slices.Contains(recordedNames(env), "p") {
				t.Error("p is no longer recorded")
			}
		})
	}
}

// TestDeletesBesideAProtectedResourceAreScheduledAsTheReferenceEngineDoes:
// the deletes of an update that leaves out a protected resource run in the
// dependency graph of everything that would go but for protection, and what
// a protected resource depends on is what the records this update leaves
// say it depends on.
func TestDeletesBesideAProtectedResourceAreScheduledAsTheReferenceEngineDoes(t *testing.T) {
	t.Run("a resource a registered dependency no longer needs goes", func(t *testing.T) {
		c := newCloud()
		env := newEnv(t, c)
		if _, err := env.Up(func(ctx *engine.Context) error {
			r := ctx.Register(thing, "r", engine.Props{"n": 1})
			q := ctx.Register(thing, "q", engine.Props{"n": 1}, engine.DependsOn(r))
			ctx.Register(thing, "p", engine.Props{"n": 1}, engine.Protect(), engine.DependsOn(q))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		_, err := env.Up(func(ctx *engine.Context) error {
			ctx.Register(thing, "q", engine.Props{"n": 1}) // no longer on r
			return nil
		})
		var pe *engine.ProtectedError
		if !errors.As(err, &pe) || pe.URN.Name() != "p" {
			t.Fatalf("err = %v, want the refused delete of p", err)
		}
		if diff := cmp.Diff([]string{"p", "q"}, recordedNames(env)); diff != "" {
			t.Errorf("records (-want +got):\n%s", diff)
		}
	})
	t.Run("a delete beside the protected resource's comes after its dependent's", func(t *testing.T) {
		c := newCloud("zone")
		prov := c.provider()
		deleteOne := prov.DeleteF
		boom := errors.New("boom")
		var failID resource.ID
		prov.DeleteF = func(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
			if req.ID == failID {
				return providers.DeleteResponse{}, boom
			}
			return deleteOne(ctx, req)
		}
		env := enginetest.New(t)
		env.Provider("test", "", prov)
		if _, err := env.Up(func(ctx *engine.Context) error {
			p := ctx.Register(thing, "p", engine.Props{"n": 1}, engine.Protect())
			ctx.Register(thing, "d", engine.Props{"zone": "x"}, engine.DependsOn(p))
			ctx.Register(thing, "free", engine.Props{"n": 1})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		failID = env.Resource(env.URN(thing, "d")).ID
		// d is replaced and its old copy, which depends on p, fails to
		// go: free, which goes in p's antichain after it, stays.
		_, err := env.Up(func(ctx *engine.Context) error {
			ctx.Register(thing, "d", engine.Props{"zone": "y"})
			return nil
		})
		if !errors.Is(err, boom) {
			t.Fatalf("err = %v, want the failed delete of d's old copy", err)
		}
		if diff := cmp.Diff([]string{"d", "d", "free", "p"}, recordedNames(env)); diff != "" {
			t.Errorf("records (-want +got):\n%s", diff)
		}
	})
}

// TestRefusedDeleteBesideAFailedLiveCopyOfTheSameURN: a destroy whose live
// b fails to delete still reports the refused delete of the protected p,
// which the reference engine schedules beside it. The old copy of b
// (marked for deletion, depending on a) comes earlier in that schedule
// and is deleted; the failure of the live b, which shares its URN, is not
// the old copy's and does not keep the refusal from being reported.
func TestRefusedDeleteBesideAFailedLiveCopyOfTheSameURN(t *testing.T) {
	c := newCloud("zone")
	p := c.provider()
	var failID, aID resource.ID
	// The destroy deletes a and the live b side by side; b's delete fails
	// only once a's has begun, as it would with real providers, so that
	// a's delete is not skipped for having started after the failure.
	aDeleting := make(chan struct{})
	del := p.DeleteF
	p.DeleteF = func(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
		if aID != "" && req.ID == aID {
			close(aDeleting)
		}
		if req.ID == failID {
			if aID != "" {
				select {
				case <-aDeleting:
				case <-time.After(10 * time.Second):
				case <-ctx.Done():
				}
			}
			return providers.DeleteResponse{}, errors.New("boom")
		}
		return del(ctx, req)
	}
	env := enginetest.New(t)
	env.Provider("test", "", p)
	if _, err := env.Up(func(ctx *engine.Context) error {
		a := ctx.Register(thing, "a", engine.Props{})
		ctx.Register(thing, "b", engine.Props{"zone": "x"}, engine.DependsOn(a))
		ctx.Register(thing, "p", engine.Props{}, engine.Protect())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// b is replaced and no longer depends on a; the delete of its old
	// copy fails, so the copy stays recorded, still depending on a.
	failID = env.Resource(env.URN(thing, "b")).ID
	if _, err := env.Up(func(ctx *engine.Context) error {
		ctx.Register(thing, "a", engine.Props{})
		ctx.Register(thing, "b", engine.Props{"zone": "y"})
		ctx.Register(thing, "p", engine.Props{}, engine.Protect())
		return nil
	}); err == nil {
		t.Fatal("the update whose delete of b's old copy fails succeeded")
	}
	failID = env.Resource(env.URN(thing, "b")).ID // now the live b
	aID = env.Resource(env.URN(thing, "a")).ID
	res, err := env.Destroy()
	var protected *engine.ProtectedError
	if !errors.As(err, &protected) || protected.URN != env.URN(thing, "p") {
		t.Errorf("destroy: %v; want it to name the protected p", err)
	}
	var failed []string
	for _, s := range res.Steps {
		if s.Err != nil {
			failed = append(failed, string(s.Op)+" "+s.URN.Name())
		}
	}
	slices.Sort(failed)
	if diff := cmp.Diff([]string{"delete b", "delete p"}, failed); diff != "" {
		t.Errorf("failed steps (-want +got):\n%s", diff)
	}
}
