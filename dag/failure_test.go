package dag_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/dag"
)

// TestFailureStopsTheWalk: without ContinueOnError, the first failure lets
// running visits finish, skips everything not yet started, and is the one
// error Wait returns.
func TestFailureStopsTheWalk(t *testing.T) {
	tests := []struct {
		name        string
		parallelism int
		queued      string // outcome of a vertex added before the failure
	}{
		// Unbounded: that vertex is already being visited, so it finishes.
		{name: "unbounded", parallelism: 0, queued: "ok"},
		// Three slots, all taken: that vertex waits in the queue and is
		// never visited.
		{name: "bounded", parallelism: 3, queued: "skipped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			r := newRecorder()
			w := r.walker(dag.Options[task]{Parallelism: tt.parallelism})

			release := make(chan struct{}) // lets the visits in flight finish
			fail := make(chan struct{})    // lets a1 fail
			started := make(chan string, 10)
			inFlight := func(name string) func(ctx context.Context) error {
				return func(ctx context.Context) error {
					started <- name
					if err := await(ctx, release, "release"); err != nil {
						return err
					}
					// The failure elsewhere must not have cancelled us.
					return ctx.Err()
				}
			}
			r.add(t, w, ctx, "b1", inFlight("b1"))
			r.add(t, w, ctx, "b2", nil, "b1")
			r.add(t, w, ctx, "c1", inFlight("c1"))
			r.add(t, w, ctx, "c2", nil, "c1")
			r.add(t, w, ctx, "a1", func(ctx context.Context) error {
				started <- "a1"
				if err := await(ctx, fail, "fail"); err != nil {
					return err
				}
				return errBoom
			})
			for range 3 {
				<-started
			}
			r.add(t, w, ctx, "q1", inFlight("q1"))
			if tt.queued == "ok" {
				<-started // make sure q1 is being visited before a1 fails
			}
			close(fail)
			mustAwait(t, ctx, r.ended("a1"), "a1 ended")

			// Added after the failure: never visited.
			r.chain(t, w, ctx, []string{"d1", "d2"})
			close(release)

			err := w.Wait()
			if diff := cmp.Diff([]failure{{Err: "boom"}}, failures(t, err)); diff != "" {
				t.Errorf("Wait failures (-want +got):\n%s", diff)
			}
			want := map[string]string{
				"a1": "failed",
				"b1": "ok", "b2": "skipped",
				"c1": "ok", "c2": "skipped",
				"d1": "skipped", "d2": "skipped",
				"q1": tt.queued,
			}
			if diff := cmp.Diff(want, r.outcomes(t)); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
			for _, name := range []string{"b2", "c2", "d1"} {
				skip := r.Skip(name)
				if skip == nil || skip.Cause != errBoom || skip.Vertex != name || skip.Dependency != "" {
					t.Errorf("%s skipped with %#v, want its name and the cause boom", name, skip)
				}
			}
			// d2 needs d1, which was skipped first.
			if skip := r.Skip("d2"); skip == nil || skip.Cause != errBoom || skip.Dependency != "d1" {
				t.Errorf("d2 skipped with %#v, want d1 named and the cause boom", skip)
			}
		})
	}
}

// TestContinueOnError: a failure skips, transitively, only the vertices
// that need what failed or was skipped.
func TestContinueOnError(t *testing.T) {
	for _, parallelism := range []int{0, 1, 2} {
		t.Run(fmt.Sprintf("parallelism %d", parallelism), func(t *testing.T) {
			ctx := testContext(t)
			r := newRecorder()
			w := r.walker(dag.Options[task]{Parallelism: parallelism, ContinueOnError: true})
			failing := func(name string) func(context.Context) error {
				return func(context.Context) error { return fmt.Errorf("%s: %w", name, errBoom) }
			}
			r.add(t, w, ctx, "a", failing("a"))
			r.add(t, w, ctx, "d", nil)
			r.add(t, w, ctx, "e", failing("e"))
			r.add(t, w, ctx, "x1", nil)
			r.add(t, w, ctx, "x2", failing("x2"), "x1")
			r.add(t, w, ctx, "x3", nil, "x2")
			r.add(t, w, ctx, "b", nil, "a")
			r.add(t, w, ctx, "y", nil, "x3")
			r.add(t, w, ctx, "z", nil, "d")
			r.chain(t, w, ctx, []string{"w1", "w2"}, "d", "e")
			r.add(t, w, ctx, "c", nil, "z", "b")
			r.add(t, w, ctx, "v", nil, "z", "d")
			err := w.Wait()
			wantFailures := []failure{{Err: "a: boom"}, {Err: "e: boom"}, {Err: "x2: boom"}}
			if diff := cmp.Diff(wantFailures, failures(t, err)); diff != "" {
				t.Errorf("Wait failures (-want +got):\n%s", diff)
			}
			want := map[string]string{
				"a": "failed", "b": "skipped", "c": "skipped",
				"d": "ok", "z": "ok", "v": "ok",
				"e": "failed", "w1": "skipped", "w2": "skipped",
				"x1": "ok", "x2": "failed", "x3": "skipped", "y": "skipped",
			}
			if diff := cmp.Diff(want, r.outcomes(t)); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
			// Each skip names the need that stopped it and the root cause.
			wantSkips := map[string]struct{ dep, root string }{
				"b":  {dep: "a", root: "a: boom"},
				"c":  {dep: "b", root: "a: boom"},
				"x3": {dep: "x2", root: "x2: boom"},
				"y":  {dep: "x3", root: "x2: boom"},
				"w1": {dep: "e", root: "e: boom"},
				"w2": {dep: "w1", root: "e: boom"},
			}
			for name, want := range wantSkips {
				skip := r.Skip(name)
				if skip == nil || skip.Dependency != want.dep || skip.Cause == nil || skip.Cause.Error() != want.root {
					t.Errorf("%s: skipped with %v, want %q named and the root cause %q", name, skip, want.dep, want.root)
				}
			}
		})
	}
}

// TestNeedFailsWhileWaiting: a vertex waiting for a need that then fails
// is skipped; an unrelated one is visited.
func TestNeedFailsWhileWaiting(t *testing.T) {
	ctx := testContext(t)
	r := newRecorder()
	w := r.walker(dag.Options[task]{Parallelism: 1, ContinueOnError: true})
	fail := make(chan struct{})
	r.add(t, w, ctx, "a", func(ctx context.Context) error {
		if err := await(ctx, fail, "fail"); err != nil {
			return err
		}
		return errBoom
	})
	r.add(t, w, ctx, "b", nil, "a")
	r.add(t, w, ctx, "c", nil)
	close(fail)
	if diff := cmp.Diff([]failure{{Err: "boom"}}, failures(t, w.Wait())); diff != "" {
		t.Errorf("Wait failures (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"a": "failed", "b": "skipped", "c": "ok"}, r.outcomes(t)); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}

// TestFailureVisibleFromEnded: a failure is recorded before Ended reports
// it, so a dependent added in response — as the engine does once the
// program hears back — is skipped, and so, without ContinueOnError, is
// anything added then.
func TestFailureVisibleFromEnded(t *testing.T) {
	for _, continueOnError := range []bool{false, true} {
		t.Run(fmt.Sprintf("continue on error %v", continueOnError), func(t *testing.T) {
			ctx := testContext(t)
			r := newRecorder()
			var w *dag.Walker[task]
			r.OnEnded = func(name string, err error) {
				if name != "a" {
					return
				}
				// The dependent, added by "the program" on hearing back.
				if err := w.Add(ctx, r.vertex("b", nil, "a")); err != nil {
					t.Errorf("Add from Ended: %v", err)
				}
				if err := w.Add(ctx, r.vertex("c", nil)); err != nil {
					t.Errorf("Add from Ended: %v", err)
				}
			}
			w = r.walker(dag.Options[task]{ContinueOnError: continueOnError})
			r.add(t, w, ctx, "a", func(context.Context) error { return errBoom })
			mustAwait(t, ctx, r.ended("a"), "a")
			if diff := cmp.Diff([]failure{{Err: "boom"}}, failures(t, w.Wait())); diff != "" {
				t.Errorf("Wait failures (-want +got):\n%s", diff)
			}
			want := map[string]string{"a": "failed", "b": "skipped", "c": "skipped"}
			if continueOnError {
				want["c"] = "ok"
			}
			if diff := cmp.Diff(want, r.outcomes(t)); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEndedBeforeDependents: a vertex's Ended has returned before any
// vertex that needs it is visited.
func TestEndedBeforeDependents(t *testing.T) {
	ctx := testContext(t)
	r := newRecorder()
	w := r.walker(dag.Options[task]{})
	r.chain(t, w, ctx, []string{"a", "b", "c"})
	if err := w.Wait(); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	want := []event{{"visit", "a", ""}, {"done", "a", ""}, {"visit", "b", ""}, {"done", "b", ""}, {"visit", "c", ""}, {"done", "c", ""}}
	if diff := cmp.Diff(want, r.Events()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestPanicsAreFailures(t *testing.T) {
	tests := []struct {
		name      string
		visit     func(context.Context) error // p1's visit
		endedFunc func(name string, err error)
		want      []failure
		visited   bool
	}{{
		name:    "in Visit",
		visit:   func(context.Context) error { panic("kaboom") },
		want:    []failure{{Err: "kaboom", Panic: "p1 in Visit"}},
		visited: true,
	}, {
		name: "in Ended",
		endedFunc: func(name string, err error) {
			if name == "p1" {
				panic("kaboom")
			}
		},
		want:    []failure{{Err: "kaboom", Panic: "p1 in Ended"}},
		visited: true,
	}, {
		name:  "in Ended of a skipped vertex",
		visit: func(context.Context) error { return errBoom },
		endedFunc: func(name string, err error) {
			if name == "p2" {
				panic("kaboom")
			}
		},
		want:    []failure{{Err: "boom"}, {Err: "kaboom", Panic: "p2 in Ended"}},
		visited: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			r := newRecorder()
			r.OnEnded = tt.endedFunc
			w := r.walker(dag.Options[task]{})
			r.add(t, w, ctx, "p1", tt.visit)
			r.add(t, w, ctx, "p2", nil, "p1")
			err := w.Wait()
			if diff := cmp.Diff(tt.want, failures(t, err)); diff != "" {
				t.Errorf("Wait failures (-want +got):\n%s", diff)
			}
			visited := false
			for _, ev := range r.Events() {
				visited = visited || ev.Kind == "visit" && ev.Name == "p1"
			}
			if visited != tt.visited {
				t.Errorf("p1 visited = %v, want %v", visited, tt.visited)
			}
			if got := r.outcomes(t)["p2"]; got != "skipped" {
				t.Errorf("p2 after a panic: %s, want skipped", got)
			}
		})
	}
}

func TestContextCancellation(t *testing.T) {
	errStop := errors.New("operator pressed stop")
	for _, continueOnError := range []bool{false, true} {
		t.Run(fmt.Sprintf("continue on error %v", continueOnError), func(t *testing.T) {
			testCtx := testContext(t)
			ctx, cancel := context.WithCancelCause(testCtx)
			r := newRecorder()
			w := r.walker(dag.Options[task]{Parallelism: 1, ContinueOnError: continueOnError})
			started := make(chan struct{})
			r.add(t, w, ctx, "a1", func(ctx context.Context) error {
				close(started)
				// The visit in flight sees the cancellation.
				if err := await(ctx, make(chan struct{}), "never"); !errors.Is(err, context.Canceled) {
					return fmt.Errorf("a1 saw %v, want context.Canceled", err)
				}
				return nil
			})
			r.add(t, w, ctx, "a2", nil, "a1")
			r.add(t, w, ctx, "b1", nil) // queued behind a1
			mustAwait(t, testCtx, started, "a1 started")
			cancel(errStop)
			r.add(t, w, ctx, "c1", nil) // added after
			// An independent context is unaffected.
			r.add(t, w, testCtx, "d1", nil)

			err := w.Wait()
			if !errors.Is(err, errStop) {
				t.Errorf("Wait = %v, want an error wrapping the cause", err)
			}
			if diff := cmp.Diff([]failure{{Err: "the remaining steps were not started: operator pressed stop"}}, failures(t, err)); diff != "" {
				t.Errorf("Wait failures (-want +got):\n%s", diff)
			}
			want := map[string]string{"a1": "ok", "a2": "skipped", "b1": "skipped", "c1": "skipped", "d1": "ok"}
			if diff := cmp.Diff(want, r.outcomes(t)); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
			for _, name := range []string{"a2", "b1", "c1"} {
				if skip := r.Skip(name); skip == nil || skip.Cause != errStop {
					t.Errorf("%s skipped with %v, want cause %v", name, skip, errStop)
				}
			}
		})
	}
}

func TestWaitIsRepeatable(t *testing.T) {
	ctx := testContext(t)
	r := newRecorder()
	w := r.walker(dag.Options[task]{})
	r.add(t, w, ctx, "a", func(context.Context) error { return fmt.Errorf("a: %w", errBoom) })
	first := w.Wait()
	second := w.Wait()
	if first == nil || second == nil || first.Error() != second.Error() {
		t.Errorf("Wait twice = %v, then %v; want the same error", first, second)
	}
	if got, want := first.Error(), "a: boom"; got != want {
		t.Errorf("a single failure reads %q, want %q", got, want)
	}
}

// TestOnlyVisitIsRequired: a walker with nothing but Visit walks, naming
// vertices by their IDs.
func TestOnlyVisitIsRequired(t *testing.T) {
	ctx := testContext(t)
	var visited []uint64
	w := dag.New(dag.Options[uint64]{Visit: func(_ context.Context, id *uint64) error {
		visited = append(visited, *id)
		if *id == 2 {
			return errBoom
		}
		return nil
	}, Parallelism: 1})
	for id := range uint64(4) {
		v := dag.Vertex[uint64]{ID: id + 1, Value: id + 1}
		if id > 0 {
			v.Needs = []uint64{id}
		}
		if err := w.Add(ctx, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Wait(); !errors.Is(err, errBoom) {
		t.Errorf("Wait = %v, want boom", err)
	}
	if diff := cmp.Diff([]uint64{1, 2}, visited); diff != "" {
		t.Errorf("visited (-want +got):\n%s", diff)
	}
}
