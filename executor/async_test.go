package executor_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/executor"
)

// asyncRecorder is a recorder whose hooks start steps asynchronously: each
// StepStartingAsync is logged as "start" and finishes when the test
// releases it (release), from a goroutine of its own, with the error
// startErr gives (nil: none). A step whose name is in atOnce finishes at
// once instead.
type asyncRecorder struct {
	*recorder
	atOnce   map[string]bool
	startErr func(name string) error
	panics   map[string]bool

	mu      sync.Mutex
	resumes map[string]func(error)
	waiting chan string // receives each name whose start waits for release
	wg      sync.WaitGroup
}

func newAsyncRecorder() *asyncRecorder {
	return &asyncRecorder{
		recorder: newRecorder(),
		atOnce:   map[string]bool{},
		panics:   map[string]bool{},
		resumes:  map[string]func(error){},
		waiting:  make(chan string, 100),
		startErr: func(string) error { return nil },
	}
}

func (a *asyncRecorder) StepStartingAsync(ctx context.Context, s executor.Step, resume func(error)) (bool, error) {
	name := s.URN().Name()
	a.log("start", s, nil)
	if a.panics[name] {
		panic("start of " + name)
	}
	if a.atOnce[name] {
		return true, a.startErr(name)
	}
	a.mu.Lock()
	a.resumes[name] = resume
	a.mu.Unlock()
	a.waiting <- name
	return false, nil
}

// release finishes the start of the named step from another goroutine.
func (a *asyncRecorder) release(name string) {
	a.mu.Lock()
	resume := a.resumes[name]
	delete(a.resumes, name)
	a.mu.Unlock()
	a.wg.Go(func() { resume(a.startErr(name)) })
}

func TestAsyncStart(t *testing.T) {
	boom := errors.New("journal refused it")
	tests := []struct {
		name     string
		chain    []string
		atOnce   []string
		fail     string // the step whose start fails
		panics   string // the step whose StepStartingAsync panics
		release  bool   // the first step waits to be released
		want     []event
		failures []failure
	}{
		{
			name: "a start that finishes later is applied only then", chain: []string{"a"}, release: true,
			want: []event{{"start", "a", ""}, {"apply", "a", ""}, {"done", "a", ""}},
		},
		{
			name: "a start that finishes at once", chain: []string{"a"}, atOnce: []string{"a"},
			want: []event{{"start", "a", ""}, {"apply", "a", ""}, {"done", "a", ""}},
		},
		{
			name: "a start that fails later fails the step without Apply", chain: []string{"a", "b"}, release: true, fail: "a",
			want:     []event{{"start", "a", ""}, {"done", "a", boom.Error()}, {"skip", "b", u("b").String() + " skipped: " + u("a").String() + ": " + boom.Error()}},
			failures: []failure{{Name: "a", Err: boom.Error()}},
		},
		{
			name: "a start that fails at once", chain: []string{"a"}, atOnce: []string{"a"}, fail: "a",
			want:     []event{{"start", "a", ""}, {"done", "a", boom.Error()}},
			failures: []failure{{Name: "a", Err: boom.Error()}},
		},
		{
			name: "a panic in the start is the step's failure", chain: []string{"a"}, panics: "a",
			want:     []event{{"start", "a", ""}, {"done", "a", u("a").String() + ": panic in StepStarting: start of a"}},
			failures: []failure{{Name: "a", Err: "start of a", Panic: "StepStarting"}},
		},
		{
			name: "later steps of the chain start with StepStarting", chain: []string{"a", "b"}, release: true,
			want: []event{{"start", "a", ""}, {"apply", "a", ""}, {"done", "a", ""}, {"start", "b", ""}, {"apply", "b", ""}, {"done", "b", ""}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			a := newAsyncRecorder()
			for _, n := range tt.atOnce {
				a.atOnce[n] = true
			}
			if tt.panics != "" {
				a.panics[tt.panics] = true
			}
			a.startErr = func(name string) error {
				if name == tt.fail {
					return boom
				}
				return nil
			}
			e := executor.New(executor.Options{Hooks: a})
			mustExecute(t, e, ctx, a.chain(tt.chain...))
			if tt.release {
				if got := <-a.waiting; got != tt.chain[0] {
					t.Fatalf("step %s waits to start; want %s", got, tt.chain[0])
				}
				// Nothing may be applied before the start finishes.
				if diff := cmp.Diff([]event{{"start", tt.chain[0], ""}}, a.Events()); diff != "" {
					t.Fatalf("before the start finished (-want +got):\n%s", diff)
				}
				a.release(tt.chain[0])
			}
			err := e.Wait()
			a.wg.Wait()
			if diff := cmp.Diff(tt.want, a.Events()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.failures, failures(t, err)); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
		})
	}
}

// Wait and WaitIdle wait for a chain whose first step's start has not
// finished: it holds no goroutine, but it is not done.
func TestAsyncStartIsWaitedFor(t *testing.T) {
	ctx := testContext(t)
	a := newAsyncRecorder()
	e := executor.New(executor.Options{Hooks: a})
	mustExecute(t, e, ctx, a.chain("a"))
	<-a.waiting
	idle := make(chan error, 1)
	go func() { idle <- e.WaitIdle(ctx) }()
	waited := make(chan error, 1)
	go func() { waited <- e.Wait() }()
	select {
	case <-idle:
		t.Fatal("WaitIdle returned while a chain's start had not finished")
	case <-waited:
		t.Fatal("Wait returned while a chain's start had not finished")
	default:
	}
	a.release("a")
	if err := <-idle; err != nil {
		t.Fatalf("WaitIdle: %v", err)
	}
	if err := <-waited; err != nil {
		t.Fatalf("Wait: %v", err)
	}
	a.wg.Wait()
	if got := a.outcomes(t); got["a"] != "ok" {
		t.Errorf("outcomes = %v; want a ok", got)
	}
}

// A chain waiting for its start holds its slot: the bound counts it.
func TestAsyncStartHoldsItsSlot(t *testing.T) {
	ctx := testContext(t)
	a := newAsyncRecorder()
	e := executor.New(executor.Options{Hooks: a, Parallelism: 2})
	for i := range 6 {
		mustExecute(t, e, ctx, a.chain(fmt.Sprintf("r%d", i)))
	}
	started := map[string]bool{}
	for len(started) < 6 {
		name := <-a.waiting
		started[name] = true
		a.mu.Lock()
		waiting := len(a.resumes)
		a.mu.Unlock()
		if waiting > 2 {
			t.Fatalf("%d chains wait for their start at once; the bound is 2", waiting)
		}
		a.release(name)
	}
	if err := e.Wait(); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	a.wg.Wait()
	for i := range 6 {
		if got := a.outcomes(t)[fmt.Sprintf("r%d", i)]; got != "ok" {
			t.Errorf("r%d: %s, want ok", i, got)
		}
	}
}
