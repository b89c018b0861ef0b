package executor_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/groundwork-iac/groundwork/executor"
)

// gauge counts steps in flight. Its steps block until the count has
// reached target at least once, so a run that finishes proves that target
// steps were in flight together — without looking at a clock.
type gauge struct {
	target  int
	mu      sync.Mutex
	now     int
	max     int
	reached chan struct{}
}

func newGauge(target int) *gauge {
	return &gauge{target: target, reached: make(chan struct{})}
}

func (g *gauge) hold(ctx context.Context) error {
	g.mu.Lock()
	g.now++
	g.max = max(g.max, g.now)
	if g.now == g.target {
		select {
		case <-g.reached:
		default:
			close(g.reached)
		}
	}
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.now--
		g.mu.Unlock()
	}()
	return await(ctx, g.reached, fmt.Sprintf("%d steps in flight at once", g.target))
}

func (g *gauge) Max() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.max
}

func TestParallelism(t *testing.T) {
	tests := []struct {
		name        string
		parallelism int
		chains      int
		want        int // most steps in flight at once, exactly
	}{
		{name: "unbounded runs every chain at once", parallelism: 0, chains: 20, want: 20},
		{name: "negative means unbounded", parallelism: -1, chains: 20, want: 20},
		{name: "one runs chains one by one", parallelism: 1, chains: 20, want: 1},
		{name: "a bound caps chains in flight", parallelism: 4, chains: 20, want: 4},
		{name: "a bound above the work changes nothing", parallelism: 50, chains: 20, want: 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			g := newGauge(tt.want)
			r := newRecorder()
			e := executor.New(executor.Options{Parallelism: tt.parallelism, Hooks: r})
			for i := range tt.chains {
				// Two steps per chain: the slot is held across both.
				mustExecute(t, e, ctx, executor.Chain{Steps: []executor.Step{
					r.step(fmt.Sprintf("r%d", i), g.hold),
					r.step(fmt.Sprintf("r%d-b", i), g.hold),
				}})
			}
			if err := e.Wait(); err != nil {
				t.Fatalf("Wait: %v", err)
			}
			if got := g.Max(); got != tt.want {
				t.Errorf("at most %d steps were in flight at once, want %d", got, tt.want)
			}
		})
	}
}

func TestChainStepsRunSeriallyInOrder(t *testing.T) {
	for _, parallelism := range []int{0, 1, 3} {
		t.Run(fmt.Sprintf("parallelism %d", parallelism), func(t *testing.T) {
			ctx := testContext(t)
			r := newRecorder()
			e := executor.New(executor.Options{Parallelism: parallelism, Hooks: r})
			const chains, depth = 6, 4
			for c := range chains {
				var names []string
				for s := range depth {
					names = append(names, fmt.Sprintf("c%d-s%d", c, s))
				}
				mustExecute(t, e, ctx, r.chain(names...))
			}
			if err := e.Wait(); err != nil {
				t.Fatalf("Wait: %v", err)
			}
			got := map[int][]event{}
			for _, ev := range r.Events() {
				var c, s int
				fmt.Sscanf(ev.Name, "c%d-s%d", &c, &s)
				got[c] = append(got[c], ev)
			}
			for c := range chains {
				var want []event
				for s := range depth {
					name := fmt.Sprintf("c%d-s%d", c, s)
					want = append(want,
						event{Kind: "start", Name: name},
						event{Kind: "apply", Name: name},
						event{Kind: "done", Name: name})
				}
				if diff := cmp.Diff(want, got[c]); diff != "" {
					t.Errorf("chain %d: events (-want +got):\n%s", c, diff)
				}
			}
		})
	}
}

func TestWaitIdleSequencesAntichains(t *testing.T) {
	for _, parallelism := range []int{0, 2} {
		t.Run(fmt.Sprintf("parallelism %d", parallelism), func(t *testing.T) {
			ctx := testContext(t)
			r := newRecorder()
			e := executor.New(executor.Options{Parallelism: parallelism, Hooks: r})
			antichains := [][]string{{"a1", "a2", "a3"}, {"b1", "b2"}, {"c1", "c2", "c3", "c4"}}
			var want []string
			for _, antichain := range antichains {
				// Hold each antichain's steps until as many as can be
				// are in flight, so WaitIdle really has to wait.
				target := len(antichain)
				if parallelism > 0 {
					target = min(target, parallelism)
				}
				g := newGauge(target)
				for _, name := range antichain {
					mustExecute(t, e, ctx, executor.Chain{Steps: []executor.Step{r.step(name, g.hold)}})
				}
				if err := e.WaitIdle(ctx); err != nil {
					t.Fatalf("WaitIdle: %v", err)
				}
				want = append(want, antichain...)
				var done []string
				for _, ev := range r.Events() {
					if ev.Kind == "done" {
						done = append(done, ev.Name)
					}
				}
				if diff := cmp.Diff(want, done, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
					t.Fatalf("after WaitIdle, steps done (-want +got):\n%s", diff)
				}
			}
			if err := e.Wait(); err != nil {
				t.Fatalf("Wait: %v", err)
			}
			// No step of an antichain started before the previous one
			// was done with.
			var started []byte
			for _, ev := range r.Events() {
				if ev.Kind == "start" {
					started = append(started, ev.Name[0])
				}
			}
			if got, want := string(started), "aaabbcccc"; got != want {
				t.Errorf("antichains started in order %q, want %q", got, want)
			}
		})
	}
}

func TestWaitIdleGivesUpWithContext(t *testing.T) {
	ctx := testContext(t)
	r := newRecorder()
	e := executor.New(executor.Options{Hooks: r})
	release := make(chan struct{})
	mustExecute(t, e, ctx, executor.Chain{Steps: []executor.Step{r.step("slow", func(ctx context.Context) error {
		return await(ctx, release, "release")
	})}})

	errImpatient := errors.New("impatient")
	waitCtx, cancel := context.WithCancelCause(ctx)
	cancel(errImpatient)
	if err := e.WaitIdle(waitCtx); !errors.Is(err, errImpatient) {
		t.Errorf("WaitIdle with a cancelled context = %v, want %v", err, errImpatient)
	}
	close(release)
	if err := e.Wait(); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if err := e.WaitIdle(ctx); err != nil {
		t.Errorf("WaitIdle after Wait = %v, want nil", err)
	}
}

func TestExecuteAfterWait(t *testing.T) {
	ctx := testContext(t)
	r := newRecorder()
	e := executor.New(executor.Options{Hooks: r})
	mustExecute(t, e, ctx, r.chain("first"))
	if err := e.Wait(); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if err := e.Execute(ctx, r.chain("late")); !errors.Is(err, executor.ErrClosed) {
		t.Errorf("Execute after Wait = %v, want ErrClosed", err)
	}
	if err := e.Wait(); err != nil {
		t.Errorf("second Wait = %v, want nil", err)
	}
	if diff := cmp.Diff(map[string]string{"first": "ok"}, r.outcomes(t)); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}

func TestEmptyChainsAndZeroOptions(t *testing.T) {
	ctx := testContext(t)
	var e executor.Executor // the zero value is ready to use
	mustExecute(t, &e, ctx, executor.Chain{})
	ran := false
	mustExecute(t, &e, ctx, executor.Chain{Steps: []executor.Step{&testStep{urn: u("x"), apply: func(context.Context) error {
		ran = true
		return nil
	}}}})
	if err := e.Wait(); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if !ran {
		t.Error("step did not run")
	}
}

func TestConcurrentSubmitters(t *testing.T) {
	for _, parallelism := range []int{0, 4} {
		t.Run(fmt.Sprintf("parallelism %d", parallelism), func(t *testing.T) {
			ctx := testContext(t)
			r := newRecorder()
			e := executor.New(executor.Options{Parallelism: parallelism, Hooks: r})
			const submitters, each = 16, 50
			var wg sync.WaitGroup
			for i := range submitters {
				wg.Go(func() {
					for j := range each {
						if err := e.Execute(ctx, r.chain(fmt.Sprintf("s%d-%d", i, j))); err != nil {
							t.Errorf("Execute: %v", err)
						}
						if j%10 == 0 {
							if err := e.WaitIdle(ctx); err != nil {
								t.Errorf("WaitIdle: %v", err)
							}
						}
					}
				})
			}
			wg.Wait()
			if err := e.Wait(); err != nil {
				t.Fatalf("Wait: %v", err)
			}
			if got := len(r.outcomes(t)); got != submitters*each {
				t.Errorf("%d steps reported, want %d", got, submitters*each)
			}
		})
	}
}

func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, opts := range []executor.Options{
		{},
		{Parallelism: 3},
		{ContinueOnError: true},
		{Parallelism: 2, ContinueOnError: true},
	} {
		ctx := testContext(t)
		r := newRecorder()
		opts.Hooks = r
		e := executor.New(opts)
		boom := errors.New("boom")
		for i := range 50 {
			c := r.chain(fmt.Sprintf("r%d-a", i), fmt.Sprintf("r%d-b", i))
			if i%7 == 3 {
				c.Steps[0] = r.step(fmt.Sprintf("r%d-a", i), func(context.Context) error { return boom })
			}
			c.Needs = append(c.Needs, u(fmt.Sprintf("r%d-a", i-1)))
			mustExecute(t, e, ctx, c)
		}
		if err := e.Wait(); !errors.Is(err, boom) {
			t.Fatalf("Wait = %v, want boom", err)
		}
	}
	// Wait returns once the goroutines have done their last work; give the
	// runtime a moment to retire them.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines before, %d after Wait:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}
