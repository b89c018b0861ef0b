package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

const (
	project = "bench"
	stack   = "bench"
	pkg     = "bench"
	thing   = "bench:index:Thing"
)

// bench is one child process's stack: a store and the provider the
// workload serves its resources with.
type bench struct {
	s     spec
	store state.Store
	prov  providers.Provider
	// dag is W5's graph: deps[i] are the resources i depends on.
	deps [][]int
	// order checks W5's provider calls.
	order *orderCheck
	// took records how long each W2 Create took, by resource name;
	// spans when each began and ended.
	took  sync.Map
	spans sync.Map
	// opStart and opEnd bracket W2's operation.
	opStart, opEnd time.Time
}

// span is when one provider call began and ended.
type span struct{ start, end time.Time }

func newBench(s spec) (*bench, error) {
	b := &bench{s: s}
	switch s.Store {
	case "file":
		st, err := filestore.New(s.Dir)
		if err != nil {
			return nil, err
		}
		b.store = st
	case "memory":
		b.store = memstore.New()
	case "postgres":
		st, err := openPostgres(s)
		if err != nil {
			return nil, err
		}
		b.store = st
	default:
		return nil, fmt.Errorf("unknown store %q", s.Store)
	}
	return b, nil
}

func (b *bench) engine() (*engine.Engine, error) {
	return engine.New(engine.Config{
		Project: project, Stack: stack, Store: b.store,
		Providers: func() *providers.Registry {
			r := providers.NewRegistry()
			p := b.prov
			_ = r.RegisterFactory(pkg, "1.0.0", func(context.Context) (providers.Provider, error) { return p, nil })
			return r
		},
	})
}

func (b *bench) up(program engine.Program) (*engine.Result, error) {
	eng, err := b.engine()
	if err != nil {
		return nil, err
	}
	ctx, cancel := b.context()
	defer cancel()
	return eng.Up(ctx, program)
}

func (b *bench) preview(program engine.Program) (*engine.Result, error) {
	eng, err := b.engine()
	if err != nil {
		return nil, err
	}
	ctx, cancel := b.context()
	defer cancel()
	return eng.Preview(ctx, program)
}

func (b *bench) destroy() (*engine.Result, error) {
	eng, err := b.engine()
	if err != nil {
		return nil, err
	}
	ctx, cancel := b.context()
	defer cancel()
	return eng.Destroy(ctx)
}

// context is the operation's context: one that cannot be cancelled, or
// with -cancellable one that can (and is not).
func (b *bench) context() (context.Context, context.CancelFunc) {
	if b.s.Cancellable {
		return context.WithCancel(context.Background())
	}
	return context.Background(), func() {}
}

// snapshotSize is the size of the stack's stored snapshot (none for the
// memory store).
func (b *bench) snapshotSize() int64 {
	switch b.s.Store {
	case "postgres":
		return pgSnapshotSize(b.s)
	case "file":
	default:
		return 0
	}
	fi, err := os.Stat(filepath.Join(b.s.Dir, project, stack, "snapshot.json"))
	if err != nil {
		return 0
	}
	return fi.Size()
}

// extra is what a workload reports beyond time, memory and bytes.
type extra struct {
	bound time.Duration
	// providerPath is the time the provider itself took along the
	// operation's longest chain (W2): what the bound assumes is exactly
	// the sleep, the timer's lateness included.
	providerPath time.Duration
	// beforeFirst is, for W2, the time from the operation's start to the
	// first Create, and afterLast from the last Create's end to the
	// operation's end: the engine's fixed costs, apart from what it adds
	// between the levels of the chains.
	beforeFirst, afterLast time.Duration
	antichains             int
	orderOK                *bool
}

// workload is one of the workloads.
type workload struct {
	name     string
	ops      []string
	smallN   int
	fileOnly bool
	// flatProgram says the workload runs W1's program (see flatAllocs).
	flatProgram bool
	// provider builds the workload's provider for b.
	provider func(b *bench) providers.Provider
	// setup brings the stack to the state op starts from.
	setup0 func(b *bench, op string) error
	// run performs op (the timed part) and returns a check of its result.
	run func(b *bench, op string) (*engine.Result, error)
	// check verifies the result after the clock has stopped.
	check func(b *bench, op string, res *engine.Result) (extra, error)
}

var workloads = []*workload{w1, w2, w3, w4, w5}

func findWorkload(name string) *workload {
	for _, w := range workloads {
		if w.name == name || w.name == upper(name) {
			return w
		}
	}
	return nil
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func (w *workload) hasOp(op string) bool { return slices.Contains(w.ops, op) }

// needsSetup reports whether op starts from a stack that must be prepared.
func (w *workload) needsSetup(op string) bool { return op != "create" }

// programAllocs counts the allocations the workload's program makes on its
// own, beside the engine's.
func (w *workload) programAllocs(b *bench) uint64 {
	if w.flatProgram && b.s.Op != "destroy" {
		return flatAllocs(b.s.N)
	}
	return 0
}

func (w *workload) prepare(b *bench) {
	if b.prov == nil {
		b.prov = w.provider(b)
	}
}

func (w *workload) setup(b *bench, op string) error {
	w.prepare(b)
	return w.setup0(b, op)
}

func (w *workload) measure(b *bench, op string) (extra, time.Duration, error) {
	w.prepare(b)
	start := time.Now()
	res, err := w.run(b, op)
	took := time.Since(start)
	if err != nil {
		return extra{}, took, err
	}
	x, err := w.check(b, op, res)
	return x, took, err
}

// W1: n independent resources of one type, four small string inputs each,
// a no-op provider.

var w1 = &workload{
	name: "W1", ops: []string{"create", "same", "preview-update", "update", "destroy"}, smallN: 1000, flatProgram: true,
	provider: func(*bench) providers.Provider { return noop() },
	setup0: func(b *bench, op string) error {
		_, err := b.up(flat(b.s.N, 0))
		return err
	},
	run:   runFlat,
	check: checkFlat,
}

// W3: W1's create with the file store, for the bytes it writes.
var w3 = &workload{
	name: "W3", ops: []string{"create"}, smallN: 1000, fileOnly: true, flatProgram: true,
	provider: func(*bench) providers.Provider { return noop() },
	setup0:   func(*bench, string) error { return nil },
	run:      runFlat,
	check:    checkFlat,
}

func runFlat(b *bench, op string) (*engine.Result, error) {
	switch op {
	case "create", "same":
		return b.up(flat(b.s.N, 0))
	case "preview-update":
		return b.preview(flat(b.s.N, 1))
	case "update":
		return b.up(flat(b.s.N, 1))
	case "destroy":
		return b.destroy()
	}
	return nil, fmt.Errorf("unknown operation %q", op)
}

func checkFlat(b *bench, op string, res *engine.Result) (extra, error) {
	want := map[string]engine.StepOp{
		"create": engine.StepCreate, "same": engine.StepSame, "preview-update": engine.StepUpdate,
		"update": engine.StepUpdate, "destroy": engine.StepDelete,
	}[op]
	return extra{}, expectCount(res, want, b.s.N)
}

func expectCount(res *engine.Result, op engine.StepOp, n int) error {
	got := 0
	for _, s := range res.Steps {
		if s.Op == op && s.URN.Type() == thing {
			got++
		}
	}
	if got != n {
		return fmt.Errorf("expected %d %s steps of %s, got %d (counts %v)", n, op, thing, got, res.Counts)
	}
	return nil
}

// flat is W1's program: n independent resources whose inputs depend on gen.
func flat(n, gen int) engine.Program {
	suffix := "-" + strconv.Itoa(gen)
	return func(ctx *engine.Context) error {
		for i := range n {
			name, props := flatResource(i, suffix)
			ctx.Register(thing, name, props)
		}
		return nil
	}
}

// flatResource is the name and inputs of W1's i-th resource.
func flatResource(i int, suffix string) (string, engine.Props) {
	name := "r" + strconv.Itoa(i)
	return name, engine.Props{
		"alpha": "a-" + name + suffix,
		"beta":  "b-" + name + suffix,
		"gamma": "c" + suffix,
		"delta": "d" + suffix,
	}
}

// flatAllocs counts the allocations flat's program makes on its own for n
// resources: building the names and inputs, without registering them.
func flatAllocs(n int) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range n {
		name, props := flatResource(i, "-1")
		sink = len(name) + len(props)
	}
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}

var sink int

// noop is the no-op provider: Create returns an ID and echoes the inputs,
// Diff reports no change when the inputs are equal, Update echoes the new
// inputs, Delete does nothing.
func noop() *providers.Func {
	return &providers.Func{
		CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			return providers.CreateResponse{ID: resource.ID("id-" + req.URN.Name()), Outputs: req.Inputs}, nil
		},
		DiffF: func(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
			if req.OldInputs.DeepEquals(req.NewInputs) {
				return providers.DiffResponse{Changes: resource.DiffNone}, nil
			}
			return providers.DiffResponse{Changes: resource.DiffSome}, nil
		},
		UpdateF: func(_ context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
			return providers.UpdateResponse{Outputs: req.NewInputs}, nil
		},
	}
}

// W2: makespan. Independent chains of depth 10, each resource taking the
// previous one's output as input; Create sleeps 20 ms; no parallelism
// bound. The floor is depth × 20 ms.

const (
	w2Depth = 10
	w2Sleep = 20 * time.Millisecond
)

var w2 = &workload{
	name: "W2", ops: []string{"create"}, smallN: 200,
	provider: func(b *bench) providers.Provider {
		p := noop()
		p.CreateF = func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			start := time.Now()
			if err := sleep(ctx, w2Sleep); err != nil {
				return providers.CreateResponse{}, err
			}
			end := time.Now()
			b.took.Store(req.URN.Name(), end.Sub(start))
			b.spans.Store(req.URN.Name(), span{start, end})
			return providers.CreateResponse{ID: resource.ID("id-" + req.URN.Name()), Outputs: req.Inputs}, nil
		}
		return p
	},
	setup0: func(*bench, string) error { return nil },
	run: func(b *bench, _ string) (*engine.Result, error) {
		chains := max(b.s.N/w2Depth, 1)
		b.opStart = time.Now()
		defer func() { b.opEnd = time.Now() }()
		return b.up(func(ctx *engine.Context) error {
			for c := range chains {
				var prev engine.Output[resource.PropertyValue]
				for d := range w2Depth {
					props := engine.Props{"out": fmt.Sprintf("c%d-d%d", c, d)}
					if d > 0 {
						props["in"] = prev
					}
					prev = ctx.Register(thing, fmt.Sprintf("c%d-d%d", c, d), props).Output("out")
				}
			}
			return nil
		})
	},
	check: func(b *bench, _ string, res *engine.Result) (extra, error) {
		chains := max(b.s.N/w2Depth, 1)
		var path time.Duration
		for c := range chains {
			var sum time.Duration
			for d := range w2Depth {
				if t, ok := b.took.Load(fmt.Sprintf("c%d-d%d", c, d)); ok {
					sum += t.(time.Duration)
				}
			}
			path = max(path, sum)
		}
		var first, last time.Time
		b.spans.Range(func(_, v any) bool {
			sp := v.(span)
			if first.IsZero() || sp.start.Before(first) {
				first = sp.start
			}
			if sp.end.After(last) {
				last = sp.end
			}
			return true
		})
		return extra{
			bound: w2Depth * w2Sleep, providerPath: path,
			beforeFirst: first.Sub(b.opStart), afterLast: b.opEnd.Sub(last),
		}, expectCount(res, engine.StepCreate, chains*w2Depth)
	},
}

// W4: n unchanged resources whose provider's Check and Diff each sleep
// 5 ms. The floor is one Check and one Diff: 10 ms.

const w4Sleep = 5 * time.Millisecond

var w4 = &workload{
	name: "W4", ops: []string{"same"}, smallN: 1000, flatProgram: true,
	provider: func(*bench) providers.Provider {
		p := noop()
		p.CheckF = func(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
			return providers.CheckResponse{Inputs: req.News}, sleep(ctx, w4Sleep)
		}
		diff := p.DiffF
		p.DiffF = func(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
			if err := sleep(ctx, w4Sleep); err != nil {
				return providers.DiffResponse{}, err
			}
			return diff(ctx, req)
		}
		return p
	},
	setup0: func(b *bench, _ string) error {
		_, err := b.up(flat(b.s.N, 0))
		return err
	},
	run: func(b *bench, _ string) (*engine.Result, error) { return b.up(flat(b.s.N, 0)) },
	check: func(b *bench, _ string, res *engine.Result) (extra, error) {
		return extra{bound: 2 * w4Sleep}, expectCount(res, engine.StepSame, b.s.N)
	},
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
