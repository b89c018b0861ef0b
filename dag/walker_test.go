package dag_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/dag"
)

var errBoom = errors.New("boom")

func TestParallelism(t *testing.T) {
	tests := []struct {
		name        string
		parallelism int
		pairs       int
		want        int // most visits in flight at once, exactly
	}{
		{name: "unbounded visits everything ready at once", parallelism: 0, pairs: 20, want: 20},
		{name: "negative means unbounded", parallelism: -1, pairs: 20, want: 20},
		{name: "one visits vertices one by one", parallelism: 1, pairs: 20, want: 1},
		{name: "a bound caps visits in flight", parallelism: 4, pairs: 20, want: 4},
		{name: "a bound above the work changes nothing", parallelism: 50, pairs: 20, want: 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			g := newGauge(tt.want)
			r := newRecorder()
			w := r.walker(dag.Options[task]{Parallelism: tt.parallelism})
			for i := range tt.pairs {
				// Pairs: the second of each waits for the first.
				r.add(t, w, ctx, fmt.Sprintf("r%d", i), g.hold)
				r.add(t, w, ctx, fmt.Sprintf("r%d-b", i), g.hold, fmt.Sprintf("r%d", i))
			}
			if err := w.Wait(); err != nil {
				t.Fatalf("Wait: %v", err)
			}
			if got := g.Max(); got != tt.want {
				t.Errorf("at most %d visits were in flight at once, want %d", got, tt.want)
			}
		})
	}
}

// TestNeedsOrderVisits: a vertex is visited only once what it needs has
// ended, so chains of needs run serially, in order.
func TestNeedsOrderVisits(t *testing.T) {
	for _, parallelism := range []int{0, 1, 3} {
		t.Run(fmt.Sprintf("parallelism %d", parallelism), func(t *testing.T) {
			ctx := testContext(t)
			r := newRecorder()
			w := r.walker(dag.Options[task]{Parallelism: parallelism})
			const chains, depth = 6, 4
			for c := range chains {
				var names []string
				for s := range depth {
					names = append(names, fmt.Sprintf("c%d-s%d", c, s))
				}
				r.chain(t, w, ctx, names)
			}
			if err := w.Wait(); err != nil {
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
					want = append(want, event{Kind: "visit", Name: name}, event{Kind: "done", Name: name})
				}
				if diff := cmp.Diff(want, got[c]); diff != "" {
					t.Errorf("chain %d: events (-want +got):\n%s", c, diff)
				}
			}
		})
	}
}

// TestNeedsWait: a vertex whose need is still being visited waits for it,
// and a diamond's join waits for both sides.
func TestNeedsWait(t *testing.T) {
	ctx := testContext(t)
	r := newRecorder()
	w := r.walker(dag.Options[task]{})
	release := make(chan struct{})
	r.add(t, w, ctx, "top", nil)
	r.add(t, w, ctx, "left", func(ctx context.Context) error { return await(ctx, release, "release") }, "top")
	r.add(t, w, ctx, "right", nil, "top")
	r.add(t, w, ctx, "bottom", nil, "left", "right")
	mustAwait(t, ctx, r.ended("right"), "right")
	for _, ev := range r.Events() {
		if ev.Name == "bottom" {
			t.Fatalf("bottom %s while left was still being visited", ev.Kind)
		}
	}
	close(release)
	if err := w.Wait(); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	var order []string
	for _, ev := range r.Events() {
		if ev.Kind == "done" {
			order = append(order, ev.Name)
		}
	}
	if diff := cmp.Diff([]string{"top", "right", "left", "bottom"}, order); diff != "" {
		t.Errorf("vertices ended (-want +got):\n%s", diff)
	}
}

// TestAddNeverCallsBack: Add visits nothing and reports nothing on its
// caller's goroutine, even for a vertex skipped at once, so that a host may
// call it holding a lock that Visit and Ended take.
func TestAddNeverCallsBack(t *testing.T) {
	ctx := testContext(t)
	var mu sync.Mutex // the host's lock
	r := newRecorder()
	r.OnEnded = func(string, error) {
		mu.Lock()
		defer mu.Unlock()
	}
	w := r.walker(dag.Options[task]{ContinueOnError: true})
	r.add(t, w, ctx, "a", func(context.Context) error { return errBoom })
	mustAwait(t, ctx, r.ended("a"), "a")
	added := make(chan struct{})
	go func() {
		defer close(added)
		mu.Lock()
		defer mu.Unlock()
		r.add(t, w, ctx, "b", nil, "a") // skipped at once: a failed
		r.add(t, w, ctx, "c", nil)
	}()
	mustAwait(t, ctx, added, "Add under the host's lock to return")
	if err := w.Wait(); !errors.Is(err, errBoom) {
		t.Fatalf("Wait = %v, want boom", err)
	}
	if diff := cmp.Diff(map[string]string{"a": "failed", "b": "skipped", "c": "ok"}, r.outcomes(t)); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}

func TestAddErrors(t *testing.T) {
	ctx := testContext(t)
	r := newRecorder()
	w := r.walker(dag.Options[task]{})
	r.add(t, w, ctx, "a", nil)
	if err := w.Add(ctx, r.vertex("a", nil)); err == nil {
		t.Error("a second vertex with a's ID was accepted")
	}
	if err := w.Add(ctx, r.vertex("b", nil, "never-added")); err == nil {
		t.Error("a vertex needing one never added was accepted")
	}
	if err := w.Wait(); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if err := w.Add(ctx, r.vertex("late", nil)); !errors.Is(err, dag.ErrClosed) {
		t.Errorf("Add after Wait = %v, want ErrClosed", err)
	}
	if diff := cmp.Diff(map[string]string{"a": "ok"}, r.outcomes(t)); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}

// TestVertexAddedAfterItsNeedEnded: the graph grows while it is walked; a
// vertex whose needs ended long ago is visited at once.
func TestVertexAddedAfterItsNeedEnded(t *testing.T) {
	ctx := testContext(t)
	r := newRecorder()
	w := r.walker(dag.Options[task]{})
	r.add(t, w, ctx, "a", nil)
	mustAwait(t, ctx, r.ended("a"), "a")
	r.add(t, w, ctx, "b", nil, "a")
	mustAwait(t, ctx, r.ended("b"), "b")
	if err := w.Wait(); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if diff := cmp.Diff(map[string]string{"a": "ok", "b": "ok"}, r.outcomes(t)); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}

func TestConcurrentAdders(t *testing.T) {
	for _, parallelism := range []int{0, 4} {
		t.Run(fmt.Sprintf("parallelism %d", parallelism), func(t *testing.T) {
			ctx := testContext(t)
			r := newRecorder()
			w := r.walker(dag.Options[task]{Parallelism: parallelism})
			const adders, each = 16, 50
			var wg sync.WaitGroup
			for i := range adders {
				wg.Go(func() {
					prev := ""
					for j := range each {
						name := fmt.Sprintf("s%d-%d", i, j)
						var needs []string
						if prev != "" && j%3 != 0 {
							needs = []string{prev}
						}
						if err := w.Add(ctx, r.vertex(name, nil, needs...)); err != nil {
							t.Errorf("Add: %v", err)
						}
						prev = name
					}
				})
			}
			wg.Wait()
			if err := w.Wait(); err != nil {
				t.Fatalf("Wait: %v", err)
			}
			if got := len(r.outcomes(t)); got != adders*each {
				t.Errorf("%d vertices ended, want %d", got, adders*each)
			}
		})
	}
}

func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, opts := range []dag.Options[task]{
		{},
		{Parallelism: 3},
		{ContinueOnError: true},
		{Parallelism: 2, ContinueOnError: true},
	} {
		ctx := testContext(t)
		r := newRecorder()
		w := r.walker(opts)
		for i := range 50 {
			var run func(context.Context) error
			if i%7 == 3 {
				run = func(context.Context) error { return errBoom }
			}
			var needs []string
			if i > 0 {
				needs = []string{fmt.Sprintf("r%d-a", i-1)}
			}
			r.add(t, w, ctx, fmt.Sprintf("r%d-a", i), run, needs...)
			r.add(t, w, ctx, fmt.Sprintf("r%d-b", i), nil, fmt.Sprintf("r%d-a", i))
		}
		if err := w.Wait(); !errors.Is(err, errBoom) {
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
