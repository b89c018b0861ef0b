package executor_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/executor"
	"github.com/groundwork-iac/groundwork/resource"
)

// nopStep is a step that does nothing: the benchmarks measure the executor,
// not the work.
type nopStep resource.URN

func (s nopStep) URN() resource.URN             { return resource.URN(s) }
func (nopStep) Apply(ctx context.Context) error { return nil }

// sleepStep sleeps, standing in for a provider call.
type sleepStep struct {
	urn resource.URN
	d   time.Duration
}

func (s *sleepStep) URN() resource.URN { return s.urn }
func (s *sleepStep) Apply(ctx context.Context) error {
	t := time.NewTimer(s.d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// BenchmarkExecute10k submits 10,000 single-step chains and waits for them.
// One op is the whole batch; the steps, chains and hooks are built once.
func BenchmarkExecute10k(b *testing.B) {
	const n = 10_000
	chains := make([]executor.Chain, n)
	for i := range chains {
		chains[i] = executor.Chain{Steps: []executor.Step{nopStep(u(fmt.Sprint("r", i)))}}
	}
	for _, parallelism := range []int{0, 8} {
		b.Run(fmt.Sprintf("parallelism=%d", parallelism), func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				e := executor.New(executor.Options{Parallelism: parallelism})
				for _, c := range chains {
					if err := e.Execute(ctx, c); err != nil {
						b.Fatal(err)
					}
				}
				if err := e.Wait(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/chain")
		})
	}
}

// BenchmarkSleepyChains runs 20 independent chains of 10 steps that each
// sleep 20ms, unbounded. The ideal is 200ms; the "x-ideal" metric is how
// many times that a run took, so scheduling overhead shows as its excess
// over 1.
func BenchmarkSleepyChains(b *testing.B) {
	const chains, depth, sleep = 20, 10, 20 * time.Millisecond
	cs := make([]executor.Chain, chains)
	for i := range cs {
		for j := range depth {
			cs[i].Steps = append(cs[i].Steps, &sleepStep{urn: u(fmt.Sprintf("r%d-%d", i, j)), d: sleep})
		}
	}
	ctx := context.Background()
	for b.Loop() {
		e := executor.New(executor.Options{})
		for _, c := range cs {
			if err := e.Execute(ctx, c); err != nil {
				b.Fatal(err)
			}
		}
		if err := e.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	ideal := float64(depth * sleep)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/ideal, "x-ideal")
}
