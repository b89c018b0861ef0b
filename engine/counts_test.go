package engine_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/groundwork-iac/groundwork/display"
	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// summaryOf returns the SummaryEvent of the Env's last operation.
func summaryOf(t *testing.T, env *enginetest.Env) engine.SummaryEvent {
	t.Helper()
	for _, e := range env.Events() {
		if s, ok := e.(engine.SummaryEvent); ok {
			return s
		}
	}
	t.Fatal("the operation sent no summary")
	return engine.SummaryEvent{}
}

// resourcesLine renders the Env's last operation with the plain display
// and returns its summary's "Resources:" line.
func resourcesLine(t *testing.T, env *enginetest.Env) string {
	t.Helper()
	var buf bytes.Buffer
	r := display.New(&buf, display.Options{Mode: display.ModePlain, Color: display.ColorNever})
	for _, e := range env.Events() {
		r.Event(e)
	}
	r.Close()
	for _, line := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(line, "Resources: ") {
			return line
		}
	}
	t.Fatalf("no Resources line in:\n%s", buf.String())
	return ""
}

// Issue 29: Result.Counts, the SummaryEvent, the display's summary and a
// cancelled update's message count the same things: the user's
// resources, each once, default providers apart. Result.Counts and the
// message used to count steps, default providers and the steps of a
// replacement included ("create: 9" against "+ 6 created").
func TestCountsAgree(t *testing.T) {
	c := newCloud("zone")
	env := newEnv(t, c)
	if _, err := env.Up(func(ctx *engine.Context) error {
		ctx.Component("my:index:Group", "group")
		ctx.Register(thing, "grown", engine.Props{"size": 1})
		ctx.Register(thing, "moved", engine.Props{"zone": "a"})
		ctx.Register(thing, "dbr", engine.Props{"zone": "a"}, engine.DeleteBeforeReplace())
		ctx.Register(thing, "dropped", engine.Props{})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	program := func(ctx *engine.Context) error {
		g := ctx.Component("my:index:Group", "group")
		ctx.RegisterOutputs(g, engine.Props{"n": 1})
		ctx.Register(thing, "grown", engine.Props{"size": 2})
		ctx.Register(thing, "moved", engine.Props{"zone": "b"})
		ctx.Register(thing, "dbr", engine.Props{"zone": "b"}, engine.DeleteBeforeReplace())
		ctx.Register(thing, "added", engine.Props{})
		return nil
	}
	want := map[engine.StepOp]int{
		engine.StepSame:   2, // the stack, the group
		engine.StepUpdate: 1, engine.StepReplace: 2, engine.StepCreate: 1, engine.StepDelete: 1,
	}
	for _, op := range []struct {
		name string
		run  func() (*engine.Result, error)
		line string
	}{
		{"preview", func() (*engine.Result, error) { return env.Preview(program) },
			"Resources: + 1 to create, ~ 1 to update, +- 2 to replace, - 1 to delete, 2 unchanged"},
		{"update", func() (*engine.Result, error) { return env.Up(program) },
			"Resources: + 1 created, ~ 1 updated, +- 2 replaced, - 1 deleted, 2 unchanged"},
	} {
		t.Run(op.name, func(t *testing.T) {
			res, err := op.run()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, res.Counts); diff != "" {
				t.Errorf("Result.Counts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, summaryOf(t, env).Counts); diff != "" {
				t.Errorf("SummaryEvent.Counts (-want +got):\n%s", diff)
			}
			if got := resourcesLine(t, env); got != op.line {
				t.Errorf("display: %q, want %q", got, op.line)
			}
		})
	}
}

// upCancelledDuringB runs an update of a, b (which needs a) and c (which
// needs b) that is cancelled, with the cause "interrupted", while b is
// being created: b's create finishes and is recorded, c is never started.
func upCancelledDuringB(t *testing.T) (*enginetest.Env, *engine.Result, error) {
	t.Helper()
	c := newCloud()
	env := newEnv(t, c)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	c.onCreate = func(_ context.Context, name string) error {
		if name == "b" {
			cancel(errors.New("interrupted"))
		}
		return nil
	}
	res, err := env.Engine().Up(ctx, func(p *engine.Context) error {
		a := p.Register(thing, "a", engine.Props{})
		b := p.Register(thing, "b", engine.Props{"a": a.Output("id")})
		p.Register(thing, "c", engine.Props{"b": b.Output("id")})
		return nil
	})
	return env, res, err
}

func TestCountsOfACancelledUpdateAgree(t *testing.T) {
	env, res, err := upCancelledDuringB(t)
	var ce *engine.CancelledError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a *CancelledError", err)
	}
	want := map[engine.StepOp]int{engine.StepCreate: 3} // the stack, a, b
	if diff := cmp.Diff(want, ce.Recorded); diff != "" {
		t.Errorf("CancelledError.Recorded (-want +got):\n%s", diff)
	}
	if !strings.Contains(err.Error(), "(create: 3)") {
		t.Errorf("the message does not count 3 creates: %v", err)
	}
	if res != nil {
		if diff := cmp.Diff(want, res.Counts); diff != "" {
			t.Errorf("Result.Counts (-want +got):\n%s", diff)
		}
	}
	if diff := cmp.Diff(want, summaryOf(t, env).Counts); diff != "" {
		t.Errorf("SummaryEvent.Counts (-want +got):\n%s", diff)
	}
	if got := resourcesLine(t, env); got != "Resources: + 3 created" {
		t.Errorf("display: %q, want + 3 created", got)
	}
}

// Issue 29: Result.Steps carries each step's diff, so that a Go caller
// can show what a preview will change without subscribing to events: the
// changed keys, and the provider's detailed diff where it gave one.
func TestStepsCarryTheirDiff(t *testing.T) {
	c := newCloud("zone")
	p := c.provider()
	diff := p.DiffF
	p.DiffF = func(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
		d, err := diff(ctx, req)
		if err == nil && req.URN.Name() == "tagged" {
			d.DetailedDiff = map[string]resource.PropertyDiff{"tags.env": {Kind: resource.DiffUpdate, InputDiff: true}}
		}
		return d, err
	}
	env := enginetest.New(t)
	env.Provider("test", "", p)
	program := func(size int, zone, env string) engine.Program {
		return func(ctx *engine.Context) error {
			ctx.Register(thing, "grown", engine.Props{"size": size})
			ctx.Register(thing, "moved", engine.Props{"zone": zone})
			ctx.Register(thing, "tagged", engine.Props{"tags": map[string]any{"env": env}})
			return nil
		}
	}
	if _, err := env.Up(program(1, "a", "dev")); err != nil {
		t.Fatal(err)
	}
	res, err := env.Preview(program(2, "b", "prod"))
	if err != nil {
		t.Fatal(err)
	}
	type stepDiff struct {
		Keys []resource.PropertyKey
		Diff map[string]resource.PropertyDiff
	}
	got := map[string]stepDiff{}
	for _, s := range res.Steps {
		if s.URN.Type() == thing {
			got[string(s.Op)+" "+s.URN.Name()] = stepDiff{s.Keys, s.Diff}
		}
	}
	want := map[string]stepDiff{
		"update grown":             {Keys: []resource.PropertyKey{"size"}},
		"create-replacement moved": {Keys: []resource.PropertyKey{"zone"}},
		"replace moved":            {Keys: []resource.PropertyKey{"zone"}},
		"delete-replaced moved":    {},
		"update tagged": {Keys: []resource.PropertyKey{"tags"},
			Diff: map[string]resource.PropertyDiff{"tags.env": {Kind: resource.DiffUpdate, InputDiff: true}}},
	}
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("the steps' diffs (-want +got):\n%s", d)
	}
}

// TestCountsOfAFailedUpdateAgreeWithItsSteps runs an update that replaces,
// replaces delete-before-replace, updates, deletes and creates, with
// failures among the creates and dependents skipped behind them, and checks
// the counts it gives against its own step records, counted by the rules
// (see recount).
func TestCountsOfAFailedUpdateAgreeWithItsSteps(t *testing.T) {
	c := newCloud("zone")
	env := newEnv(t, c)
	if _, err := env.Up(func(ctx *engine.Context) error {
		ctx.Register(thing, "grown", engine.Props{"size": 1})
		ctx.Register(thing, "moved", engine.Props{"zone": "a"})
		ctx.Register(thing, "stuck", engine.Props{"zone": "a"})
		ctx.Register(thing, "dbr", engine.Props{"zone": "a"}, engine.DeleteBeforeReplace())
		ctx.Register(thing, "dropped", engine.Props{})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	c.failCreate["stuck"] = errors.New("no room")
	c.failCreate["dbr"] = errors.New("no room")
	c.failCreate["broken"] = errors.New("no room")
	res, err := env.Up(func(ctx *engine.Context) error {
		ctx.Register(thing, "grown", engine.Props{"size": 2})
		ctx.Register(thing, "moved", engine.Props{"zone": "b"})
		stuck := ctx.Register(thing, "stuck", engine.Props{"zone": "b"})
		ctx.Register(thing, "behind-stuck", engine.Props{"s": stuck.Output("id")})
		ctx.Register(thing, "dbr", engine.Props{"zone": "b"}, engine.DeleteBeforeReplace())
		ctx.Register(thing, "added", engine.Props{})
		broken := ctx.Register(thing, "broken", engine.Props{})
		ctx.Register(thing, "behind-broken", engine.Props{"b": broken.Output("id")})
		return nil
	})
	if err == nil {
		t.Fatal("the update succeeded; want the failed creates' errors")
	}
	if res == nil {
		t.Fatal("the failed update gave no Result")
	}
	wantCounts, wantFailed := recount(res.Steps)
	// Which steps a failure stops before they start depends on timing,
	// but the first of the creates set to fail does fail.
	if wantFailed == 0 {
		t.Fatalf("the steps count no failure: %v", res.Steps)
	}
	if diff := cmp.Diff(wantCounts, res.Counts); diff != "" {
		t.Errorf("Result.Counts (-steps' +got):\n%s", diff)
	}
	s := summaryOf(t, env)
	if diff := cmp.Diff(wantCounts, s.Counts); diff != "" {
		t.Errorf("SummaryEvent.Counts (-steps' +got):\n%s", diff)
	}
	if s.Failed != wantFailed {
		t.Errorf("SummaryEvent.Failed = %d, the steps count %d", s.Failed, wantFailed)
	}
}

// recount counts step records by the rules Result.Counts follows (see
// the engine's counts.go), all at once.
func recount(records []engine.StepRecord) (counts map[engine.StepOp]int, failed int) {
	rank := map[engine.StepOp]int{
		engine.StepSame: 1, engine.StepRead: 2, engine.StepRefresh: 3, engine.StepImport: 4, engine.StepDiscard: 5,
		engine.StepCreate: 6, engine.StepDelete: 7, engine.StepUpdate: 8, engine.StepReplace: 9,
	}
	type seen struct {
		kind                      engine.StepOp
		failed, skipped, replaced bool
	}
	var urns []resource.URN
	all := map[resource.URN]*seen{}
	for _, r := range records {
		s := all[r.URN]
		if s == nil {
			s = &seen{}
			all[r.URN] = s
			urns = append(urns, r.URN)
		}
		switch {
		case r.Skipped:
			s.skipped = true
			continue
		case r.Err != nil:
			s.failed = true
			continue
		}
		kind := r.Op
		switch r.Op {
		case engine.StepCreateReplacement, engine.StepDeleteReplaced, engine.StepReadReplacement:
			kind = engine.StepReplace
		case engine.StepOutputs:
			kind = ""
		}
		if r.Op == engine.StepDeleteReplaced {
			s.replaced = true
		}
		if kind == engine.StepCreate && s.replaced {
			kind = engine.StepReplace
		}
		if rank[kind] > rank[s.kind] {
			s.kind = kind
		}
	}
	counts = map[engine.StepOp]int{}
	for _, urn := range urns {
		switch s := all[urn]; {
		case s.failed:
			failed++
		case s.skipped, s.kind == "", providers.IsDefaultProvider(urn):
		default:
			counts[s.kind]++
		}
	}
	return counts, failed
}
