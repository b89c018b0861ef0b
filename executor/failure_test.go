package executor_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/executor"
	"github.com/groundwork-iac/groundwork/resource"
)

var errBoom = errors.New("boom")

// TestFailureCancelsDeployment: without ContinueOnError, the first failure
// lets running steps finish, skips everything not yet started, and is the
// one error Wait returns.
func TestFailureCancelsDeployment(t *testing.T) {
	tests := []struct {
		name        string
		parallelism int
		queued      string // outcome of a chain submitted before the failure
	}{
		// Unbounded: that chain is already running, so it finishes.
		{name: "unbounded", parallelism: 0, queued: "ok"},
		// Three slots, all taken: that chain waits in the queue and never runs.
		{name: "bounded", parallelism: 3, queued: "skipped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			r := newRecorder()
			e := executor.New(executor.Options{Parallelism: tt.parallelism, Hooks: r})

			release := make(chan struct{}) // lets the in-flight steps finish
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
			mustExecute(t, e, ctx, executor.Chain{Steps: []executor.Step{r.step("b1", inFlight("b1")), r.step("b2", nil)}})
			mustExecute(t, e, ctx, executor.Chain{Steps: []executor.Step{r.step("c1", inFlight("c1")), r.step("c2", nil)}})
			mustExecute(t, e, ctx, executor.Chain{Steps: []executor.Step{r.step("a1", func(ctx context.Context) error {
				started <- "a1"
				if err := await(ctx, fail, "fail"); err != nil {
					return err
				}
				return errBoom
			})}})
			for range 3 {
				<-started
			}
			mustExecute(t, e, ctx, executor.Chain{Steps: []executor.Step{r.step("q1", inFlight("q1"))}})
			if tt.queued == "ok" {
				<-started // make sure q1 is running before a1 fails
			}
			close(fail)
			mustAwait(t, ctx, r.finished("a1"), "a1 done")

			// Submitted after the failure: never runs.
			mustExecute(t, e, ctx, r.chain("d1", "d2"))
			close(release)

			err := e.Wait()
			if diff := cmp.Diff([]failure{{Name: "a1", Err: "boom"}}, failures(t, err)); diff != "" {
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
			for _, name := range []string{"b2", "c2", "d1", "d2"} {
				skip := r.Skip(name)
				if !errors.Is(skip, errBoom) || skip.URN != u(name) || skip.Dependency != "" {
					t.Errorf("%s skipped with %#v, want its URN and a cause wrapping boom", name, skip)
				}
			}
		})
	}
}

// TestContinueOnError: a failure skips only the rest of its chain and,
// transitively, the chains that need what failed or was skipped.
func TestContinueOnError(t *testing.T) {
	for _, parallelism := range []int{0, 1, 2} {
		t.Run(fmt.Sprintf("parallelism %d", parallelism), func(t *testing.T) {
			ctx := testContext(t)
			r := newRecorder()
			e := executor.New(executor.Options{Parallelism: parallelism, ContinueOnError: true, Hooks: r})
			failing := func(name string) executor.Step {
				return r.step(name, func(context.Context) error { return fmt.Errorf("%s: %w", name, errBoom) })
			}
			needing := func(c executor.Chain, needs ...string) executor.Chain {
				for _, n := range needs {
					c.Needs = append(c.Needs, u(n))
				}
				return c
			}
			// Like the engine, submit a chain only once what it needs has
			// finished.
			waves := [][]executor.Chain{
				{
					{Steps: []executor.Step{failing("a")}},
					r.chain("d"),
					{Steps: []executor.Step{failing("e")}},
					{Steps: []executor.Step{r.step("x1", nil), failing("x2"), r.step("x3", nil)}},
				},
				{
					needing(r.chain("b"), "a"),
					needing(r.chain("y"), "x3"),
					needing(r.chain("z"), "d"),
					needing(r.chain("w1", "w2"), "d", "e"),
				},
				{
					needing(r.chain("c"), "z", "b"),
					needing(r.chain("v"), "z", "d"),
				},
			}
			for _, wave := range waves {
				for _, c := range wave {
					mustExecute(t, e, ctx, c)
				}
				if err := e.WaitIdle(ctx); err != nil {
					t.Fatalf("WaitIdle: %v", err)
				}
			}
			err := e.Wait()
			wantFailures := []failure{
				{Name: "a", Err: "a: boom"},
				{Name: "e", Err: "e: boom"},
				{Name: "x2", Err: "x2: boom"},
			}
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
			wantSkips := map[string]struct {
				dep, root string
			}{
				"b":  {dep: "a", root: "a"},
				"c":  {dep: "b", root: "a"},
				"x3": {dep: "", root: "x2"},
				"y":  {dep: "x3", root: "x2"},
				"w1": {dep: "e", root: "e"},
				"w2": {dep: "e", root: "e"},
			}
			for name, want := range wantSkips {
				skip := r.Skip(name)
				var root *executor.StepError
				if skip == nil || !errors.As(skip.Cause, &root) {
					t.Errorf("%s: skip reason %v has no *StepError cause", name, skip)
					continue
				}
				wantDep := resource.URN("")
				if want.dep != "" {
					wantDep = u(want.dep)
				}
				if skip.Dependency != wantDep || root.URN != u(want.root) {
					t.Errorf("%s: skipped because of %q rooted at %s, want %q rooted at %s",
						name, skip.Dependency, root.URN, wantDep, u(want.root))
				}
			}
		})
	}
}

// TestNeedFailsWhileQueued: a chain whose need is still running when it is
// submitted is skipped if it has not started by the time the need fails.
func TestNeedFailsWhileQueued(t *testing.T) {
	ctx := testContext(t)
	r := newRecorder()
	e := executor.New(executor.Options{Parallelism: 1, ContinueOnError: true, Hooks: r})
	fail := make(chan struct{})
	mustExecute(t, e, ctx, executor.Chain{Steps: []executor.Step{r.step("a", func(ctx context.Context) error {
		if err := await(ctx, fail, "fail"); err != nil {
			return err
		}
		return errBoom
	})}})
	mustExecute(t, e, ctx, executor.Chain{Steps: []executor.Step{r.step("b", nil)}, Needs: []resource.URN{u("a")}})
	mustExecute(t, e, ctx, r.chain("c"))
	close(fail)
	if diff := cmp.Diff([]failure{{Name: "a", Err: "boom"}}, failures(t, e.Wait())); diff != "" {
		t.Errorf("Wait failures (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"a": "failed", "b": "skipped", "c": "ok"}, r.outcomes(t)); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}

// TestFailureVisibleFromStepDone: a failure is recorded before StepDone
// reports it, so a dependent submitted in response — as the engine does
// once the program hears back — is skipped.
func TestFailureVisibleFromStepDone(t *testing.T) {
	ctx := testContext(t)
	r := newRecorder()
	e := executor.New(executor.Options{ContinueOnError: true, Hooks: r})
	submitted := make(chan struct{})
	r.OnDone = func(s executor.Step, err error) error {
		if s.URN().Name() == "a" {
			defer close(submitted)
			// The dependent, submitted by "the program" on hearing back.
			c := r.chain("b")
			c.Needs = []resource.URN{u("a")}
			if err := e.Execute(ctx, c); err != nil {
				t.Errorf("Execute from StepDone: %v", err)
			}
			// Keep StepDone open until b has been dealt with: the failure
			// must already be on record.
			return await(ctx, r.finished("b"), "b finished")
		}
		return nil
	}
	mustExecute(t, e, ctx, executor.Chain{Steps: []executor.Step{r.step("a", func(context.Context) error { return errBoom })}})
	mustAwait(t, ctx, submitted, "b submitted")
	if diff := cmp.Diff([]failure{{Name: "a", Err: "boom"}}, failures(t, e.Wait())); diff != "" {
		t.Errorf("Wait failures (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"a": "failed", "b": "skipped"}, r.outcomes(t)); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}

// TestNeedsDoNotWait documents that Needs is a check, not a wait: a chain
// that starts while its need is still running is not held back.
func TestNeedsDoNotWait(t *testing.T) {
	ctx := testContext(t)
	r := newRecorder()
	e := executor.New(executor.Options{ContinueOnError: true, Hooks: r})
	mustExecute(t, e, ctx, executor.Chain{Steps: []executor.Step{r.step("a", func(ctx context.Context) error {
		if err := await(ctx, r.finished("b"), "b"); err != nil {
			return err
		}
		return errBoom
	})}})
	mustExecute(t, e, ctx, executor.Chain{Steps: []executor.Step{r.step("b", nil)}, Needs: []resource.URN{u("a")}})
	if diff := cmp.Diff([]failure{{Name: "a", Err: "boom"}}, failures(t, e.Wait())); diff != "" {
		t.Errorf("Wait failures (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"a": "failed", "b": "ok"}, r.outcomes(t)); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}

func TestHookErrors(t *testing.T) {
	errJournal := errors.New("journal full")
	tests := []struct {
		name    string
		hooks   func(r *recorder)
		want    []event
		wantErr []failure
	}{{
		name: "StepStarting error prevents Apply and reaches StepDone",
		hooks: func(r *recorder) {
			r.OnStart = func(s executor.Step) error {
				if s.URN().Name() == "a1" {
					return errJournal
				}
				return nil
			}
		},
		want: []event{
			{Kind: "start", Name: "a1"},
			{Kind: "done", Name: "a1", Err: "journal full"},
			{Kind: "skip", Name: "a2", Err: u("a2").String() + " skipped: " + u("a1").String() + ": journal full"},
		},
		wantErr: []failure{{Name: "a1", Err: "journal full"}},
	}, {
		name: "StepDone error fails the step",
		hooks: func(r *recorder) {
			r.OnDone = func(s executor.Step, err error) error {
				if s.URN().Name() == "a1" {
					return errJournal
				}
				return nil
			}
		},
		want: []event{
			{Kind: "start", Name: "a1"},
			{Kind: "apply", Name: "a1"},
			{Kind: "done", Name: "a1"},
			{Kind: "skip", Name: "a2", Err: u("a2").String() + " skipped: " + u("a1").String() + ": journal full"},
		},
		wantErr: []failure{{Name: "a1", Err: "journal full"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			r := newRecorder()
			tt.hooks(r)
			e := executor.New(executor.Options{Hooks: r})
			mustExecute(t, e, ctx, r.chain("a1", "a2"))
			err := e.Wait()
			if diff := cmp.Diff(tt.wantErr, failures(t, err)); diff != "" {
				t.Errorf("Wait failures (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, r.Events()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPanicsAreStepFailures(t *testing.T) {
	panicIf := func(s executor.Step, name string) {
		if s.URN().Name() == name {
			panic("kaboom")
		}
	}
	tests := []struct {
		name    string
		hooks   func(r *recorder)
		apply   func(context.Context) error // p1's Apply
		want    []failure
		applied bool // whether p1's Apply ran
	}{{
		name:    "in Apply",
		apply:   func(context.Context) error { panic("kaboom") },
		want:    []failure{{Name: "p1", Err: "kaboom", Panic: "Apply"}},
		applied: true,
	}, {
		name: "in StepStarting",
		hooks: func(r *recorder) {
			r.OnStart = func(s executor.Step) error { panicIf(s, "p1"); return nil }
		},
		want: []failure{{Name: "p1", Err: "kaboom", Panic: "StepStarting"}},
	}, {
		name: "in StepDone",
		hooks: func(r *recorder) {
			r.OnDone = func(s executor.Step, err error) error { panicIf(s, "p1"); return nil }
		},
		want:    []failure{{Name: "p1", Err: "kaboom", Panic: "StepDone"}},
		applied: true,
	}, {
		name: "in StepSkipped",
		hooks: func(r *recorder) {
			r.OnSkip = func(s executor.Step, reason error) { panicIf(s, "p2") }
		},
		apply:   func(context.Context) error { return errBoom },
		want:    []failure{{Name: "p1", Err: "boom"}, {Name: "p2", Err: "kaboom", Panic: "StepSkipped"}},
		applied: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			r := newRecorder()
			if tt.hooks != nil {
				tt.hooks(r)
			}
			e := executor.New(executor.Options{Hooks: r})
			mustExecute(t, e, ctx, executor.Chain{Steps: []executor.Step{r.step("p1", tt.apply), r.step("p2", nil)}})
			err := e.Wait()
			if diff := cmp.Diff(tt.want, failures(t, err)); diff != "" {
				t.Errorf("Wait failures (-want +got):\n%s", diff)
			}
			applied := false
			for _, ev := range r.Events() {
				applied = applied || ev.Kind == "apply" && ev.Name == "p1"
			}
			if applied != tt.applied {
				t.Errorf("p1 applied = %v, want %v", applied, tt.applied)
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
			e := executor.New(executor.Options{Parallelism: 1, ContinueOnError: continueOnError, Hooks: r})
			started := make(chan struct{})
			mustExecute(t, e, ctx, executor.Chain{Steps: []executor.Step{
				r.step("a1", func(ctx context.Context) error {
					close(started)
					// The in-flight step sees the cancellation.
					if err := await(ctx, make(chan struct{}), "never"); !errors.Is(err, context.Canceled) {
						return fmt.Errorf("a1 saw %v, want context.Canceled", err)
					}
					return nil
				}),
				r.step("a2", nil),
			}})
			mustExecute(t, e, ctx, r.chain("b1")) // queued behind a
			mustAwait(t, testCtx, started, "a1 started")
			cancel(errStop)
			mustExecute(t, e, ctx, r.chain("c1")) // submitted after
			// An independent context is unaffected.
			mustExecute(t, e, testCtx, r.chain("d1"))

			err := e.Wait()
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
	e := executor.New(executor.Options{Hooks: r})
	mustExecute(t, e, ctx, executor.Chain{Steps: []executor.Step{r.step("a", func(context.Context) error { return errBoom })}})
	first := e.Wait()
	second := e.Wait()
	if first == nil || second == nil || first.Error() != second.Error() {
		t.Errorf("Wait twice = %v, then %v; want the same error", first, second)
	}
	if got, want := first.Error(), u("a").String()+": boom"; got != want {
		t.Errorf("a single failure reads %q, want %q", got, want)
	}
}
