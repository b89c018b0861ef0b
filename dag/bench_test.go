package dag_test

import (
	"context"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/dag"
)

// BenchmarkWalk10k adds 10,000 vertices, each needing one added long
// before it (as a registration needs its provider and parent), and waits
// for them. One op is the whole walk; visits do nothing.
func BenchmarkWalk10k(b *testing.B) {
	const n = 10_000
	for _, c := range []struct {
		name string
		opts dag.Options[int]
	}{
		{"unbounded", dag.Options[int]{}},
		{"parallelism=8", dag.Options[int]{Parallelism: 8}},
		{"declared", dag.Options[int]{DeclaredBlocking: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				opts := c.opts
				opts.Visit = func(context.Context, *int) error { return nil }
				w := dag.New(opts)
				for i := range n {
					v := dag.Vertex[int]{ID: uint64(i + 1), Value: i}
					if i > 0 {
						v.Needs = []uint64{1}
					}
					if err := w.Add(ctx, v); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Wait(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/vertex")
		})
	}
}

// BenchmarkSleepyChains walks 20 independent chains of 10 vertices that
// each sleep 20ms, unbounded. The ideal is 200ms; the "x-ideal" metric is
// how many times that a walk took, so scheduling overhead shows as its
// excess over 1.
func BenchmarkSleepyChains(b *testing.B) {
	const chains, depth, sleep = 20, 10, 20 * time.Millisecond
	visit := func(ctx context.Context, _ *int) error {
		t := time.NewTimer(sleep)
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	ctx := context.Background()
	for b.Loop() {
		w := dag.New(dag.Options[int]{Visit: visit})
		for c := range chains {
			for d := range depth {
				id := uint64(c*depth + d + 1)
				v := dag.Vertex[int]{ID: id}
				if d > 0 {
					v.Needs = []uint64{id - 1}
				}
				if err := w.Add(ctx, v); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := w.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	ideal := float64(depth * sleep)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/ideal, "x-ideal")
}

// BenchmarkWalkPaced adds 10,000 vertices that need nothing, doing about
// as much work between two Adds as the engine's loop does between two
// steps, so that visits and adds overlap as they do in a deployment.
func BenchmarkWalkPaced(b *testing.B) {
	const n = 10_000
	ctx := context.Background()
	var sink int
	b.ReportAllocs()
	for b.Loop() {
		w := dag.New(dag.Options[int]{Visit: func(_ context.Context, v *int) error {
			for i := range 200 {
				sink += i ^ *v
			}
			return nil
		}})
		for i := range n {
			for j := range 1000 {
				sink += j
			}
			if err := w.Add(ctx, dag.Vertex[int]{ID: uint64(i + 1), Value: i}); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/vertex")
}

// BenchmarkWalkParked10k walks 10,000 independent vertices whose visit
// parks twice, as a step does for its begin and end entries in the
// journal, each wait resuming it at once.
func BenchmarkWalkParked10k(b *testing.B) {
	const n = 10_000
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		w := dag.New(dag.Options[int]{Visit: func(_ context.Context, parks *int) error {
			if *parks == 2 {
				return nil
			}
			*parks++
			return dag.Park(func(resume func()) { resume() })
		}})
		for i := range n {
			if err := w.Add(ctx, dag.Vertex[int]{ID: uint64(i + 1)}); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/vertex")
}

// BenchmarkBurst walks 10,000 vertices that all become ready at once, when
// the one they need ends, and whose visits allocate as a step's do, with
// and without DeclaredBlocking. The "workers" metric is the most worker
// goroutines the walk had at once.
func BenchmarkBurst(b *testing.B) {
	const n = 10_000
	for _, declared := range []bool{false, true} {
		b.Run(map[bool]string{false: "default", true: "declared"}[declared], func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			peak := 0
			for b.Loop() {
				release := make(chan struct{})
				w := dag.New(dag.Options[int]{DeclaredBlocking: declared, Visit: func(ctx context.Context, v *int) error {
					if *v < 0 {
						defer dag.Blocking(ctx)()
						<-release
						return nil
					}
					work()
					return nil
				}})
				if err := w.Add(ctx, dag.Vertex[int]{ID: n + 1, Value: -1}); err != nil {
					b.Fatal(err)
				}
				for i := range n {
					if err := w.Add(ctx, dag.Vertex[int]{ID: uint64(i + 1), Needs: []uint64{n + 1}}); err != nil {
						b.Fatal(err)
					}
				}
				close(release)
				if err := w.Wait(); err != nil {
					b.Fatal(err)
				}
				peak = max(peak, dag.PeakWorkers(w))
			}
			b.ReportMetric(float64(peak), "workers")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/vertex")
		})
	}
}
