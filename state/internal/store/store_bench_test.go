package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// The benchmarks in this file measure the store on the shape of the
// engine's W1 workload (see BENCHMARKS.md): resources with four small
// string inputs echoed as outputs, under one default provider. They use
// SyncNever, so the figure is the store's own work rather than the disk's
// fsync latency.

func w1Stack(n int) *state.Snapshot {
	const prov = "urn:pulumi:bench::bench::pulumi:providers:bench::default"
	const root = "urn:pulumi:bench::bench::pulumi:pulumi:Stack::bench-bench"
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	s := &state.Snapshot{Resources: []*resource.State{
		{Type: "pulumi:pulumi:Stack", URN: root, Inputs: resource.PropertyMap{}, Outputs: resource.PropertyMap{}, Created: now, Modified: now},
		{Type: "pulumi:providers:bench", URN: prov, Custom: true, ID: "7d4e1f4c-0000-4000-8000-000000000000",
			Inputs: resource.PropertyMap{}, Outputs: resource.PropertyMap{}, Created: now, Modified: now},
	}}
	for i := range n {
		s.Resources = append(s.Resources, w1Resource(i, root, prov+"::7d4e1f4c-0000-4000-8000-000000000000", now))
	}
	return s
}

func w1Resource(i int, parent resource.URN, prov string, now time.Time) *resource.State {
	name := fmt.Sprintf("r%d", i)
	in := resource.PropertyMap{
		"alpha": resource.NewString("a-" + name + "-0"), "beta": resource.NewString("b-" + name + "-0"),
		"gamma": resource.NewString("c-0"), "delta": resource.NewString("d-0"),
	}
	return &resource.State{
		Type: "bench:index:Thing", URN: resource.URN("urn:pulumi:bench::bench::bench:index:Thing::" + name), Custom: true,
		ID: resource.ID("id-" + name), Parent: parent, Provider: prov, Inputs: in, Outputs: in,
		Created: now, Modified: now,
	}
}

func benchFileStore(b *testing.B) *filestore.Store {
	s, err := filestore.New(b.TempDir(), state.WithSync(state.SyncNever))
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkSaveW1 writes a 10,000-resource W1 stack: integrity check,
// encoding and the atomic replace of the file.
func BenchmarkSaveW1(b *testing.B) {
	ctx := context.Background()
	s := benchFileStore(b)
	snap := w1Stack(10_000)
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if err := s.Save(ctx, dev, snap); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadW1 reads a 10,000-resource W1 stack: read, decode and
// integrity check.
func BenchmarkLoadW1(b *testing.B) {
	ctx := context.Background()
	s := benchFileStore(b)
	if err := s.Save(ctx, dev, w1Stack(10_000)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := s.Load(ctx, dev); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadW1Timed reads a 10,000-resource W1 stack whose resources
// were each created at a time of their own, as the engine records them:
// every time is read, none repeats the one before.
func BenchmarkLoadW1Timed(b *testing.B) {
	ctx := context.Background()
	s := benchFileStore(b)
	snap := w1Stack(10_000)
	at := time.Date(2025, 1, 1, 10, 59, 58, 0, time.UTC)
	for i, r := range snap.Resources {
		r.Created = at.Add(time.Duration(i) * 3217 * time.Microsecond)
		r.Modified = r.Created.Add(1500 * time.Nanosecond)
	}
	if err := s.Save(ctx, dev, snap); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := s.Load(ctx, dev); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJournalStepW1 journals one W1 create (a begin and a success
// entry) on a 10,000-resource stack, the way the engine does.
func BenchmarkJournalStepW1(b *testing.B) {
	ctx := context.Background()
	s := benchFileStore(b)
	l, err := s.Lock(ctx, dev, "update")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Unlock(ctx)
	base := w1Stack(10_000)
	j, err := s.OpenJournal(ctx, dev, base)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close(ctx)
	root, prov := base.Resources[0].URN, base.Resources[2].Provider
	now := time.Now()
	b.ReportAllocs()
	defer reportCPU(b)()
	i := 10_000
	for b.Loop() {
		r := w1Resource(i, root, prov, now)
		i++
		begin := *r
		begin.ID, begin.Outputs = "", nil
		seq, err := j.Append(ctx, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: &begin})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := j.Append(ctx, state.Entry{Kind: state.EntrySuccess, Begin: seq, New: r}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJournalConcurrentSteps journals steps from 1,000 goroutines at
// once with group commit on the file store (real fsyncs), the way the
// engine's step walker does when a program declares many independent
// resources: each Append waits for the batch that holds its entry. The
// memory store's sync is free, which isolates the cost of the hand-off
// between batch leaders and waiters.
func BenchmarkJournalConcurrentSteps(b *testing.B) {
	b.Run("store=memory", func(b *testing.B) { benchConcurrentSteps(b, memstore.New()) })
	b.Run("store=file", func(b *testing.B) {
		s, err := filestore.New(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		benchConcurrentSteps(b, s)
	})
}

func benchConcurrentSteps(b *testing.B, s state.Store) {
	const workers = 1000
	ctx := context.Background()
	l, err := s.Lock(ctx, dev, "update")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Unlock(ctx)
	base := w1Stack(0)
	j, err := s.OpenJournal(ctx, dev, base)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close(ctx)
	root, prov := base.Resources[0].URN, base.Resources[1].URN+"::"+resource.URN(base.Resources[1].ID)
	now := time.Now()
	next := make(chan int)
	errs := make(chan error, workers)
	for range workers {
		go func() {
			for i := range next {
				r := w1Resource(i, root, string(prov), now)
				seq, err := j.Append(ctx, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: r})
				if err == nil {
					_, err = j.Append(ctx, state.Entry{Kind: state.EntrySuccess, Begin: seq, New: r})
				}
				errs <- err
			}
		}()
	}
	defer close(next)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		// One round: every worker journals one step at once.
		for range workers {
			next <- i
			i++
		}
		for range workers {
			if err := <-errs; err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(i), "ns/step")
}

// BenchmarkVerifyIntegrityW1 checks a 10,000-resource W1 stack, which an
// operation does when it loads the stack, opens its journal and commits.
func BenchmarkVerifyIntegrityW1(b *testing.B) {
	snap := w1Stack(10_000)
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if err := snap.VerifyIntegrity(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnchangedRerunW1 is what the store does for an unchanged rerun
// of a 10,000-resource W1 stack: Load, open the journal on what it
// loaded, commit and close.
func BenchmarkUnchangedRerunW1(b *testing.B) {
	ctx := context.Background()
	s := benchFileStore(b)
	if err := s.Save(ctx, dev, w1Stack(10_000)); err != nil {
		b.Fatal(err)
	}
	mustLock(b, s, dev)
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		snap, err := s.Load(ctx, dev)
		if err != nil {
			b.Fatal(err)
		}
		j, err := s.OpenJournal(ctx, dev, snap)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := j.Commit(ctx); err != nil {
			b.Fatal(err)
		}
		if err := j.Close(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
