package reliability_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/groundwork-iac/groundwork/dag"
	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// TestDeletedWith: a resource deleted with another (deletedWith) is not
// deleted through its provider when the other is deleted too; its record
// leaves the state in the journal entry that records the other's delete,
// so never while the other still exists. Whatever fails, no resource that
// exists is forgotten, and once the failure is gone the same operation
// finishes the job.
//
// The fake world does not delete one resource with another: what went with
// a deleted resource stays in it, listed in letGo.
func TestDeletedWith(t *testing.T) {
	dbAndTable := func(ctx *engine.Context) error {
		db := ctx.Register(thing, "db", engine.Props{})
		ctx.Register(thing, "table", engine.Props{}, engine.DeletedWith(db), engine.DependsOn(db))
		return nil
	}
	nothing := func(*engine.Context) error { return nil }
	destroy := func(opts ...engine.Option) func(*enginetest.Env) (*engine.Result, error) {
		return func(env *enginetest.Env) (*engine.Result, error) { return env.Destroy(opts...) }
	}
	up := func(p engine.Program, opts ...engine.Option) func(*enginetest.Env) (*engine.Result, error) {
		return func(env *enginetest.Env) (*engine.Result, error) { return env.Up(p, opts...) }
	}
	dbGen := func(gen int, dbr bool) engine.Program {
		return func(ctx *engine.Context) error {
			opts := []engine.ResourceOption{}
			if dbr {
				opts = append(opts, engine.DeleteBeforeReplace())
			}
			db := ctx.Register(thing, "db", engine.Props{"gen": gen}, opts...)
			if gen == 1 {
				ctx.Register(thing, "table", engine.Props{}, engine.DeletedWith(db))
			}
			return nil
		}
	}
	tests := []struct {
		name    string
		first   engine.Program
		fail    map[string]failMode
		op      func(*enginetest.Env) (*engine.Result, error)
		wantErr bool
		// deletes are the provider deletes called (failing or not),
		// sorted.
		deletes []string
		// steps are the steps of thing resources, sorted: "op name" and
		// ": failed" or ": skipped".
		steps []string
		// state is what stays recorded, sorted ("name (old)" for an old
		// copy marked Delete).
		state []string
		// letGo are resources that may exist unrecorded afterwards.
		letGo []string
		// retry runs op again without the failures and expects it to
		// succeed, leaving retryState.
		retry      bool
		retryState []string
	}{
		{
			name:  "destroy: the target's delete succeeds, the table goes with it",
			first: dbAndTable, op: destroy(),
			deletes: []string{"db"},
			steps:   []string{"delete db", "delete table"},
			letGo:   []string{"table"},
		},
		{
			name:  "destroy: the target's delete fails, both stay recorded",
			first: dbAndTable, fail: map[string]failMode{"delete db": failPlain}, op: destroy(),
			wantErr: true,
			deletes: []string{"db"},
			steps:   []string{"delete db: failed", "delete table: skipped"},
			state:   []string{"db", "table"},
			retry:   true,
		},
		{
			name:  "an up that drops both: the target's delete fails",
			first: dbAndTable, fail: map[string]failMode{"delete db": failPlain}, op: up(nothing),
			wantErr: true,
			deletes: []string{"db"},
			steps:   []string{"delete db: failed", "delete table: skipped"},
			state:   []string{"db", "table"},
			retry:   true,
		},
		{
			name: "continue-on-error: the target's delete fails, the rest goes on",
			first: func(ctx *engine.Context) error {
				ctx.Register(thing, "other", engine.Props{})
				return dbAndTable(ctx)
			},
			fail: map[string]failMode{"delete db": failPlain}, op: destroy(engine.ContinueOnError()),
			wantErr: true,
			deletes: []string{"db", "other"},
			steps:   []string{"delete db: failed", "delete other", "delete table: skipped"},
			state:   []string{"db", "table"},
			retry:   true,
		},
		{
			name: "a chain a with b with c: c's delete fails, all stay",
			first: func(ctx *engine.Context) error {
				c := ctx.Register(thing, "c", engine.Props{})
				b := ctx.Register(thing, "b", engine.Props{}, engine.DeletedWith(c))
				ctx.Register(thing, "a", engine.Props{}, engine.DeletedWith(b))
				return nil
			},
			fail: map[string]failMode{"delete c": failPlain}, op: destroy(),
			wantErr: true,
			deletes: []string{"c"},
			steps:   []string{"delete a: skipped", "delete b: skipped", "delete c: failed"},
			state:   []string{"a", "b", "c"},
			retry:   true,
		},
		{
			name:  "what only the table uses (its provider) waits for the group; the target's delete fails",
			first: tableOwnProvider, fail: map[string]failMode{"delete db": failPlain}, op: destroy(),
			wantErr: true,
			deletes: []string{"db"},
			steps:   []string{"delete db: failed", "delete table: skipped"},
			state:   []string{"db", "table"},
			retry:   true,
		},
		{
			name:  "continue-on-error: what only the table uses waits for the group; the target's delete fails",
			first: tableOwnProvider, fail: map[string]failMode{"delete db": failPlain}, op: destroy(engine.ContinueOnError()),
			wantErr: true,
			deletes: []string{"db"},
			steps:   []string{"delete db: failed", "delete table: skipped"},
			state:   []string{"db", "table"},
			retry:   true,
		},
		{
			name: "continue-on-error: a dependent of the table fails to delete, the group waits",
			first: func(ctx *engine.Context) error {
				db := ctx.Register(thing, "db", engine.Props{})
				table := ctx.Register(thing, "table", engine.Props{}, engine.DeletedWith(db))
				ctx.Register(thing, "view", engine.Props{"of": table.ID()})
				return nil
			},
			fail: map[string]failMode{"delete view": failPlain}, op: destroy(engine.ContinueOnError()),
			wantErr: true,
			deletes: []string{"view"},
			steps:   []string{"delete db: skipped", "delete table: skipped", "delete view: failed"},
			state:   []string{"db", "table", "view"},
			retry:   true,
		},
		{
			name:  "the old copy of a replaced target fails to delete; the table dropped with it stays",
			first: dbGen(1, false), fail: map[string]failMode{"delete db": failPlain}, op: up(dbGen(2, false)),
			wantErr:    true,
			deletes:    []string{"db"},
			steps:      []string{"create-replacement db", "delete table: skipped", "delete-replaced db: failed", "replace db"},
			state:      []string{"db", "db (old)", "table"},
			retry:      true,
			retryState: []string{"db"},
		},
		{
			name:  "a delete-before-replaced target: the table dropped meanwhile is deleted through its provider",
			first: dbGen(1, true), op: up(dbGen(2, true)),
			deletes: []string{"db", "table"},
			// The old db is deleted first, by the replacement's chain:
			// no copy of it is left for the table to go with.
			steps: []string{"create db", "delete table", "delete-replaced db"},
			state: []string{"db"},
		},
		{
			name: "a retained target: both leave the state, nothing is deleted",
			first: func(ctx *engine.Context) error {
				db := ctx.Register(thing, "db", engine.Props{}, engine.RetainOnDelete())
				ctx.Register(thing, "table", engine.Props{}, engine.DeletedWith(db))
				return nil
			},
			op:    destroy(),
			steps: []string{"delete db", "delete table"},
			letGo: []string{"db", "table"},
		},
		{
			name: "a protected target stays: the table is deleted through its provider",
			first: func(ctx *engine.Context) error {
				db := ctx.Register(thing, "db", engine.Props{}, engine.Protect())
				ctx.Register(thing, "table", engine.Props{}, engine.DeletedWith(db))
				return nil
			},
			op:      destroy(),
			wantErr: true,
			deletes: []string{"table"},
			steps:   []string{"delete db: failed", "delete table"},
			state:   []string{"db"},
		},
		{
			name:  "targets: the table alone is deleted through its provider",
			first: dbAndTable, op: func(env *enginetest.Env) (*engine.Result, error) {
				return env.Destroy(engine.Targets(env.URN(thing, "table")))
			},
			deletes: []string{"table"},
			steps:   []string{"delete table"},
			state:   []string{"db"},
		},
		{
			name:  "targets: the target alone is refused while the table stays",
			first: dbAndTable, op: func(env *enginetest.Env) (*engine.Result, error) {
				return env.Destroy(engine.Targets(env.URN(thing, "db")))
			},
			wantErr: true,
			state:   []string{"db", "table"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud()
			env := newEnv(t, c)
			if _, err := env.Up(tt.first); err != nil {
				t.Fatal(err)
			}
			deletes := recordDeletes(c)
			c.Fail(tt.fail)
			res, err := tt.op(env)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want one: %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.deletes, deletes.sorted(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("provider deletes (-want +got):\n%s", diff)
			}
			if res != nil {
				if diff := cmp.Diff(tt.steps, thingSteps(res), cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("steps (-want +got):\n%s", diff)
				}
			}
			checkRecorded(t, env, c, tt.state, tt.letGo)
			if !tt.retry {
				return
			}
			c.Fail(nil)
			if _, err := tt.op(env); err != nil {
				t.Fatalf("the retry failed: %v", err)
			}
			checkRecorded(t, env, c, tt.retryState, []string{"table", "a", "b"})
		})
	}
}

// TestDeletedWithCrash kills the process (a frozen MemoryStore restored) at
// each point of a destroy of db and the table deleted with it. Whatever
// the journal holds then loads, forgets no resource that exists, and a
// refresh and a destroy finish the job.
func TestDeletedWithCrash(t *testing.T) {
	tests := []struct {
		name string
		// deleted makes the kill come after db's provider delete (when
		// set) or before it.
		deleted bool
		// after kills the process at the next provider delete (of base,
		// which db depends on), after db and table were recorded gone.
		after   bool
		state   []string
		pending []string
	}{
		{name: "before db's provider delete", state: []string{"base", "db", "table"}, pending: []string{"deleting db"}},
		{name: "after db's provider delete, before its end was recorded", deleted: true, state: []string{"base", "db", "table"}, pending: []string{"deleting db"}},
		{name: "after db's end was recorded", after: true, state: []string{"base"}, pending: []string{"deleting base"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud()
			env := newEnv(t, c)
			store := env.Store.(*memstore.Store)
			if _, err := env.Up(func(ctx *engine.Context) error {
				base := ctx.Register(thing, "base", engine.Props{})
				db := ctx.Register(thing, "db", engine.Props{}, engine.DependsOn(base))
				ctx.Register(thing, "table", engine.Props{}, engine.DeletedWith(db))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			var crash frozen
			kill := "db"
			if tt.after {
				kill = "base"
			}
			c.hook = func(_ context.Context, op string, urn resource.URN) error {
				if op != "delete" || urn.Name() != kill || crash != nil {
					return nil
				}
				if tt.deleted {
					c.Remove(urn)
				}
				crash = freeze(store, env.StackID())
				return errInjected // the process is dead: nothing after this counts
			}
			if _, err := env.Destroy(); err == nil {
				t.Fatal("the destroy was meant to be killed")
			}
			c.hook = nil
			crash.restore(t, store, env.StackID())
			snap := env.Snapshot() // fails the test unless it loads and passes integrity
			if diff := cmp.Diff(tt.state, recordedNames(snap), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("state after the kill (-want +got):\n%s", diff)
			}
			var pending []string
			for _, op := range snap.PendingOperations {
				pending = append(pending, string(op.Kind)+" "+op.Resource.URN.Name())
			}
			if diff := cmp.Diff(tt.pending, pending); diff != "" {
				t.Errorf("pending operations (-want +got):\n%s", diff)
			}
			checkRecorded(t, env, c, tt.state, []string{"table"})
			if _, err := env.Engine().Refresh(bg); err != nil {
				t.Fatalf("refresh: %v", err)
			}
			if _, err := env.Destroy(); err != nil {
				t.Fatalf("destroy after the kill: %v", err)
			}
			checkRecorded(t, env, c, nil, []string{"table"})
		})
	}
}

// tableOwnProvider deploys a table deleted with db that uses a provider
// of its own, which db does not use.
func tableOwnProvider(ctx *engine.Context) error {
	prov := ctx.Provider("fz", "own", engine.Props{})
	db := ctx.Register(thing, "db", engine.Props{})
	ctx.Register(thing, "table", engine.Props{}, engine.DeletedWith(db), engine.Provider(prov))
	return nil
}

// deleteLog records the provider deletes the cloud is asked for.
type deleteLog struct {
	mu    sync.Mutex
	names []string
}

func recordDeletes(c *fakeCloud) *deleteLog {
	l := &deleteLog{}
	c.hook = func(_ context.Context, op string, urn resource.URN) error {
		if op == "delete" {
			l.mu.Lock()
			l.names = append(l.names, urn.Name())
			l.mu.Unlock()
		}
		return nil
	}
	return l
}

func (l *deleteLog) sorted() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := slices.Clone(l.names)
	slices.Sort(out)
	return out
}

// thingSteps lists the steps of thing resources, sorted, marking failed and
// skipped ones.
func thingSteps(res *engine.Result) []string {
	var out []string
	for _, s := range res.Steps {
		if s.URN.Type() != thing || s.Op == engine.StepSame {
			continue
		}
		line := string(s.Op) + " " + s.URN.Name()
		var skipped *dag.SkippedError
		switch {
		case errors.As(s.Err, &skipped):
			line += ": skipped"
		case s.Err != nil:
			line += ": failed"
		}
		out = append(out, line)
	}
	slices.Sort(out)
	return out
}

// recordedNames lists the recorded thing resources, sorted.
func recordedNames(snap *state.Snapshot) []string {
	var out []string
	for _, r := range snap.Resources {
		if r.Type != thing {
			continue
		}
		name := r.URN.Name()
		if r.Delete {
			name += " (old)"
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// checkRecorded checks that the stack loads and records exactly want, that
// every recorded resource exists (or has a pending operation that explains
// it), and that every resource that exists is
// recorded unless its name is in letGo.
func checkRecorded(t *testing.T, env *enginetest.Env, c *fakeCloud, want, letGo []string) {
	t.Helper()
	snap := env.Snapshot()
	if diff := cmp.Diff(want, recordedNames(snap), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
	live := c.Live()
	pending := map[resource.URN]bool{} // a pending operation explains a record
	for _, op := range snap.PendingOperations {
		pending[op.Resource.URN] = true
	}
	recorded := map[resource.ID]bool{}
	for _, r := range snap.Resources {
		if r.Type != thing {
			continue
		}
		recorded[r.ID] = true
		if _, ok := live[r.ID]; !ok && !r.PendingReplacement && !pending[r.URN] {
			t.Errorf("%s (%s) is recorded but does not exist", r.URN.Name(), r.ID)
		}
	}
	for id, ph := range live {
		if !recorded[id] && !slices.Contains(letGo, ph.URN.Name()) {
			t.Errorf("%s (%s) exists but the state forgot it", ph.URN.Name(), id)
		}
	}
}
