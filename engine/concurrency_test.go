package engine_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
)

// inflight counts calls in progress and remembers the most seen at once.
type inflight struct {
	mu       sync.Mutex
	now, max int
	reached  chan struct{}
	target   int
}

func newInflight(target int) *inflight {
	return &inflight{reached: make(chan struct{}), target: target}
}

func (f *inflight) enter() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now++
	if f.now > f.max {
		f.max = f.now
	}
	if f.now == f.target {
		close(f.reached)
	}
}

func (f *inflight) leave() {
	f.mu.Lock()
	f.now--
	f.mu.Unlock()
}

func (f *inflight) Max() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.max
}

// safety bounds how long a test waits for concurrency it expects; reaching
// it fails the test (it is a deadlock guard, not a timing assertion).
const safety = 30 * time.Second

func twenty(ctx *engine.Context) error {
	for i := 0; i < 20; i++ {
		ctx.Register(thing, fmt.Sprintf("r%02d", i), engine.Props{"i": i})
	}
	return nil
}

func TestUnboundedParallelismRunsAllCreatesAtOnce(t *testing.T) {
	c := newCloud()
	f := newInflight(20)
	c.onCreate = func(ctx context.Context, name string) error {
		f.enter()
		defer f.leave()
		// Every create waits until all twenty are in flight: this only
		// finishes if the engine runs them all at once.
		select {
		case <-f.reached:
			return nil
		case <-time.After(safety):
			return fmt.Errorf("create %s: only %d creates in flight, want 20", name, f.Max())
		}
	}
	env := enginetest.New(t)
	env.Provider("test", "", c.provider())
	if _, err := env.Up(twenty); err != nil {
		t.Fatal(err)
	}
	if f.Max() != 20 {
		t.Errorf("max in flight = %d, want 20", f.Max())
	}
}

func TestParallelismOneRunsOneAtATime(t *testing.T) {
	c := newCloud()
	f := newInflight(-1)
	c.onCreate = func(ctx context.Context, name string) error {
		f.enter()
		defer f.leave()
		return nil
	}
	env := enginetest.New(t)
	env.Provider("test", "", c.provider())
	if _, err := env.Up(twenty, engine.Parallelism(1)); err != nil {
		t.Fatal(err)
	}
	if f.Max() != 1 {
		t.Errorf("max in flight = %d, want 1", f.Max())
	}
	if c.count("create") != 20 {
		t.Errorf("creates = %d, want 20", c.count("create"))
	}
}

func TestDiffCallsOverlapAcrossResources(t *testing.T) {
	c := newCloud()
	env := enginetest.New(t)
	env.Provider("test", "", c.provider())
	two := func(ctx *engine.Context) error {
		ctx.Register(thing, "a", engine.Props{"size": 1})
		ctx.Register(thing, "b", engine.Props{"size": 2})
		return nil
	}
	if _, err := env.Up(two); err != nil {
		t.Fatal(err)
	}
	f := newInflight(2)
	c.onDiff = func(ctx context.Context, _ providers.DiffRequest) error {
		f.enter()
		defer f.leave()
		// A Diff returns only once both are in flight: a generator that
		// waited on one provider call before making the next would hang.
		select {
		case <-f.reached:
			return nil
		case <-time.After(safety):
			return fmt.Errorf("diff calls did not overlap")
		}
	}
	if _, err := env.Up(two); err != nil {
		t.Fatal(err)
	}
	if f.Max() != 2 {
		t.Errorf("max diffs in flight = %d, want 2", f.Max())
	}
}

// Registrations waiting for a dependency hold no goroutine: they are called
// back when it finishes. While the dependency's create is held, 500
// registrations that need its output add (almost) no goroutines.
func TestWaitingRegistrationsHoldNoGoroutine(t *testing.T) {
	const waiting = 500
	c := newCloud()
	held, release := make(chan struct{}), make(chan struct{})
	c.onCreate = func(ctx context.Context, name string) error {
		if name != "base" {
			return nil
		}
		close(held)
		select {
		case <-release:
			return nil
		case <-time.After(safety):
			return fmt.Errorf("create %s was never released", name)
		}
	}
	env := enginetest.New(t)
	env.Provider("test", "", c.provider())
	var before, during int
	res, err := env.Up(func(ctx *engine.Context) error {
		base := ctx.Register(thing, "base", engine.Props{"i": 0})
		select {
		case <-held:
		case <-time.After(safety):
			return fmt.Errorf("the create of base never started")
		}
		before = runtime.NumGoroutine()
		for i := range waiting {
			ctx.Register(thing, fmt.Sprintf("r%03d", i), engine.Props{"i": base.Output("i")})
		}
		during = runtime.NumGoroutine()
		close(release)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The stack, base and the waiting ones (the default provider is not
	// counted).
	if got := res.Counts["create"]; got != waiting+2 {
		t.Errorf("%d creates, want %d", got, waiting+2)
	}
	if grew := during - before; grew > waiting/10 {
		t.Errorf("%d registrations waiting for a dependency added %d goroutines", waiting, grew)
	}
}
