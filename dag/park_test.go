package dag_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/groundwork-iac/groundwork/dag"
)

// parkingVertex is the value of a vertex whose visit parks once, waiting
// for a callback, then ends.
type parkingVertex struct {
	name   string
	parked bool
	answer error // what the callback brought
}

// TestParkedVisitsHoldNoGoroutine: vertices whose visits park while they
// wait hold no worker: a thousand of them waiting at once leave a few
// goroutines, none past the bound, and each is visited again once resumed,
// with what the callback left in its value, before it ends.
func TestParkedVisitsHoldNoGoroutine(t *testing.T) {
	for _, parallelism := range []int{0, 1, 4} {
		t.Run(fmt.Sprintf("parallelism %d", parallelism), func(t *testing.T) {
			const n = 1000
			var mu sync.Mutex
			var waiting []func()
			var visits, inVisit, most atomic.Int32
			w := dag.New(dag.Options[parkingVertex]{
				Parallelism:     parallelism,
				ContinueOnError: true,
				Visit: func(ctx context.Context, v *parkingVertex) error {
					in := inVisit.Add(1)
					defer inVisit.Add(-1)
					for m := most.Load(); in > m && !most.CompareAndSwap(m, in); m = most.Load() {
					}
					visits.Add(1)
					if !v.parked {
						v.parked = true
						return dag.Park(func(resume func()) {
							mu.Lock()
							waiting = append(waiting, func() { v.answer = errors.New("answered " + v.name); resume() })
							mu.Unlock()
						})
					}
					return v.answer
				},
			})
			ctx := testContext(t)
			for i := range n {
				if err := w.Add(ctx, dag.Vertex[parkingVertex]{ID: uint64(i + 1), Value: parkingVertex{name: fmt.Sprint(i)}}); err != nil {
					t.Fatal(err)
				}
			}
			// Wait until every vertex has parked.
			for {
				mu.Lock()
				k := len(waiting)
				mu.Unlock()
				if k == n {
					break
				}
				if ctx.Err() != nil {
					t.Fatalf("only %d of %d vertices parked", k, n)
				}
				runtime.Gosched()
			}
			if g := runtime.NumGoroutine(); g > 50 {
				t.Errorf("%d goroutines while %d visits are parked, want a few", g, n)
			}
			mu.Lock()
			resumes := waiting
			mu.Unlock()
			for _, r := range resumes {
				r()
			}
			err := w.Wait()
			var fs *dag.Failures
			if !errors.As(err, &fs) || len(fs.Errors) != n {
				t.Fatalf("Wait returned %v, want the %d answers as failures", err, n)
			}
			if got := visits.Load(); got != 2*n {
				t.Errorf("%d visits, want %d (each vertex twice)", got, 2*n)
			}
			if parallelism > 0 && most.Load() > int32(parallelism) {
				t.Errorf("%d visits ran at once, above the bound of %d", most.Load(), parallelism)
			}
		})
	}
}

// TestResumedVisitIsNotSkipped: a visit resumed after its context was
// cancelled, or after the walk stopped on a failure, still runs: it had
// begun.
func TestResumedVisitIsNotSkipped(t *testing.T) {
	ctx, cancel := context.WithCancel(testContext(t))
	var resume func()
	parkedCh := make(chan struct{})
	var second bool
	w := dag.New(dag.Options[parkingVertex]{
		Visit: func(ctx context.Context, v *parkingVertex) error {
			if !v.parked {
				v.parked = true
				return dag.Park(func(r func()) { resume = r; close(parkedCh) })
			}
			second = true
			return nil
		},
	})
	if err := w.Add(ctx, dag.Vertex[parkingVertex]{ID: 1}); err != nil {
		t.Fatal(err)
	}
	mustAwait(t, testContext(t), parkedCh, "the visit to park")
	cancel()
	resume()
	if err := w.Wait(); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if !second {
		t.Error("the resumed visit was skipped")
	}
}

// TestFinishRunsParkedVisits: Finish runs a visit that parks to its end
// on the calling goroutine, resumed synchronously or from elsewhere.
func TestFinishRunsParkedVisits(t *testing.T) {
	for _, async := range []bool{false, true} {
		t.Run(fmt.Sprintf("resumed from another goroutine %v", async), func(t *testing.T) {
			stage := 0
			err := dag.Finish(func() error {
				stage++
				if stage < 3 {
					return dag.Park(func(resume func()) {
						if async {
							go resume()
							return
						}
						resume()
					})
				}
				return errBoom
			})
			if !errors.Is(err, errBoom) || stage != 3 {
				t.Errorf("Finish returned %v after %d visits, want %v after 3", err, stage, errBoom)
			}
		})
	}
}
