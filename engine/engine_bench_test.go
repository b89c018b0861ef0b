package engine_test

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// The benchmarks in this file measure whole operations, in process, the
// way the workloads of ./bench do (see BENCHMARKS.md). Figures are per
// operation; allocs/resource is the heap allocations of the operation
// (engine, store, program and provider together) divided by the number of
// resources.

// noopProvider creates by echoing its inputs and reports no change for
// equal inputs.
func noopProvider() *providers.Func {
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
	}
}

// independent declares n resources with four small string inputs each and
// no dependencies among them.
func independent(n int) engine.Program {
	return func(ctx *engine.Context) error {
		for i := range n {
			name := "r" + strconv.Itoa(i)
			ctx.Register("bench:index:Thing", name, engine.Props{
				"alpha": "a-" + name, "beta": "b-" + name, "gamma": "c", "delta": "d",
			})
		}
		return nil
	}
}

func benchEngine(b *testing.B, store state.Store, p providers.Provider) *engine.Engine {
	eng, err := engine.New(engine.Config{
		Project: "bench", Stack: "bench", Store: store,
		Providers: func() *providers.Registry {
			r := providers.NewRegistry()
			if err := r.RegisterFactory("bench", "1.0.0", func(context.Context) (providers.Provider, error) { return p, nil }); err != nil {
				b.Fatal(err)
			}
			return r
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	return eng
}

func newStore(b *testing.B, kind string) state.Store {
	if kind == "memory" {
		return memstore.New()
	}
	s, err := filestore.New(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkUp10k runs Up of 10,000 independent resources against a no-op
// function provider: the first run (10,000 creates from an empty stack)
// and a rerun that changes nothing, with the in-memory store and with the
// file store (journal fsyncs included, group commit).
func BenchmarkUp10k(b *testing.B) {
	const n = 10_000
	for _, kind := range []string{"memory", "file"} {
		for _, rerun := range []bool{false, true} {
			name := "store=" + kind + "/run=first"
			if rerun {
				name = "store=" + kind + "/run=rerun"
			}
			b.Run(name, func(b *testing.B) {
				ctx := context.Background()
				program := independent(n)
				var mallocs uint64
				for range b.N {
					b.StopTimer()
					eng := benchEngine(b, newStore(b, kind), noopProvider())
					if rerun {
						if _, err := eng.Up(ctx, program); err != nil {
							b.Fatal(err)
						}
					}
					runtime.GC()
					var before, after runtime.MemStats
					runtime.ReadMemStats(&before)
					b.StartTimer()
					res, err := eng.Up(ctx, program)
					b.StopTimer()
					runtime.ReadMemStats(&after)
					mallocs += after.Mallocs - before.Mallocs
					if err != nil {
						b.Fatal(err)
					}
					if !rerun && res.Counts["create"] < n || rerun && res.Counts["same"] < n {
						b.Fatalf("unexpected steps: %v", res.Counts)
					}
					b.StartTimer()
				}
				b.ReportMetric(float64(mallocs)/float64(b.N*n), "allocs/resource")
			})
		}
	}
}

// BenchmarkSlowCheckDiff1k reruns Up of 1,000 unchanged resources whose
// provider's Check and Diff each take 5 ms. Called one after another they
// would take 10 s; the floor is one Check and one Diff, 10 ms, reported as
// x-floor.
func BenchmarkSlowCheckDiff1k(b *testing.B) {
	const n = 1000
	const delay = 5 * time.Millisecond
	ctx := context.Background()
	sleep := func(ctx context.Context) error {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	p := noopProvider()
	p.CheckF = func(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
		return providers.CheckResponse{Inputs: req.News}, sleep(ctx)
	}
	diff := p.DiffF
	p.DiffF = func(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
		if err := sleep(ctx); err != nil {
			return providers.DiffResponse{}, err
		}
		return diff(ctx, req)
	}
	eng := benchEngine(b, memstore.New(), p)
	program := independent(n)
	if _, err := eng.Up(ctx, program); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		res, err := eng.Up(ctx, program)
		if err != nil {
			b.Fatal(err)
		}
		if res.Counts["same"] < n {
			b.Fatalf("unexpected steps: %v", res.Counts)
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(2*delay), "x-floor")
}
