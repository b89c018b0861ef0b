package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/resource"
)

// hookLog records, in the cloud's log of writes, when each hook runs, and
// keeps what each was told.
type hookLog struct {
	cl   *cloud
	mu   sync.Mutex
	args []resource.HookArgs
}

// hook returns a hook that logs "hook <kind> <hook> <resource>" and fails
// with fail (if set).
func (l *hookLog) hook(name string, onPreview bool, fail error) *engine.Hook {
	return &engine.Hook{Name: name, OnPreview: onPreview, Run: func(_ context.Context, a resource.HookArgs) error {
		l.cl.mu.Lock()
		l.cl.writes = append(l.cl.writes, "hook "+string(a.Kind)+" "+name+" "+a.Name)
		l.cl.mu.Unlock()
		l.mu.Lock()
		l.args = append(l.args, a)
		l.mu.Unlock()
		return fail
	}}
}

// of returns the log entries that concern the resource name, in order.
func of(log []string, name string) []string {
	var out []string
	for _, w := range log {
		if strings.HasSuffix(w, " "+name) {
			out = append(out, w)
		}
	}
	return out
}

// bindAll binds h as every kind of hook.
func bindAll(h *engine.Hook) []engine.ResourceOption {
	var opts []engine.ResourceOption
	for _, k := range resource.HookKinds {
		opts = append(opts, engine.ResourceHooks(k, h))
	}
	return opts
}

// TestResourceHooksRunAroundEachStep: a resource's hooks run before and
// after its create, update, replacement and delete (also once the program
// no longer declares it), a component's after hooks once its outputs are
// registered, and none when nothing changes; each is told what Pulumi's
// engine tells it.
func TestResourceHooksRunAroundEachStep(t *testing.T) {
	cl := newCloud("zone")
	hl := &hookLog{cl: cl}
	audit := hl.hook("audit", false, nil)
	env := enginetest.New(t)
	env.Provider("test", "", cl.provider())
	program := func(inputs engine.Props, declared bool) engine.Program {
		return func(c *engine.Context) error {
			if !declared {
				return c.RegisterHook(audit)
			}
			c.Register(thing, "a", inputs, bindAll(audit)...)
			comp := c.Component("my:index:Group", "comp", bindAll(audit)...)
			c.RegisterOutputs(comp, engine.Props{"done": true})
			return nil
		}
	}
	steps := []struct {
		name       string
		inputs     engine.Props
		declared   bool
		a, comp    []string
		checkFirst func(t *testing.T, a resource.HookArgs)
	}{
		{"create", engine.Props{"size": 1, "zone": "x"}, true,
			[]string{"hook beforeCreate audit a", "create a", "hook afterCreate audit a"},
			[]string{"hook beforeCreate audit comp", "hook afterCreate audit comp"},
			func(t *testing.T, a resource.HookArgs) {
				want := resource.HookArgs{Kind: resource.HookBeforeCreate, URN: env.URN(thing, "a"), Name: "a", Type: thing,
					NewInputs: resource.PropertyMap{"size": resource.NewNumber(1), "zone": resource.NewString("x")}}
				if diff := cmp.Diff(want, a, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("before create (-want +got):\n%s", diff)
				}
			}},
		{"update", engine.Props{"size": 2, "zone": "x"}, true,
			[]string{"hook beforeUpdate audit a", "update a", "hook afterUpdate audit a"}, nil,
			func(t *testing.T, a resource.HookArgs) {
				if a.Kind != resource.HookBeforeUpdate || a.ID != "id-1" || !a.OldInputs["size"].DeepEquals(resource.NewNumber(1)) ||
					!a.NewInputs["size"].DeepEquals(resource.NewNumber(2)) || !a.OldOutputs["id"].DeepEquals(resource.NewString("id-1")) ||
					a.NewOutputs != nil {
					t.Errorf("before update told %+v", a)
				}
			}},
		{"unchanged", engine.Props{"size": 2, "zone": "x"}, true, nil, nil, nil},
		{"replace", engine.Props{"size": 2, "zone": "y"}, true,
			[]string{"hook beforeCreate audit a", "create a", "hook afterCreate audit a", "hook beforeDelete audit a", "delete a", "hook afterDelete audit a"}, nil,
			nil},
		{"no longer declared", nil, false,
			[]string{"hook beforeDelete audit a", "delete a", "hook afterDelete audit a"},
			[]string{"hook beforeDelete audit comp", "hook afterDelete audit comp"},
			func(t *testing.T, a resource.HookArgs) {
				if a.Kind != resource.HookBeforeDelete || a.ID != "id-2" || !a.OldInputs["zone"].DeepEquals(resource.NewString("y")) ||
					a.NewInputs != nil || !a.OldOutputs["id"].DeepEquals(resource.NewString("id-2")) {
					t.Errorf("before delete told %+v", a)
				}
			}},
	}
	for _, st := range steps {
		before := len(cl.Writes())
		hl.args = nil
		if _, err := env.Up(program(st.inputs, st.declared)); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		log := cl.Writes()[before:]
		if diff := cmp.Diff(st.a, of(log, "a"), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: a (-want +got):\n%s", st.name, diff)
		}
		if diff := cmp.Diff(st.comp, of(log, "comp"), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: comp (-want +got):\n%s", st.name, diff)
		}
		if st.checkFirst != nil {
			i := slices.IndexFunc(hl.args, func(a resource.HookArgs) bool { return a.Name == "a" })
			if i < 0 {
				t.Errorf("%s: no hook of a was called", st.name)
				continue
			}
			st.checkFirst(t, hl.args[i])
		}
		if st.name == "create" {
			for _, a := range hl.args {
				if a.Kind == resource.HookAfterCreate && a.Name == "comp" && !a.NewOutputs["done"].DeepEquals(resource.NewBool(true)) {
					t.Errorf("the after-create hook of a component was told outputs %v, want its registered outputs", a.NewOutputs)
				}
				if a.Kind == resource.HookAfterCreate && a.Name == "a" && (a.ID != "id-1" || !a.NewOutputs["id"].DeepEquals(resource.NewString("id-1"))) {
					t.Errorf("the after-create hook was told %+v", a)
				}
			}
		}
	}
}

// TestFailingHooks: a failing before hook fails its step before the
// provider is called; a failing after hook is a warning and the step
// stands.
func TestFailingHooks(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name      string
		kind      resource.HookKind
		wantErr   bool
		wantWrite []string
		recorded  bool
	}{
		{"before create", resource.HookBeforeCreate, true, []string{"hook beforeCreate h a"}, false},
		{"after create", resource.HookAfterCreate, false, []string{"create a", "hook afterCreate h a"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := newCloud()
			hl := &hookLog{cl: cl}
			env := enginetest.New(t)
			env.Provider("test", "", cl.provider())
			_, err := env.Up(func(c *engine.Context) error {
				c.Register(thing, "a", engine.Props{"size": 1}, engine.ResourceHooks(tt.kind, hl.hook("h", false, boom)))
				return nil
			})
			var he *engine.HookError
			if tt.wantErr != errors.As(err, &he) || (tt.wantErr && (!errors.Is(err, boom) || he.Name != "h" || he.URN != env.URN(thing, "a"))) {
				t.Errorf("err = %v, want a *HookError: %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.wantWrite, cl.Writes()); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
			if got := env.Resource(env.URN(thing, "a")) != nil; got != tt.recorded {
				t.Errorf("a recorded: %v, want %v", got, tt.recorded)
			}
			warned := slices.ContainsFunc(env.Events(), func(e engine.Event) bool {
				d, ok := e.(engine.DiagnosticEvent)
				return ok && d.Severity == engine.SeverityWarning && strings.Contains(d.Message, "boom")
			})
			if warned != !tt.wantErr {
				t.Errorf("a warning was reported: %v", warned)
			}
		})
	}

	t.Run("before delete", func(t *testing.T) {
		cl := newCloud()
		hl := &hookLog{cl: cl}
		guard := hl.hook("guard", false, boom)
		env := enginetest.New(t)
		env.Provider("test", "", cl.provider())
		if _, err := env.Up(func(c *engine.Context) error {
			c.Register(thing, "a", engine.Props{"size": 1}, engine.ResourceHooks(resource.HookBeforeDelete, guard))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := env.Destroy(engine.Hooks(guard)); !errors.Is(err, boom) {
			t.Errorf("destroy: %v, want the hook's failure", err)
		}
		if cl.Live() != 1 || env.Resource(env.URN(thing, "a")) == nil {
			t.Error("the resource whose before-delete hook failed was deleted")
		}
	})
}

// TestResourceHooksInPreviews: only the hooks that ask to run in previews
// do, and nothing is written.
func TestResourceHooksInPreviews(t *testing.T) {
	cl := newCloud()
	hl := &hookLog{cl: cl}
	env := enginetest.New(t)
	env.Provider("test", "", cl.provider())
	_, err := env.Preview(func(c *engine.Context) error {
		c.Register(thing, "a", engine.Props{"size": 1},
			engine.ResourceHooks(resource.HookBeforeCreate, hl.hook("quiet", false, nil), hl.hook("loud", true, nil)),
			engine.ResourceHooks(resource.HookAfterCreate, hl.hook("loud", true, nil)))
		return nil
	})
	// Two hooks named "loud" are two hooks: refused.
	if err == nil || !strings.Contains(err.Error(), `"loud"`) {
		t.Fatalf("two hooks of one name: err = %v", err)
	}
	loud := hl.hook("loud", true, nil)
	if _, err := env.Preview(func(c *engine.Context) error {
		c.Register(thing, "a", engine.Props{"size": 1},
			engine.ResourceHooks(resource.HookBeforeCreate, hl.hook("quiet", false, nil), loud),
			engine.ResourceHooks(resource.HookAfterCreate, loud))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{"hook beforeCreate loud a", "hook afterCreate loud a"}
	if diff := cmp.Diff(want, cl.Writes()); diff != "" {
		t.Errorf("preview (-want +got):\n%s", diff)
	}
}

// TestDestroyNeedsTheHooksItRuns: a destroy that does not know the hooks
// recorded with the resources it would delete deletes nothing; given them,
// it runs them.
func TestDestroyNeedsTheHooksItRuns(t *testing.T) {
	cl := newCloud()
	hl := &hookLog{cl: cl}
	audit := hl.hook("audit", false, nil)
	env := enginetest.New(t)
	env.Provider("test", "", cl.provider())
	if _, err := env.Up(func(c *engine.Context) error {
		c.Register(thing, "a", engine.Props{"size": 1}, engine.ResourceHooks(resource.HookAfterDelete, audit))
		c.Register(thing, "b", engine.Props{"size": 1})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	_, err := env.Destroy()
	var unknown *engine.UnknownHookError
	if !errors.As(err, &unknown) || unknown.Name != "audit" {
		t.Errorf("destroy without the hook: %v, want an *UnknownHookError", err)
	}
	if cl.Live() != 2 {
		t.Errorf("%d resources live, want 2: nothing deleted", cl.Live())
	}
	if _, err := env.Destroy(engine.Hooks(audit)); err != nil {
		t.Fatal(err)
	}
	if got := of(cl.Writes(), "a"); !cmp.Equal(got, []string{"create a", "delete a", "hook afterDelete audit a"}) {
		t.Errorf("a: %v", got)
	}
}

// TestDeleteHooksRegisteredLate: the delete hooks of a resource the program
// no longer declares may reach the engine after the program has finished
// (Pulumi's Go SDK registers hooks from goroutines of its own); the engine
// waits for them, saying so, and runs them around the delete rather than
// failing it.
func TestDeleteHooksRegisteredLate(t *testing.T) {
	cl := newCloud()
	hl := &hookLog{cl: cl}
	audit := hl.hook("audit", false, nil)
	env := enginetest.New(t)
	env.Provider("test", "", cl.provider())
	if _, err := env.Up(func(c *engine.Context) error {
		c.Register(thing, "a", engine.Props{"size": 1},
			engine.ResourceHooks(resource.HookBeforeDelete, audit), engine.ResourceHooks(resource.HookAfterDelete, audit))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(stop)
	_, err := env.Up(func(c *engine.Context) error {
		// The hook is registered only once the engine waits for it, after
		// the program has returned.
		wg.Go(func() {
			tick := time.NewTicker(time.Millisecond)
			defer tick.Stop()
			for !waitingFor(env, "audit") {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
			}
			if err := c.RegisterHook(audit); err != nil {
				t.Errorf("registering the hook: %v", err)
			}
		})
		return nil
	})
	if err != nil {
		t.Fatalf("the delete failed: %v", err)
	}
	want := []string{"create a", "hook beforeDelete audit a", "delete a", "hook afterDelete audit a"}
	if got := of(cl.Writes(), "a"); !cmp.Equal(got, want) {
		t.Errorf("a: %v, want %v", got, want)
	}
}

// TestHookNamedByARegistrationRegisteredLate: a registration may name a
// hook whose own registration has not reached the engine yet (an SDK
// sends them apart); the step waits for it and runs it.
func TestHookNamedByARegistrationRegisteredLate(t *testing.T) {
	cl := newCloud()
	hl := &hookLog{cl: cl}
	audit := hl.hook("audit", false, nil)
	env := enginetest.New(t)
	env.Provider("test", "", cl.provider())
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(stop)
	_, err := env.Up(func(c *engine.Context) error {
		wg.Go(func() {
			tick := time.NewTicker(time.Millisecond)
			defer tick.Stop()
			for !waitingFor(env, "audit") {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
			}
			if err := c.RegisterHook(audit); err != nil {
				t.Errorf("registering the hook: %v", err)
			}
		})
		_, err := c.Monitor().RegisterResource(c.Context(), resource.Goal{Type: thing, Name: "a", Custom: true,
			Inputs: resource.PropertyMap{"size": resource.NewNumber(1)},
			Hooks:  resource.Hooks{resource.HookBeforeCreate: {"audit"}, resource.HookAfterCreate: {"audit"}}})
		return err
	})
	if err != nil {
		t.Fatalf("the create failed: %v", err)
	}
	want := []string{"hook beforeCreate audit a", "create a", "hook afterCreate audit a"}
	if got := of(cl.Writes(), "a"); !cmp.Equal(got, want) {
		t.Errorf("a: %v, want %v", got, want)
	}
}

// waitingFor reports whether the last operation said it waits for the
// program to register the hook name.
func waitingFor(env *enginetest.Env, name string) bool {
	for _, e := range env.Events() {
		if d, ok := e.(engine.DiagnosticEvent); ok && strings.Contains(d.Message, fmt.Sprintf("register the hook %q", name)) {
			return true
		}
	}
	return false
}
