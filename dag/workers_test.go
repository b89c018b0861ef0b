package dag_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/groundwork-iac/groundwork/dag"
)

// peak keeps the highest value a counter reached.
type peak struct{ now, most atomic.Int32 }

func (p *peak) enter() {
	in := p.now.Add(1)
	for m := p.most.Load(); in > m && !p.most.CompareAndSwap(m, in); m = p.most.Load() {
	}
}

func (p *peak) leave() { p.now.Add(-1) }

// groupCommit stands for a journal that makes entries durable in batches:
// a visit hands it its resume and parks, and whoever commits resumes a
// whole batch at once. With writer set, the first visit to park while no
// batch is being committed commits every batch gathered meanwhile itself,
// inside its Park's wait, as the journal's appender does; otherwise a
// goroutine of the test commits them (run).
type groupCommit struct {
	writer bool

	mu      sync.Mutex
	batch   []func()
	writing bool
	more    chan struct{} // signalled when a resume joins the batch
}

func newGroupCommit(writer bool) *groupCommit {
	return &groupCommit{writer: writer, more: make(chan struct{}, 1)}
}

// park is a visit's wait: it joins the batch.
func (g *groupCommit) park(resume func()) {
	g.mu.Lock()
	g.batch = append(g.batch, resume)
	lead := g.writer && !g.writing
	if lead {
		g.writing = true
	}
	g.mu.Unlock()
	if !g.writer {
		select {
		case g.more <- struct{}{}:
		default:
		}
		return
	}
	if lead {
		g.commit()
	}
}

// commit resumes the batches gathered until none is left.
func (g *groupCommit) commit() {
	for {
		g.mu.Lock()
		b := g.batch
		g.batch = nil
		if len(b) == 0 {
			g.writing = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		for _, resume := range b {
			resume()
		}
	}
}

// run commits batches from a goroutine of its own until ctx ends.
func (g *groupCommit) run(ctx context.Context) {
	for {
		select {
		case <-g.more:
			g.commit()
		case <-ctx.Done():
			return
		}
	}
}

var sink []byte
var sinkN atomic.Int64

// work is what a quick visit does: a little computing and allocating.
func work() {
	b := make([]byte, 0, 64)
	for i := range 2000 {
		b = append(b, byte(i))
		if len(b) == cap(b) {
			b = make([]byte, 0, 2*cap(b))
		}
	}
	sinkN.Add(int64(len(b)))
}

// TestQuickVisitsFewWorkers: with DeclaredBlocking, vertices whose visits
// do not block are walked by at most GOMAXPROCS workers however many
// become ready at once — released together by the end of the vertex they
// all need, added in a burst, or resumed together by a group commit —
// even while the garbage collector holds visits up (each visit allocates).
func TestQuickVisitsFewWorkers(t *testing.T) {
	const n = 10_000
	most := runtime.GOMAXPROCS(0)
	tests := []struct {
		name string
		// parks: each visit parks once, its resume handed to a group
		// commit; writer: the commit is written by a visit that parks.
		parks, writer bool
		// root: every vertex needs one whose visit waits until all are
		// added, so that they all become ready at once.
		root bool
	}{
		{name: "released together by a vertex they need", root: true},
		{name: "added in a burst"},
		{name: "resumed by a group commit's own goroutine", parks: true},
		{name: "resumed by a group commit's writer, a parked visit", parks: true, writer: true},
		{name: "released together, then resumed together", parks: true, writer: true, root: true},
	}
	for _, tt := range tests {
		for _, parallelism := range []int{0, 1000} {
			t.Run(fmt.Sprintf("%s, parallelism %d", tt.name, parallelism), func(t *testing.T) {
				ctx := testContext(t)
				g := newGroupCommit(tt.writer)
				if tt.parks && !tt.writer {
					cctx, stop := context.WithCancel(ctx)
					var committer sync.WaitGroup
					committer.Go(func() { g.run(cctx) })
					defer committer.Wait()
					defer stop()
				}
				added := make(chan struct{})
				var inVisit peak
				var visits atomic.Int32
				w := dag.New(dag.Options[int]{
					Parallelism:      parallelism,
					DeclaredBlocking: true,
					Visit: func(ctx context.Context, v *int) error {
						inVisit.enter()
						defer inVisit.leave()
						visits.Add(1)
						work()
						if *v == -1 {
							defer dag.Blocking(ctx)()
							return await(ctx, added, "every vertex to be added")
						}
						if tt.parks && *v == 0 {
							*v = 1
							return dag.Park(g.park)
						}
						return nil
					},
				})
				var needs []uint64
				if tt.root {
					if err := w.Add(ctx, dag.Vertex[int]{ID: n + 1, Value: -1}); err != nil {
						t.Fatal(err)
					}
					needs = []uint64{n + 1}
				}
				for i := range n {
					if err := w.Add(ctx, dag.Vertex[int]{ID: uint64(i + 1), Needs: needs}); err != nil {
						t.Fatal(err)
					}
				}
				close(added)
				if err := w.Wait(); err != nil {
					t.Fatalf("Wait: %v", err)
				}
				want := int32(n)
				if tt.root {
					want++
				}
				if tt.parks {
					want += n
				}
				if got := visits.Load(); got != want {
					t.Errorf("%d visits, want %d", got, want)
				}
				if got := dag.PeakWorkers(w); got > most {
					t.Errorf("%d workers at once (at most %d in a visit together), want at most %d", got, inVisit.most.Load(), most)
				}
			})
		}
	}
}

// TestBlockingVisitsEachGetAWorker: with DeclaredBlocking, vertices whose
// visits declare they block each get a worker of their own, even when they
// are resumed together by a group commit: twenty chains of ten whose every
// visit parks once (its begin journaled), then blocks until the visit of
// every chain at its depth is in flight. A walk that ends proves it; no
// clock is read. Without the option the visits need not declare it.
func TestBlockingVisitsEachGetAWorker(t *testing.T) {
	const chains, depth = 20, 10
	for _, tt := range []struct{ writer, declared bool }{{false, true}, {true, true}, {false, false}, {true, false}} {
		writer := tt.writer
		t.Run(fmt.Sprintf("resumed by a parked visit %v, declared %v", tt.writer, tt.declared), func(t *testing.T) {
			ctx := testContext(t)
			g := newGroupCommit(writer)
			if !writer {
				cctx, stop := context.WithCancel(ctx)
				var committer sync.WaitGroup
				committer.Go(func() { g.run(cctx) })
				defer committer.Wait()
				defer stop()
			}
			var levels [depth]*gauge
			for i := range levels {
				levels[i] = newGauge(chains)
			}
			type vertex struct {
				level  int
				parked bool
			}
			w := dag.New(dag.Options[vertex]{
				DeclaredBlocking: tt.declared,
				Visit: func(ctx context.Context, v *vertex) error {
					if !v.parked {
						v.parked = true
						return dag.Park(g.park)
					}
					work()
					if tt.declared {
						defer dag.Blocking(ctx)()
					}
					return levels[v.level].hold(ctx)
				},
			})
			for c := range chains {
				for d := range depth {
					id := uint64(c*depth + d + 1)
					v := dag.Vertex[vertex]{ID: id, Value: vertex{level: d}}
					if d > 0 {
						v.Needs = []uint64{id - 1}
					}
					if err := w.Add(ctx, v); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := w.Wait(); err != nil {
				t.Fatalf("Wait: %v", err)
			}
			for d, l := range levels {
				if got := l.Max(); got != chains {
					t.Errorf("depth %d: %d visits in flight at most, want %d", d, got, chains)
				}
			}
			if most := chains + runtime.GOMAXPROCS(0); tt.declared && dag.PeakWorkers(w) > most {
				t.Errorf("%d workers at once, want at most %d for %d blocking visits", dag.PeakWorkers(w), most, chains)
			}
		})
	}
}

type testKey struct{}

// TestDeclaredVisitContext: with DeclaredBlocking a visit's context holds
// what the context given to Add holds — its values, its cancellation and
// its cause — and Blocking anywhere else does nothing.
func TestDeclaredVisitContext(t *testing.T) {
	dag.Blocking(context.Background())() // outside any walker: nothing
	errStop := fmt.Errorf("stopped by the test")
	base, cancel := context.WithCancelCause(context.WithValue(testContext(t), testKey{}, "value"))
	type seen struct {
		value any
		err   error
		cause error
	}
	var got seen
	entered, release := make(chan struct{}), make(chan struct{})
	w := dag.New(dag.Options[int]{
		DeclaredBlocking: true,
		Visit: func(ctx context.Context, _ *int) error {
			defer dag.Blocking(ctx)()
			close(entered)
			<-release
			got = seen{ctx.Value(testKey{}), ctx.Err(), context.Cause(ctx)}
			return nil
		},
	})
	if err := w.Add(base, dag.Vertex[int]{ID: 1}); err != nil {
		t.Fatal(err)
	}
	mustAwait(t, testContext(t), entered, "the visit")
	cancel(errStop)
	close(release)
	if err := w.Wait(); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if got.value != "value" || got.err != context.Canceled || got.cause != errStop {
		t.Errorf("the visit saw value %v, error %v, cause %v; want value, %v, %v", got.value, got.err, got.cause, context.Canceled, errStop)
	}
}
