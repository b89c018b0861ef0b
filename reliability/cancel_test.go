package reliability_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// Cancelling the context of an Up (what a host does on SIGINT) must
// signal the providers, let the steps in flight finish within the grace
// period (or record what they left, or leave them pending), write a
// consistent snapshot, release the lock, and return an
// *engine.CancelledError.
func TestCancelUp(t *testing.T) {
	const first, second = 8, 8
	program := func(ctx *engine.Context) error {
		for i := range first {
			a := ctx.Register(thing, fmt.Sprintf("a%d", i), engine.Props{"n": i})
			ctx.Register(thing, fmt.Sprintf("b%d", i), engine.Props{"n": i}, engine.DependsOn(a))
		}
		return nil
	}
	tests := []struct {
		name string
		// onSignal is what an in-flight create does once the provider is
		// signalled: finish, fail, or fail after creating (init error).
		onSignal failMode
		// stopByContext makes the creates wait for their context instead
		// of the provider's signal, and give up when it ends (at the end
		// of the grace period): they are left pending.
		stopByContext bool
	}{
		{"in-flight creates finish when signalled", failNone, false},
		{"in-flight creates fail when signalled", failPlain, false},
		{"in-flight creates fail half-done when signalled", failInit, false},
		{"in-flight creates that give up when their context ends stay pending", failNone, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud()
			var (
				mu       sync.Mutex
				inFlight int
				all      = make(chan struct{})
				signal   = make(chan struct{})
				once     sync.Once
			)
			p := c.provider()
			p.SignalCancellationF = func(context.Context) error {
				c.signals.Add(1)
				once.Do(func() { close(signal) })
				return nil
			}
			c.hook = func(ctx context.Context, op string, urn resource.URN) error {
				if op != "create" || urn.Name()[0] != 'a' {
					return nil
				}
				mu.Lock()
				if inFlight++; inFlight == first {
					close(all)
				}
				mu.Unlock()
				var stop <-chan struct{} = signal
				if tt.stopByContext {
					stop = ctx.Done()
				}
				select {
				case <-stop:
				case <-time.After(10 * time.Second):
					return errors.New("the create was never told to stop")
				}
				if tt.stopByContext {
					return ctx.Err()
				}
				c.mu.Lock()
				c.failures["create "+urn.Name()] = tt.onSignal
				c.mu.Unlock()
				return nil
			}
			env := enginetest.New(t)
			env.Provider("fz", "", p)
			ctx, cancel := context.WithCancelCause(bg)
			go func() {
				<-all
				cancel(errors.New("interrupted (SIGINT)"))
			}()
			start := time.Now()
			out := bounded(t, 20*time.Second, "a cancelled Up", func() upResult {
				r, err := env.Engine().Up(ctx, program, engine.GracePeriod(200*time.Millisecond))
				return upResult{r, err}
			})
			err := out.err
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("the cancelled Up took %v: the providers were not signalled while their steps ran", took)
			}
			var ce *engine.CancelledError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v; want an *engine.CancelledError", err)
			}
			if c.signals.Load() == 0 {
				t.Error("the provider never got SignalCancellation")
			}
			checkNoLeaks(t)

			// The lock is released.
			lock, err := env.Store.Lock(bg, env.StackID(), "check")
			if err != nil {
				t.Fatalf("the stack is still locked after the cancelled Up: %v", err)
			}
			if err := lock.Unlock(bg); err != nil {
				t.Fatal(err)
			}
			// The state loads, and records every resource that exists,
			// with nothing left pending.
			snap := env.Snapshot()
			recorded := map[resource.ID]bool{}
			for _, r := range snap.Resources {
				recorded[r.ID] = true
			}
			for id, ph := range c.Live() {
				if !recorded[id] {
					t.Errorf("%s (%s) exists but the state does not record it", id, ph.URN.Name())
				}
			}
			if tt.stopByContext {
				if len(snap.PendingOperations) != first || len(ce.Pending) != first {
					t.Errorf("%d pending operations recorded, %d reported; want the %d creates in flight", len(snap.PendingOperations), len(ce.Pending), first)
				}
			} else if len(snap.PendingOperations) > 0 {
				t.Errorf("%d pending operations left: every step in flight ended and should have been recorded (first: %s %s)",
					len(snap.PendingOperations), snap.PendingOperations[0].Kind, snap.PendingOperations[0].Resource.URN.Name())
			}
			c.Fail(nil)
			c.mu.Lock()
			c.hook = nil
			c.mu.Unlock()
			// The next Up finishes the job.
			if _, err := env.Up(program); err != nil {
				t.Fatalf("the next Up: %v", err)
			}
			if live := len(c.Live()); live != first+second {
				t.Errorf("the world holds %d resources, want %d", live, first+second)
			}
		})
	}
}

// upResult is what an operation returned.
type upResult struct {
	res *engine.Result
	err error
}

// Cancelling a Destroy in the middle of its deletes, over the file store:
// the deletes in flight finish when the provider is signalled, are
// recorded, and the next Destroy finishes the job.
func TestCancelDestroy(t *testing.T) {
	const n = 12
	c := newCloud()
	store := fileStore(t, t.TempDir())
	p := c.provider()
	signal := make(chan struct{})
	var once sync.Once
	p.SignalCancellationF = func(context.Context) error {
		once.Do(func() { close(signal) })
		return nil
	}
	eng := func() *engine.Engine {
		e, err := engine.New(engine.Config{Project: "fz", Stack: "dev", Store: store,
			Providers: func() *providers.Registry {
				r := providers.NewRegistry()
				_ = r.RegisterFactory("fz", "1.0.0", func(context.Context) (providers.Provider, error) { return p, nil })
				return r
			}})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	if _, err := eng().Up(bg, func(ctx *engine.Context) error {
		for i := range n {
			ctx.Register(thing, fmt.Sprintf("r%d", i), engine.Props{"secret": resource.NewSecret(resource.NewString("s"))})
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	inFlight, all := 0, make(chan struct{})
	c.hook = func(ctx context.Context, op string, urn resource.URN) error {
		if op != "delete" {
			return nil
		}
		mu.Lock()
		if inFlight++; inFlight == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-signal:
			return nil
		case <-time.After(10 * time.Second):
			return errors.New("the delete was never told to stop")
		}
	}
	ctx, cancel := context.WithCancel(bg)
	go func() { <-all; cancel() }()
	out := bounded(t, 20*time.Second, "a cancelled Destroy", func() upResult {
		r, err := eng().Destroy(ctx)
		return upResult{r, err}
	})
	var ce *engine.CancelledError
	if !errors.As(out.err, &ce) {
		t.Fatalf("err = %v; want an *engine.CancelledError", out.err)
	}
	snap, err := store.Load(bg, state.StackID{Project: "fz", Stack: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.PendingOperations) > 0 || len(c.Live()) != 0 {
		t.Errorf("%d pending operations, %d resources left; want the deletes in flight recorded", len(snap.PendingOperations), len(c.Live()))
	}
	for _, r := range snap.Resources {
		if r.Type == thing {
			t.Errorf("%s was deleted but is still recorded", r.URN.Name())
		}
	}
	c.mu.Lock()
	c.hook = nil
	c.mu.Unlock()
	if _, err := eng().Destroy(bg); err != nil {
		t.Fatalf("the next Destroy: %v", err)
	}
	checkNoLeaks(t)
}
