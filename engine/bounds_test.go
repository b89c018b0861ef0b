package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/resource"
)

// TestProviderCallsEachHoldAWorker: a step blocked in its provider call
// leaves the step walker free to start the next step (the call is
// declared blocking), whether the call runs on the step's goroutine (a
// context that cannot be cancelled) or on one of its own that the
// operation can stop waiting for: twenty creates that each wait until all
// twenty are in flight finish.
func TestProviderCallsEachHoldAWorker(t *testing.T) {
	for _, cancellable := range []bool{false, true} {
		t.Run(fmt.Sprintf("cancellable %v", cancellable), func(t *testing.T) {
			c := newCloud()
			f := newInflight(20)
			c.onCreate = func(ctx context.Context, name string) error {
				f.enter()
				defer f.leave()
				select {
				case <-f.reached:
					return nil
				case <-time.After(safety):
					return fmt.Errorf("create %s: only %d creates in flight, want 20", name, f.Max())
				}
			}
			env := enginetest.New(t)
			env.Provider("test", "", c.provider())
			ctx := context.Background()
			if cancellable {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				defer cancel()
			}
			if _, err := env.Engine().Up(ctx, twenty); err != nil {
				t.Fatal(err)
			}
			if f.Max() != 20 {
				t.Errorf("at most %d creates in flight, want 20", f.Max())
			}
		})
	}
}

// TestHooksEachHoldAWorker: a resource hook may take long, or wait for
// the program, so the step running it leaves the step walker free to
// start the next step, as a provider call does: twenty before-create
// hooks that each wait until all twenty run finish.
func TestHooksEachHoldAWorker(t *testing.T) {
	f := newInflight(20)
	wait := &engine.Hook{Name: "wait", Run: func(ctx context.Context, a resource.HookArgs) error {
		f.enter()
		defer f.leave()
		select {
		case <-f.reached:
			return nil
		case <-time.After(safety):
			return fmt.Errorf("hook of %s: only %d hooks running, want 20", a.Name, f.Max())
		}
	}}
	env := enginetest.New(t)
	env.Provider("test", "", newCloud().provider())
	_, err := env.Up(func(c *engine.Context) error {
		if err := c.RegisterHook(wait); err != nil {
			return err
		}
		for i := range 20 {
			c.Register(thing, fmt.Sprintf("r%02d", i), engine.Props{"i": i}, engine.ResourceHooks(resource.HookBeforeCreate, wait))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if f.Max() != 20 {
		t.Errorf("at most %d hooks ran at once, want 20", f.Max())
	}
}
