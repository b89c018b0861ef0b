package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/resource"
)

// The example graph of delete-before-replace: B and C depend on A, D on B,
// E and F on C. B's tie to A is dependsOn only and D's tie to B is an input
// of B that will not change; C takes A's zone (a property that replaces), E
// takes C's zone (replaces), F takes C's id into a property that updates in
// place. Replacing A with delete-before-replace must delete exactly E and C
// (dependents first) before A.
func dbrGraph(zone string) engine.Program {
	return func(ctx *engine.Context) error {
		a := ctx.Register(thing, "A", engine.Props{"zone": zone}, engine.DeleteBeforeReplace())
		b := ctx.Register(thing, "B", engine.Props{"kind": "b"}, engine.DependsOn(a))
		ctx.Register(thing, "D", engine.Props{"b": b.Output("kind")})
		c := ctx.Register(thing, "C", engine.Props{"zone": a.Output("zone")})
		ctx.Register(thing, "E", engine.Props{"zone": c.Output("zone")})
		ctx.Register(thing, "F", engine.Props{"label": c.ID()})
		return nil
	}
}

func TestDeleteBeforeReplaceDeletesOnlyDependentsThatWouldBeReplaced(t *testing.T) {
	c := newCloud("zone")
	env := enginetest.New(t)
	env.Provider("test", "", c.provider())
	if _, err := env.Up(dbrGraph("x")); err != nil {
		t.Fatal(err)
	}
	before := len(c.Writes())
	if _, err := env.Up(dbrGraph("y")); err != nil {
		t.Fatal(err)
	}
	writes := c.Writes()[before:]
	if len(writes) < 4 {
		t.Fatalf("writes = %v", writes)
	}
	if diff := cmp.Diff([]string{"delete E", "delete C", "delete A", "create A"}, writes[:4]); diff != "" {
		t.Errorf("deletes before the replacement (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"create C", "create E", "update F"}, sorted(writes[4:])); diff != "" {
		t.Errorf("after the replacement (-want +got):\n%s", diff)
	}
	if c.Live() != 6 {
		t.Errorf("%d resources exist, want 6", c.Live())
	}
	for _, s := range env.Snapshot().Resources {
		if s.PendingReplacement || s.Delete {
			t.Errorf("%s left marked (pending replacement %v, delete %v)", s.URN, s.PendingReplacement, s.Delete)
		}
	}
}

func TestDeleteBeforeReplaceInterruptedBetweenDeleteAndCreate(t *testing.T) {
	c := newCloud("zone")
	env := enginetest.New(t)
	env.Provider("test", "", c.provider())
	program := func(zone string) engine.Program {
		return func(ctx *engine.Context) error {
			ctx.Register(thing, "a", engine.Props{"zone": zone}, engine.DeleteBeforeReplace())
			return nil
		}
	}
	if _, err := env.Up(program("x")); err != nil {
		t.Fatal(err)
	}
	// The run stops after the delete: the create fails.
	c.failCreate["a"] = errors.New("interrupted")
	if _, err := env.Up(program("y")); err == nil {
		t.Fatal("the interrupted run succeeded")
	}
	a := env.Resource(env.URN(thing, "a"))
	if a == nil || !a.PendingReplacement {
		t.Fatalf("after the interruption the state must show a pending replacement of a, got %+v", a)
	}
	if c.Live() != 0 {
		t.Fatalf("%d resources exist after the delete, want 0", c.Live())
	}
	// The next run finishes the job: it creates a, deleting nothing.
	delete(c.failCreate, "a")
	before := len(c.Writes())
	if _, err := env.Up(program("y")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"create a"}, c.Writes()[before:]); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	a = env.Resource(env.URN(thing, "a"))
	if a == nil || a.PendingReplacement || a.Inputs["zone"].StringValue() != "y" || c.Live() != 1 {
		t.Errorf("a = %+v, live = %d", a, c.Live())
	}
}

func TestReplaceOnChangesAndIgnoreChanges(t *testing.T) {
	tests := []struct {
		name   string
		opt    engine.ResourceOption
		change engine.Props
		want   []string // writes of the second run
		keep   string   // the recorded value of "tag" afterwards
	}{
		{"plain change updates", nil, engine.Props{"tag": "v2"}, []string{"update a"}, "v2"},
		{"replaceOnChanges replaces", engine.ReplaceOnChanges("tag"), engine.Props{"tag": "v2"}, []string{"create a", "delete a"}, "v2"},
		{"replaceOnChanges on another path updates", engine.ReplaceOnChanges("other"), engine.Props{"tag": "v2"}, []string{"update a"}, "v2"},
		{"ignoreChanges keeps the old value", engine.IgnoreChanges("tag"), engine.Props{"tag": "v2"}, nil, "v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud()
			env := enginetest.New(t)
			env.Provider("test", "", c.provider())
			program := func(props engine.Props) engine.Program {
				return func(ctx *engine.Context) error {
					ctx.Register(thing, "a", props, tt.opt)
					return nil
				}
			}
			if _, err := env.Up(program(engine.Props{"tag": "v1"})); err != nil {
				t.Fatal(err)
			}
			before := len(c.Writes())
			if _, err := env.Up(program(tt.change)); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, c.Writes()[before:], cmpEmpty); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
			if got := env.Resource(env.URN(thing, "a")).Inputs["tag"].StringValue(); got != tt.keep {
				t.Errorf("recorded tag = %q, want %q", got, tt.keep)
			}
		})
	}
}

func TestAliasRenameWritesNothing(t *testing.T) {
	c := newCloud()
	env := enginetest.New(t)
	env.Provider("test", "", c.provider())
	if _, err := env.Up(things(map[string]engine.Props{"old": {"size": 1}})); err != nil {
		t.Fatal(err)
	}
	id := env.Resource(env.URN(thing, "old")).ID
	before := len(c.Writes())
	_, err := env.Up(func(ctx *engine.Context) error {
		ctx.Register(thing, "new", engine.Props{"size": 1}, engine.Aliases(resource.Alias{Name: "old"}))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if w := c.Writes()[before:]; len(w) != 0 {
		t.Errorf("a rename through an alias wrote %v", w)
	}
	if env.Resource(env.URN(thing, "old")) != nil {
		t.Error("the old URN is still recorded")
	}
	if r := env.Resource(env.URN(thing, "new")); r == nil || r.ID != id {
		t.Errorf("new = %+v, want the old resource (id %s) under the new name", r, id)
	}
}

func TestAliasMatchingTwoResourcesIsAnError(t *testing.T) {
	c := newCloud()
	env := enginetest.New(t)
	env.Provider("test", "", c.provider())
	if _, err := env.Up(things(map[string]engine.Props{"x": {}, "y": {}})); err != nil {
		t.Fatal(err)
	}
	_, err := env.Up(func(ctx *engine.Context) error {
		ctx.Register(thing, "z", engine.Props{}, engine.Aliases(resource.Alias{Name: "x"}, resource.Alias{Name: "y"}))
		return nil
	})
	if err == nil || !containsAll(err.Error(), "::x", "::y", "more than one") {
		t.Errorf("err = %v, want an alias error naming both", err)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// records lists the custom resources the stack records as
// "name zone" with " (delete)" for a copy marked for deletion.
func records(env *enginetest.Env) []string {
	var out []string
	for _, s := range env.Snapshot().Resources {
		if !s.Custom || s.IsProvider() {
			continue
		}
		r := s.URN.Name() + " " + s.Inputs["zone"].StringValue()
		if s.Delete {
			r += " (delete)"
		}
		out = append(out, r)
	}
	return out
}

// TestCreateBeforeDeleteFailedCreateKeepsTheOldCopy: the old copy of a
// resource replaced create-before-delete is condemned only once its
// replacement exists, as the reference engine does. A create that fails
// leaves it live, so going back to the old inputs changes nothing; and a
// replacement that fails twice in a row still leaves it live.
func TestCreateBeforeDeleteFailedCreateKeepsTheOldCopy(t *testing.T) {
	one := func(zone string) engine.Program {
		return func(ctx *engine.Context) error {
			ctx.Register(thing, "a", engine.Props{"zone": zone})
			return nil
		}
	}
	// b takes a's zone, so its replacement follows a's.
	two := func(zone string) engine.Program {
		return func(ctx *engine.Context) error {
			a := ctx.Register(thing, "a", engine.Props{"zone": zone})
			ctx.Register(thing, "b", engine.Props{"zone": zone, "a": a.Output("zone")})
			return nil
		}
	}
	type run struct {
		program engine.Program
		fail    string // the resource whose create fails
		steps   []string
		writes  []string
		records []string
	}
	tests := []struct {
		name string
		runs []run
	}{
		{
			name: "going back to the old inputs after a failed create changes nothing",
			runs: []run{
				{program: one("x"), steps: []string{"create a"}, writes: []string{"create a"}, records: []string{"a x"}},
				{program: one("y"), fail: "a", steps: []string{"create-replacement a: failed", "replace a: skipped"},
					records: []string{"a x"}},
				{program: one("x"), steps: []string{"same a"}, records: []string{"a x"}},
			},
		},
		{
			name: "a retry after a failed create finishes the replacement",
			runs: []run{
				{program: one("x"), steps: []string{"create a"}, writes: []string{"create a"}, records: []string{"a x"}},
				{program: one("y"), fail: "a", steps: []string{"create-replacement a: failed", "replace a: skipped"},
					records: []string{"a x"}},
				{program: one("y"), steps: []string{"create-replacement a", "delete-replaced a", "replace a"},
					writes: []string{"create a", "delete a"}, records: []string{"a y"}},
			},
		},
		{
			name: "a dependent's failed create after its dependency's replacement",
			runs: []run{
				{program: two("x"), steps: []string{"create a", "create b"}, writes: []string{"create a", "create b"}, records: []string{"a x", "b x"}},
				{program: two("y"), fail: "b", steps: []string{"create-replacement a", "create-replacement b: failed", "replace a", "replace b: skipped"},
					writes: []string{"create a"}, records: []string{"a x (delete)", "a y", "b x"}},
				{program: two("y"), steps: []string{"create-replacement b", "delete-replaced a", "delete-replaced b", "replace b", "same a"},
					writes: []string{"create b", "delete b", "delete a"}, records: []string{"a y", "b y"}},
			},
		},
		{
			name: "two failed replacements in a row",
			runs: []run{
				{program: two("x"), steps: []string{"create a", "create b"}, writes: []string{"create a", "create b"}, records: []string{"a x", "b x"}},
				{program: two("y"), fail: "b", steps: []string{"create-replacement a", "create-replacement b: failed", "replace a", "replace b: skipped"},
					writes: []string{"create a"}, records: []string{"a x (delete)", "a y", "b x"}},
				{program: two("y"), fail: "b", steps: []string{"create-replacement b: failed", "replace b: skipped", "same a"},
					records: []string{"a x (delete)", "a y", "b x"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud("zone")
			env := enginetest.New(t)
			env.Provider("test", "", c.provider())
			for i, r := range tt.runs {
				clear(c.failCreate)
				if r.fail != "" {
					c.failCreate[r.fail] = errors.New("quota exceeded")
				}
				before := len(c.Writes())
				res, err := env.Up(r.program)
				if (err != nil) != (r.fail != "") {
					t.Fatalf("run %d: err = %v, want a failure %t", i, err, r.fail != "")
				}
				if diff := cmp.Diff(r.steps, outcomes(res)); diff != "" {
					t.Errorf("run %d: steps (-want +got):\n%s", i, diff)
				}
				if diff := cmp.Diff(r.writes, c.Writes()[before:], cmpEmpty); diff != "" {
					t.Errorf("run %d: writes (-want +got):\n%s", i, diff)
				}
				if diff := cmp.Diff(sorted(r.records), sorted(records(env))); diff != "" {
					t.Errorf("run %d: records (-want +got):\n%s", i, diff)
				}
			}
			last := tt.runs[len(tt.runs)-1].records
			if c.Live() != len(last) {
				t.Errorf("%d resources exist, want %d", c.Live(), len(last))
			}
		})
	}
}

// TestProtectAndReplace: a protected resource is never deleted to replace
// it — directly, or as a dependent a delete-before-replace would delete
// first — and the refusal, a failed replace step of the resource being
// replaced, names it before anything is deleted. A program
// that drops protect may replace the resource in the same update, as the
// reference engine allows; a dependent's recorded protect holds, since
// its new goal comes only after the delete-before-replace decided.
func TestProtectAndReplace(t *testing.T) {
	program := func(zone string, protectA, protectC bool) engine.Program {
		opt := func(on bool) engine.ResourceOption {
			if on {
				return engine.Protect()
			}
			return nil
		}
		return func(ctx *engine.Context) error {
			a := ctx.Register(thing, "a", engine.Props{"zone": zone}, engine.DeleteBeforeReplace(), opt(protectA))
			ctx.Register(thing, "b", engine.Props{"kind": "b"}, engine.DependsOn(a))
			ctx.Register(thing, "c", engine.Props{"zone": a.Output("zone")}, opt(protectC))
			return nil
		}
	}
	tests := []struct {
		name               string
		protectA, protectC bool // in both runs
		unprotect          bool // the second run drops protect
		wantProtected      string
		wantFor            string
		writes             []string
		steps              []string
	}{
		{name: "a protected resource is not replaced", protectA: true, wantProtected: "a",
			steps: []string{"replace a: failed"}},
		{name: "a protected dependent is not replaced by a delete-before-replace", protectC: true,
			wantProtected: "c", wantFor: "a", steps: []string{"replace a: failed"}},
		{name: "unprotect and replace in one update", protectA: true, unprotect: true,
			writes: []string{"delete c", "delete a", "create a", "create c"},
			steps:  []string{"create a", "create c", "delete-replaced a", "delete-replaced c", "same b"}},
		// The dependent's new goal is not known when the delete-before-
		// replace must decide (it waits for a): its recorded protect
		// holds, as in the reference engine.
		{name: "unprotecting a dependent does not let a delete-before-replace replace it", protectC: true, unprotect: true,
			wantProtected: "c", wantFor: "a", steps: []string{"replace a: failed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud("zone")
			env := enginetest.New(t)
			env.Provider("test", "", c.provider())
			if _, err := env.Up(program("x", tt.protectA, tt.protectC)); err != nil {
				t.Fatal(err)
			}
			before := len(c.Writes())
			second := program("y", tt.protectA, tt.protectC)
			if tt.unprotect {
				second = program("y", false, false)
			}
			res, err := env.Up(second)
			var pe *engine.ProtectedError
			switch {
			case tt.wantProtected == "" && err != nil:
				t.Fatalf("Up: %v", err)
			case tt.wantProtected != "" && (!errors.As(err, &pe) || pe.URN.Name() != tt.wantProtected || pe.For.Name() != tt.wantFor):
				t.Fatalf("Up: err = %v, want a ProtectedError for %s (replacing %q)", err, tt.wantProtected, tt.wantFor)
			case tt.wantProtected != "" && !strings.Contains(err.Error(), string(env.URN(thing, tt.wantProtected))):
				t.Errorf("the error does not name %s: %v", tt.wantProtected, err)
			}
			if diff := cmp.Diff(tt.writes, c.Writes()[before:], cmpEmpty); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.steps, outcomes(res), cmpEmpty); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			want := []string{"a x", "b ", "c x"}
			if tt.wantProtected == "" {
				want = []string{"a y", "b ", "c y"}
			}
			if diff := cmp.Diff(want, sorted(records(env))); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			for _, s := range env.Snapshot().Resources {
				if s.Custom && !s.IsProvider() && s.Protect != (tt.wantProtected != "" && (s.URN.Name() == "a" && tt.protectA || s.URN.Name() == "c" && tt.protectC)) {
					t.Errorf("%s recorded with protect %t", s.URN.Name(), s.Protect)
				}
			}
		})
	}
}
