package wiring_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/examples/wiring"
	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// Example deploys a and b, b needing a's ID, with a provider that creates
// them.
func Example() {
	ctx := context.Background()
	reg := providers.NewRegistry()
	_ = reg.RegisterFactory("demo", "1.0.0", func(context.Context) (providers.Provider, error) {
		return &providers.Func{CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			fmt.Println("create", req.URN.Name())
			return providers.CreateResponse{ID: resource.ID("id-" + req.URN.Name()), Outputs: req.Inputs}, nil
		}}, nil
	})
	err := wiring.Up(ctx, reg, nil, func(m *monitor.Monitor) error {
		a, err := m.RegisterResource(ctx, resource.Goal{Type: "demo:index:Thing", Name: "a", Custom: true})
		if err == nil {
			_, err = m.RegisterResource(ctx, resource.Goal{Type: "demo:index:Thing", Name: "b", Custom: true,
				Inputs: resource.PropertyMap{"peer": resource.NewString(string(a.ID))}, Dependencies: []resource.URN{a.URN}})
		}
		return err
	})
	fmt.Println(err)
	// Output:
	// create a
	// create b
	// <nil>
}

// thing is a resource of a program: its name, the names of the resources it
// depends on, and its inputs (a change of "r" replaces it, of anything else
// updates it).
type thing struct {
	name string
	deps []string
	in   map[string]any
	dbr  bool // deleted before it is replaced
}

// op is one provider operation on a resource, and when it started and
// ended on the ledger's clock.
type op struct {
	name       string // "create a"
	start, end int
}

// ledger records the operations a provider is asked for.
type ledger struct {
	mu    sync.Mutex
	clock int
	ops   []op
}

// do records op around fn; the operation takes a little while, so that
// operations that may overlap do.
func (l *ledger) do(name string, fn func()) {
	l.mu.Lock()
	l.clock++
	i := len(l.ops)
	l.ops = append(l.ops, op{name: name, start: l.clock})
	l.mu.Unlock()
	time.Sleep(time.Millisecond)
	fn()
	l.mu.Lock()
	l.clock++
	l.ops[i].end = l.clock
	l.mu.Unlock()
}

func (l *ledger) provider() providers.Provider {
	return &providers.Func{
		DiffF: func(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
			d := providers.DiffInputs(req.OldInputs, req.NewInputs)
			if !req.OldInputs["r"].DeepEquals(req.NewInputs["r"]) {
				d.ReplaceKeys = []resource.PropertyKey{"r"}
			}
			return d, nil
		},
		CreateF: func(_ context.Context, req providers.CreateRequest) (resp providers.CreateResponse, err error) {
			l.do("create "+req.URN.Name(), func() {})
			return providers.CreateResponse{ID: resource.ID("id-" + req.URN.Name()), Outputs: req.Inputs}, nil
		},
		UpdateF: func(_ context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
			l.do("update "+req.URN.Name(), func() {})
			return providers.UpdateResponse{Outputs: req.NewInputs}, nil
		},
		DeleteF: func(_ context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
			l.do("delete "+req.URN.Name(), func() {})
			return providers.DeleteResponse{}, nil
		},
	}
}

// run registers things through m, each once what it depends on is
// registered, concurrently as a program's registrations come.
func run(ctx context.Context, m *monitor.Monitor, things []thing) error {
	var mu sync.Mutex
	urns := map[string]resource.URN{}
	registered := map[string]chan struct{}{}
	for _, t := range things {
		registered[t.name] = make(chan struct{})
	}
	errs := make(chan error, len(things))
	for _, t := range things {
		go func() {
			defer close(registered[t.name])
			in, err := resource.NewPropertyMapFromMap(t.in)
			if err != nil {
				errs <- err
				return
			}
			goal := resource.Goal{Type: "test:index:Thing", Name: t.name, Custom: true, Inputs: in, DeleteBeforeReplace: t.dbr}
			for _, d := range t.deps {
				<-registered[d]
				mu.Lock()
				goal.Dependencies = append(goal.Dependencies, urns[d])
				mu.Unlock()
			}
			res, err := m.RegisterResource(ctx, goal)
			mu.Lock()
			urns[t.name] = res.URN
			mu.Unlock()
			errs <- err
		}()
	}
	for range things {
		if err := <-errs; err != nil {
			return err
		}
	}
	return nil
}

// TestWiringOrdersAsEngineUp runs the same programs one after another with
// engine.Up and with wiring.Up, each from the state engine.Up left, and
// compares the provider operations: the same ones on each resource, in the
// same order, and the same order between the operations on resources that
// depend on one another. (Operations on independent resources run in
// whatever order the schedule gives; that is not compared.)
func TestWiringOrdersAsEngineUp(t *testing.T) {
	stages := [][]thing{
		{
			{name: "a", in: map[string]any{"v": 1}},
			{name: "b", deps: []string{"a"}, in: map[string]any{"r": 1}},
			{name: "c", deps: []string{"b"}},
			{name: "d"},
			{name: "e", deps: []string{"a", "d"}},
		},
		{
			{name: "a", in: map[string]any{"v": 2}},                                 // updated
			{name: "b", deps: []string{"a"}, in: map[string]any{"r": 2}},            // replaced
			{name: "c", deps: []string{"b"}, in: map[string]any{"r": 1}, dbr: true}, // replaced, deleted first
			{name: "e", deps: []string{"a"}, in: map[string]any{"v": 1}},            // updated; d deleted
			{name: "f", deps: []string{"b"}},                                        // created
		},
		{}, // everything deleted
	}
	env := enginetest.New(t)
	env.Project = "wiring"
	engineOps := &ledger{}
	env.Provider("test", "", engineOps.provider())
	ctx := context.Background()
	for i, things := range stages {
		snap, err := env.Store.Load(ctx, env.StackID())
		if err != nil {
			t.Fatal(err)
		}
		old := snap.Resources
		engineOps.ops = nil
		if _, err := env.Up(func(c *engine.Context) error { return run(c.Context(), c.Monitor(), things) }); err != nil {
			t.Fatalf("stage %d: engine.Up: %v", i, err)
		}
		wiredOps := &ledger{}
		reg := providers.NewRegistry()
		if err := reg.RegisterFactory("test", "1.0.0", func(context.Context) (providers.Provider, error) { return wiredOps.provider(), nil }); err != nil {
			t.Fatal(err)
		}
		if err := wiring.Up(ctx, reg, old, func(m *monitor.Monitor) error { return run(ctx, m, things) }); err != nil {
			t.Fatalf("stage %d: wiring.Up: %v", i, err)
		}
		compare(t, i, related(old, things), engineOps.ops, wiredOps.ops)
	}
}

// related returns the pairs of resource names that depend on one another,
// in the old state or in the program.
func related(old []*resource.State, things []thing) map[[2]string]bool {
	out := map[[2]string]bool{}
	add := func(a, b string) { out[[2]string{a, b}], out[[2]string{b, a}] = true, true }
	for _, s := range old {
		for _, d := range s.Dependencies {
			add(s.URN.Name(), d.Name())
		}
	}
	for _, th := range things {
		for _, d := range th.deps {
			add(th.name, d)
		}
	}
	return out
}

// compare checks that two ledgers hold the same operations on each
// resource in the same order, and order the operations on related
// resources alike.
func compare(t *testing.T, stage int, related map[[2]string]bool, engineOps, wiredOps []op) {
	t.Helper()
	index := func(ops []op) map[string]op { // "create a#0" → the op
		out, seen := map[string]op{}, map[string]int{}
		for _, o := range ops {
			out[fmt.Sprintf("%s#%d", o.name, seen[o.name])] = o
			seen[o.name]++
		}
		return out
	}
	perResource := func(ops []op) map[string][]string {
		out := map[string][]string{}
		for _, o := range slices.SortedFunc(slices.Values(ops), func(a, b op) int { return a.start - b.start }) {
			res := o.name[strings.IndexByte(o.name, ' ')+1:]
			out[res] = append(out[res], o.name)
		}
		return out
	}
	if e, w := perResource(engineOps), perResource(wiredOps); fmt.Sprint(e) != fmt.Sprint(w) {
		t.Fatalf("stage %d: operations per resource differ:\nengine.Up  %v\nwiring.Up  %v", stage, e, w)
	}
	if len(engineOps) == 0 {
		t.Fatalf("stage %d: no operations", stage)
	}
	e, w := index(engineOps), index(wiredOps)
	for x, ex := range e {
		for y, ey := range e {
			rx, ry := ex.name[strings.IndexByte(ex.name, ' ')+1:], ey.name[strings.IndexByte(ey.name, ' ')+1:]
			if x == y || !related[[2]string{rx, ry}] {
				continue
			}
			if before, wired := ex.end < ey.start, w[x].end < w[y].start; before != wired {
				t.Errorf("stage %d: %s before %s: engine.Up %t, wiring.Up %t", stage, x, y, before, wired)
			}
		}
	}
}

// A registration's done may register again at once: Up answers
// registrations outside its lock, so a done that calls the Monitor back
// (as a program's chained registrations do) does not deadlock.
func TestDoneMayRegisterAgain(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	reg := providers.NewRegistry()
	if err := reg.RegisterFactory("test", "1.0.0", func(context.Context) (providers.Provider, error) { return (&ledger{}).provider(), nil }); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		errc <- wiring.Up(ctx, reg, nil, func(m *monitor.Monitor) error {
			second := make(chan error, 1)
			first := &resource.Goal{Type: "test:index:Thing", Name: "first", Custom: true}
			m.RegisterResourceAsync(ctx, first, func(res providers.RegisterResult, err error) {
				if err != nil {
					second <- err
					return
				}
				next := &resource.Goal{Type: "test:index:Thing", Name: "second", Custom: true, Dependencies: []resource.URN{res.URN}}
				m.RegisterResourceAsync(ctx, next, func(_ providers.RegisterResult, err error) { second <- err })
			})
			select {
			case err := <-second:
				return err
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("Up = %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Up deadlocked: a done that registered again never returned")
	}
}
