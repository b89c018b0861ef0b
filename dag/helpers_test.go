package dag_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/dag"
)

// testContext is a safety net: a test whose vertices wait for something
// that never happens fails when it expires instead of hanging.
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

// task is a test vertex's value: a name and what its visit does (nil:
// succeed).
type task struct {
	name string
	run  func(ctx context.Context) error
}

// event is one thing that happened to a vertex, in the order the recorder
// saw it.
type event struct {
	Kind string // "visit", "done", "skip"
	Name string
	Err  string // the error Ended was given, if any
}

// recorder builds a walker and logs every visit and every Ended. OnEnded,
// when set, runs at the end of Ended.
type recorder struct {
	OnEnded func(name string, err error)

	mu      sync.Mutex
	ids     map[string]uint64
	events  []event
	skips   map[string]*dag.SkippedError
	signals map[string]chan struct{} // closed at a vertex's Ended
}

func newRecorder() *recorder {
	return &recorder{ids: map[string]uint64{}, skips: map[string]*dag.SkippedError{}, signals: map[string]chan struct{}{}}
}

// walker returns a walker with opts whose Visit, Ended and Name are the
// recorder's.
func (r *recorder) walker(opts dag.Options[task]) *dag.Walker[task] {
	opts.Visit = func(ctx context.Context, t *task) error {
		r.log(event{Kind: "visit", Name: t.name})
		if t.run == nil {
			return nil
		}
		return t.run(ctx)
	}
	opts.Ended = func(t *task, err error) {
		ev := event{Kind: "done", Name: t.name}
		var skip *dag.SkippedError
		if errors.As(err, &skip) {
			ev.Kind = "skip"
			r.mu.Lock()
			r.skips[t.name] = skip
			r.mu.Unlock()
		}
		if err != nil {
			ev.Err = err.Error()
		}
		r.log(ev)
		if r.OnEnded != nil {
			r.OnEnded(t.name, err)
		}
		r.mu.Lock()
		close(r.signalLocked(t.name))
		r.mu.Unlock()
	}
	opts.Name = func(t *task) string { return t.name }
	return dag.New(opts)
}

func (r *recorder) log(ev event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

func (r *recorder) signalLocked(name string) chan struct{} {
	ch, ok := r.signals[name]
	if !ok {
		ch = make(chan struct{})
		r.signals[name] = ch
	}
	return ch
}

// ended returns a channel closed once the named vertex's Ended has run.
func (r *recorder) ended(name string) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.signalLocked(name)
}

// id returns the ID of the named vertex, giving it one on first use.
func (r *recorder) id(name string) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	id, ok := r.ids[name]
	if !ok {
		id = uint64(len(r.ids) + 1)
		r.ids[name] = id
	}
	return id
}

// vertex builds the named vertex, needing the vertices named needs.
func (r *recorder) vertex(name string, run func(context.Context) error, needs ...string) dag.Vertex[task] {
	v := dag.Vertex[task]{ID: r.id(name), Value: task{name: name, run: run}}
	for _, n := range needs {
		v.Needs = append(v.Needs, r.id(n))
	}
	return v
}

// add adds the named vertex, failing the test if Add refuses it.
func (r *recorder) add(t *testing.T, w *dag.Walker[task], ctx context.Context, name string, run func(context.Context) error, needs ...string) {
	t.Helper()
	if err := w.Add(ctx, r.vertex(name, run, needs...)); err != nil {
		t.Fatalf("Add %s: %v", name, err)
	}
}

// chain adds vertices named names, each needing the one before it (the
// first needing needs).
func (r *recorder) chain(t *testing.T, w *dag.Walker[task], ctx context.Context, names []string, needs ...string) {
	t.Helper()
	for _, n := range names {
		r.add(t, w, ctx, n, nil, needs...)
		needs = []string{n}
	}
}

// Events returns a copy of the log.
func (r *recorder) Events() []event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// outcomes sums up each vertex: "ok", "failed" or "skipped". It fails the
// test if a vertex ended more than once.
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
			t.Errorf("vertex %s ended twice: %s, then %s", ev.Name, prev, o)
		}
		out[ev.Name] = o
	}
	return out
}

// Skip returns the reason the named vertex was skipped, or nil.
func (r *recorder) Skip(name string) *dag.SkippedError {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.skips[name]
}

// failure is a summary of one error in Wait's result.
type failure struct {
	Err   string // the error's message (a panic's value)
	Panic string // for a *PanicError: the vertex and where it panicked
}

// failures breaks Wait's error into a sorted list of summaries, failing the
// test if it is not an dag.Failures.
func failures(t *testing.T, err error) []failure {
	t.Helper()
	if err == nil {
		return nil
	}
	var fs *dag.Failures
	if !errors.As(err, &fs) {
		t.Fatalf("Wait returned %T, want *dag.Failures: %v", err, err)
	}
	var out []failure
	for _, err := range fs.Errors {
		f := failure{Err: err.Error()}
		var pe *dag.PanicError
		if errors.As(err, &pe) {
			f = failure{Err: fmt.Sprint(pe.Value), Panic: pe.Vertex + " in " + pe.Func}
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b failure) int { return strings.Compare(a.Err, b.Err) })
	return out
}

// gauge counts visits in flight. Its visits block until the count has
// reached target at least once, so a walk that finishes proves that target
// visits were in flight together — without looking at a clock.
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
	return await(ctx, g.reached, fmt.Sprintf("%d visits in flight at once", g.target))
}

func (g *gauge) Max() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.max
}
