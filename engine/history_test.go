package engine_test

import (
	"context"
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// Every operation that changes a stack is recorded in its history, with
// its kind, result, counts and message, newest first; previews are not.
func TestHistoryRecordsEachOperation(t *testing.T) {
	stores := map[string]func(t *testing.T) state.Store{
		"memory": func(*testing.T) state.Store { return memstore.New() },
		"file": func(t *testing.T) state.Store {
			st, err := filestore.New(t.TempDir(), state.WithSync(state.SyncNever))
			if err != nil {
				t.Fatal(err)
			}
			return st
		},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			c := newCloud()
			env := newEnv(t, c)
			env.Store = open(t)
			two := func(ctx *engine.Context) error {
				ctx.Register(thing, "a", engine.Props{})
				ctx.Register(thing, "b", engine.Props{})
				return nil
			}
			three := func(ctx *engine.Context) error {
				_ = two(ctx)
				ctx.Register(thing, "c", engine.Props{})
				return nil
			}
			type op struct {
				kind    string
				result  state.HistoryResult
				message string
				counts  map[engine.StepOp]int
			}
			var want []op
			record := func(kind string, result state.HistoryResult, msg string, res *engine.Result) {
				t.Helper()
				if res == nil {
					t.Fatalf("%s returned no result", kind)
				}
				want = append(want, op{kind, result, msg, res.Counts})
			}
			before := time.Now()

			res, err := env.Up(two, engine.Message("first: a and b"))
			if err != nil {
				t.Fatal(err)
			}
			record("update", state.HistorySucceeded, "first: a and b", res)
			if _, err := env.Preview(three); err != nil {
				t.Fatal(err)
			}
			res, err = env.Engine().Refresh(context.Background(), engine.Message("look"))
			if err != nil {
				t.Fatal(err)
			}
			record("refresh", state.HistorySucceeded, "look", res)
			c.failCreate = map[string]error{"c": errors.New("quota exceeded")}
			res, err = env.Up(three)
			if err == nil {
				t.Fatal("the up that creates c succeeded; want it to fail")
			}
			record("update", state.HistoryFailed, "", res)
			c.failCreate = nil
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c.onCreate = func(context.Context, string) error { cancel(); return nil }
			res, err = env.Engine().Up(ctx, three)
			var ce *engine.CancelledError
			if !errors.As(err, &ce) {
				t.Fatalf("the cancelled up = %v; want a *CancelledError", err)
			}
			record("update", state.HistoryCancelled, "", res)
			c.onCreate = nil
			res, err = env.Destroy(engine.Message("tear down"))
			if err != nil {
				t.Fatal(err)
			}
			record("destroy", state.HistorySucceeded, "tear down", res)

			got, err := env.Store.(state.HistoryReader).History(context.Background(), env.StackID())
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("History has %d entries; want %d: %+v", len(got), len(want), got)
			}
			for i, g := range got {
				w := want[len(want)-1-i]
				counts := map[string]int{}
				for k, n := range maps.All(w.counts) {
					if n > 0 {
						counts[string(k)] = n
					}
				}
				if g.Version != len(want)-i || g.Kind != w.kind || g.Result != w.result || g.Message != w.message {
					t.Errorf("entry %d = version %d, %s %s %q; want version %d, %s %s %q",
						i, g.Version, g.Kind, g.Result, g.Message, len(want)-i, w.kind, w.result, w.message)
				}
				if diff := cmp.Diff(counts, g.ResourceChanges); diff != "" && !(len(counts) == 0 && len(g.ResourceChanges) == 0) {
					t.Errorf("entry %d (%s) counts (-want +got):\n%s", i, g.Kind, diff)
				}
				if g.StartTime.Before(before.Add(-time.Second)) || g.EndTime.Before(g.StartTime) || g.EndTime.After(time.Now()) {
					t.Errorf("entry %d times %v..%v; want within the test's run", i, g.StartTime, g.EndTime)
				}
			}
			// The stack counts as a resource; c was created by the up
			// cancelled as its create ran.
			if got[len(got)-1].ResourceChanges["create"] != 3 || got[0].ResourceChanges["delete"] != 4 {
				t.Errorf("first up's counts %v, destroy's %v; want 3 creates (the stack, a, b) and 4 deletes (and c)",
					got[len(got)-1].ResourceChanges, got[0].ResourceChanges)
			}
		})
	}
}

// historyless is a store without the history ability.
type historyless struct{ state.Store }

// A store that keeps no history runs operations as before, recording none.
func TestHistoryFallbackWithoutRecorder(t *testing.T) {
	c := newCloud()
	env := newEnv(t, c)
	mem := memstore.New()
	env.Store = historyless{mem}
	if _, err := env.Up(func(ctx *engine.Context) error {
		ctx.Register(thing, "a", engine.Props{})
		return nil
	}, engine.Message("m")); err != nil {
		t.Fatal(err)
	}
	if got, err := mem.History(context.Background(), env.StackID()); err != nil || len(got) != 0 {
		t.Errorf("History = %v, %v; want nothing recorded", got, err)
	}
	if len(env.Snapshot().Resources) == 0 {
		t.Error("the up recorded no resources")
	}
}
