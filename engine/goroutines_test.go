package engine_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/backendstore"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// gatedBackend, once holding is set, holds every journal append until
// its gate is closed: a journal whose storage is slow, so that every step
// waits for durability at once.
type gatedBackend struct {
	state.Backend
	holding atomic.Bool
	gate    chan struct{}
}

func (g *gatedBackend) AppendJournal(ctx context.Context, stack state.StackID, token string, p []byte) error {
	if !g.holding.Load() {
		return g.Backend.AppendJournal(ctx, stack, token, p)
	}
	select {
	case <-g.gate:
	case <-ctx.Done():
		return ctx.Err()
	}
	return g.Backend.AppendJournal(ctx, stack, token, p)
}

// TestStepsWaitingForTheJournalHoldNoGoroutine: a step waiting for its
// journal entry to be durable holds no goroutine. Thousands of creates
// whose begins wait on a stalled journal leave a handful of goroutines
// while they wait, not one per step, and all complete once the journal
// writes.
func TestStepsWaitingForTheJournalHoldNoGoroutine(t *testing.T) {
	const n, most = 2000, 100
	g := &gatedBackend{Backend: memstore.NewBackend(), gate: make(chan struct{})}
	env := enginetest.New(t)
	env.Store = backendstore.New(g)
	var checks atomic.Int64
	p := noopProvider()
	p.CheckF = func(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
		// The stack and its provider are recorded: from the first
		// check on, the journal stalls.
		g.holding.Store(true)
		checks.Add(1)
		return providers.CheckResponse{Inputs: req.News}, nil
	}
	env.Provider("bench", "", p)
	base := runtime.NumGoroutine()
	type result struct {
		res *engine.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := env.Up(func(ctx *engine.Context) error {
			for i := range n {
				ctx.Register("bench:index:Thing", fmt.Sprintf("r%04d", i), engine.Props{"i": i})
			}
			return nil
		})
		done <- result{res, err}
	}()
	deadline := time.Now().Add(safety)
	for checks.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d checks were made", checks.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
	// Every step is issued and waits for its begin: sample a while.
	peak := 0
	for range 200 {
		peak = max(peak, runtime.NumGoroutine()-base)
		time.Sleep(time.Millisecond)
	}
	close(g.gate)
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	// The stack itself is created too.
	if got := r.res.Counts[engine.StepCreate]; got != n+1 {
		t.Errorf("created %d resources, want %d and the stack", got, n)
	}
	if peak > most {
		t.Errorf("%d creates waiting for the journal held %d goroutines, want at most %d", n, peak, most)
	}
}
