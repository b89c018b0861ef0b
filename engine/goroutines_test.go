package engine_test

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/state/filestore"
)

// TestLargeOperationsHoldFewGoroutines: a step waiting for the journal
// holds no goroutine, so creating, updating and destroying thousands of
// independent resources on the file store (each journal write synced)
// runs on a few hundred goroutines at most, not one or two per resource.
func TestLargeOperationsHoldFewGoroutines(t *testing.T) {
	if testing.Short() {
		t.Skip("runs thousands of steps")
	}
	const n, most = 3000, 300
	store, err := filestore.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := enginetest.New(t)
	env.Store = store
	env.Provider("test", "", newCloud().provider())
	program := func(gen int) engine.Program {
		return func(ctx *engine.Context) error {
			for i := range n {
				ctx.Register(thing, fmt.Sprintf("r%04d", i), engine.Props{"gen": gen})
			}
			return nil
		}
	}
	ops := []struct {
		name string
		run  func() (*engine.Result, error)
	}{
		{"create", func() (*engine.Result, error) { return env.Up(program(1)) }},
		{"update", func() (*engine.Result, error) { return env.Up(program(2)) }},
		{"destroy", func() (*engine.Result, error) { return env.Destroy() }},
	}
	for _, op := range ops {
		base := runtime.NumGoroutine()
		var peak atomic.Int64
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			tick := time.NewTicker(200 * time.Microsecond)
			defer tick.Stop()
			for {
				peak.Store(max(peak.Load(), int64(runtime.NumGoroutine()-base)))
				select {
				case <-stop:
					return
				case <-tick.C:
				}
			}
		}()
		res, err := op.run()
		close(stop)
		<-sampled
		if err != nil {
			t.Fatalf("%s: %v", op.name, err)
		}
		if got := len(res.Steps); got < n {
			t.Fatalf("%s took %d steps, want at least %d", op.name, got, n)
		}
		if p := peak.Load(); p > most {
			t.Errorf("%s of %d resources peaked at %d goroutines, want at most %d", op.name, n, p, most)
		} else {
			t.Logf("%s of %d resources peaked at %d goroutines", op.name, n, p)
		}
	}
}
