package executor_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-multierror"

	"github.com/groundwork-iac/groundwork/executor"
	"github.com/groundwork-iac/groundwork/resource"
)

// u builds the URN of a test resource named name.
func u(name string) resource.URN {
	return resource.NewURN("dev", "proj", "", "test:index:Thing", name)
}

// testContext is a safety net: a test whose steps wait for something that
// never happens fails when it expires instead of hanging.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// await blocks until ch is closed or ctx expires.
func await(ctx context.Context, ch <-chan struct{}, what string) error {
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("gave up waiting for %s: %w", what, ctx.Err())
	}
}

func mustAwait(t *testing.T, ctx context.Context, ch <-chan struct{}, what string) {
	t.Helper()
	if err := await(ctx, ch, what); err != nil {
		t.Fatal(err)
	}
}

func mustExecute(t *testing.T, e *executor.Executor, ctx context.Context, c executor.Chain) {
	t.Helper()
	if err := e.Execute(ctx, c); err != nil {
		t.Fatalf("Execute: %v", err)
	}
}

// event is one thing that happened to a step, in the order the recorder saw
// it.
type event struct {
	Kind string // "start", "apply", "done", "skip"
	Name string // the step's resource name
	Err  string // the error given to StepDone or StepSkipped, if any
}

// recorder is the test Hooks: it logs every hook call and every Apply (made
// through its steps), and lets a test intervene with the On* fields.
type recorder struct {
	OnStart func(s executor.Step) error
	OnDone  func(s executor.Step, err error) error
	OnSkip  func(s executor.Step, reason error)

	mu      sync.Mutex
	events  []event
	skips   map[string]*executor.SkippedError
	signals map[string]chan struct{} // closed at a step's StepDone or StepSkipped
}

func newRecorder() *recorder {
	return &recorder{
		skips:   map[string]*executor.SkippedError{},
		signals: map[string]chan struct{}{},
	}
}

func (r *recorder) log(kind string, s executor.Step, err error) {
	ev := event{Kind: kind, Name: s.URN().Name()}
	if err != nil {
		ev.Err = err.Error()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
	if kind == "done" || kind == "skip" {
		close(r.signalLocked(ev.Name))
	}
}

func (r *recorder) signalLocked(name string) chan struct{} {
	ch, ok := r.signals[name]
	if !ok {
		ch = make(chan struct{})
		r.signals[name] = ch
	}
	return ch
}

// finished returns a channel closed once the named step has been reported
// done or skipped.
func (r *recorder) finished(name string) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.signalLocked(name)
}

func (r *recorder) StepStarting(ctx context.Context, s executor.Step) error {
	r.log("start", s, nil)
	if r.OnStart != nil {
		return r.OnStart(s)
	}
	return nil
}

func (r *recorder) StepDone(ctx context.Context, s executor.Step, err error) error {
	r.log("done", s, err)
	if r.OnDone != nil {
		return r.OnDone(s, err)
	}
	return nil
}

func (r *recorder) StepSkipped(ctx context.Context, s executor.Step, reason error) {
	var se *executor.SkippedError
	if !errors.As(reason, &se) {
		panic(fmt.Sprintf("skip reason is %T, not *SkippedError", reason))
	}
	r.mu.Lock()
	r.skips[s.URN().Name()] = se
	r.mu.Unlock()
	r.log("skip", s, reason)
	if r.OnSkip != nil {
		r.OnSkip(s, reason)
	}
}

// step returns a step that logs its Apply and then runs apply (nil: succeed).
func (r *recorder) step(name string, apply func(ctx context.Context) error) executor.Step {
	return &testStep{urn: u(name), apply: func(ctx context.Context) error {
		r.mu.Lock()
		r.events = append(r.events, event{Kind: "apply", Name: name})
		r.mu.Unlock()
		if apply == nil {
			return nil
		}
		return apply(ctx)
	}}
}

// chain returns a chain of steps named names that all succeed.
func (r *recorder) chain(names ...string) executor.Chain {
	var c executor.Chain
	for _, n := range names {
		c.Steps = append(c.Steps, r.step(n, nil))
	}
	return c
}

// Events returns a copy of the log.
func (r *recorder) Events() []event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// outcomes sums up each step: "ok", "failed" or "skipped". It fails the
// test if a step was reported more than once.
func (r *recorder) outcomes(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, ev := range r.Events() {
		var o string
		switch {
		case ev.Kind == "skip":
			o = "skipped"
		case ev.Kind == "done" && ev.Err == "":
			o = "ok"
		case ev.Kind == "done":
			o = "failed"
		default:
			continue
		}
		if prev, ok := out[ev.Name]; ok {
			t.Errorf("step %s reported twice: %s, then %s", ev.Name, prev, o)
		}
		out[ev.Name] = o
	}
	return out
}

// Skip returns the reason the named step was skipped, or nil.
func (r *recorder) Skip(name string) *executor.SkippedError {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.skips[name]
}

// testStep is a Step built from a function.
type testStep struct {
	urn   resource.URN
	apply func(ctx context.Context) error
}

func (s *testStep) URN() resource.URN               { return s.urn }
func (s *testStep) Apply(ctx context.Context) error { return s.apply(ctx) }

// failure is a summary of one error in Wait's result.
type failure struct {
	Name  string // the failed step's resource name
	Err   string // the underlying error's message
	Panic string // for a *PanicError: where it panicked
}

// failures breaks Wait's error into a sorted list of summaries, failing the
// test if it is not a *multierror.Error of *StepError values. A cancellation
// entry (anything that is not a *StepError) is summarized with no name.
func failures(t *testing.T, err error) []failure {
	t.Helper()
	if err == nil {
		return nil
	}
	var merr *multierror.Error
	if !errors.As(err, &merr) {
		t.Fatalf("Wait returned %T, want *multierror.Error: %v", err, err)
	}
	var out []failure
	for _, err := range merr.Errors {
		var se *executor.StepError
		if !errors.As(err, &se) {
			out = append(out, failure{Err: err.Error()})
			continue
		}
		f := failure{Name: se.URN.Name(), Err: se.Err.Error()}
		var pe *executor.PanicError
		if errors.As(se.Err, &pe) {
			if pe.URN != se.URN {
				t.Errorf("PanicError names %s inside StepError for %s", pe.URN, se.URN)
			}
			f.Panic, f.Err = pe.Func, fmt.Sprint(pe.Value)
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b failure) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Err, b.Err)
	})
	return out
}
