package deploy

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// poolProbe records what a callPool does with its calls: the most made at
// once, which were made, and how each that was not made was refused.
type poolProbe struct {
	mu       sync.Mutex
	now, max int
	made     []*stepgen.Call
	refused  map[*stepgen.Call]error
	release  chan struct{} // a call being made returns once this is closed
	started  chan struct{} // receives once per call as it starts
}

func newPoolProbe(limit int) (*callPool, *poolProbe) {
	pr := &poolProbe{refused: map[*stepgen.Call]error{}, release: make(chan struct{}), started: make(chan struct{}, 100)}
	p := &callPool{
		limit: limit,
		make: func(ctx context.Context, c *stepgen.Call) {
			pr.mu.Lock()
			pr.now++
			pr.max = max(pr.max, pr.now)
			pr.made = append(pr.made, c)
			pr.mu.Unlock()
			pr.started <- struct{}{}
			<-pr.release
			pr.mu.Lock()
			pr.now--
			pr.mu.Unlock()
		},
		refuse: func(c *stepgen.Call, err error) {
			pr.mu.Lock()
			pr.refused[c] = err
			pr.mu.Unlock()
		},
	}
	return p, pr
}

// waitStarted waits for n calls to start.
func (pr *poolProbe) waitStarted(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-pr.started:
		case <-time.After(10 * time.Second):
			t.Fatal("a call the pool should be making never started")
		}
	}
}

func TestCallPoolBoundsCallsInFlight(t *testing.T) {
	const limit, n = 3, 10
	p, pr := newPoolProbe(limit)
	calls := make([]*stepgen.Call, n)
	for i := range calls {
		calls[i] = &stepgen.Call{}
		if !p.add(context.Background(), calls[i]) {
			t.Fatalf("add %d refused before wait", i)
		}
	}
	pr.waitStarted(t, limit)
	// The pool is full: no fourth call starts while the first three run.
	select {
	case <-pr.started:
		t.Fatalf("a call started beyond the bound of %d", limit)
	case <-time.After(50 * time.Millisecond):
	}
	close(pr.release)
	p.wait()

	if pr.max != limit {
		t.Errorf("most calls in flight = %d, want %d", pr.max, limit)
	}
	if len(pr.made) != n || len(pr.refused) != 0 {
		t.Fatalf("made %d and refused %d calls, want %d made", len(pr.made), len(pr.refused), n)
	}
	made := map[*stepgen.Call]bool{}
	for _, c := range pr.made {
		made[c] = true
	}
	for i, c := range calls {
		if !made[c] {
			t.Errorf("call %d was never made", i)
		}
	}
	if p.running != 0 || p.idle != 0 {
		t.Errorf("%d workers (%d idle) left after wait", p.running, p.idle)
	}
}

func TestCallPoolMakesCallsInTheOrderAdded(t *testing.T) {
	p, pr := newPoolProbe(1)
	close(pr.release)
	calls := make([]*stepgen.Call, 5)
	for i := range calls {
		calls[i] = &stepgen.Call{}
		p.add(context.Background(), calls[i])
	}
	p.wait()
	if len(pr.made) != len(calls) {
		t.Fatalf("made %d calls, want %d", len(pr.made), len(calls))
	}
	for i, c := range pr.made {
		if c != calls[i] {
			t.Errorf("call %d was made out of the order the calls were added", i)
		}
	}
}

// TestCallPoolKeepsOrderWhileCallsComeAndGo: calls added while others
// are taken from the queue, one worker making them one at a time, are
// made in the order added, and the queue grows only to the most calls
// waiting at once, not to every call ever added.
func TestCallPoolKeepsOrderWhileCallsComeAndGo(t *testing.T) {
	const n, waiting = 200, 5
	p, pr := newPoolProbe(1)
	release := make(chan struct{})
	pr.release = release
	var calls []*stepgen.Call
	add := func() {
		c := &stepgen.Call{}
		calls = append(calls, c)
		p.add(context.Background(), c)
	}
	for range waiting {
		add()
	}
	for range n {
		// One call is made, and another takes its place in the queue.
		pr.waitStarted(t, 1)
		release <- struct{}{}
		add()
	}
	close(release)
	p.wait()
	if len(pr.made) != len(calls) {
		t.Fatalf("made %d calls, want %d", len(pr.made), len(calls))
	}
	for i, c := range pr.made {
		if c != calls[i] {
			t.Fatalf("call %d was made out of the order the calls were added", i)
		}
	}
	if c := cap(p.queue); c > 4*waiting {
		t.Errorf("the queue grew to room for %d calls; at most %d waited at once", c, waiting+1)
	}
}

func TestCallPoolRefusesCallsOfACancelledContext(t *testing.T) {
	p, pr := newPoolProbe(1)
	first, second := &stepgen.Call{}, &stepgen.Call{}
	p.add(context.Background(), first)
	pr.waitStarted(t, 1)
	cause := errors.New("the host stopped")
	ctx, cancel := context.WithCancelCause(context.Background())
	p.add(ctx, second) // waits behind first
	cancel(cause)
	close(pr.release)
	p.wait()

	if len(pr.made) != 1 || pr.made[0] != first {
		t.Errorf("made %d calls, want only the first", len(pr.made))
	}
	if err := pr.refused[second]; !errors.Is(err, cause) {
		t.Errorf("the call of the cancelled context was refused with %v, want its cause %v", err, cause)
	}
}

func TestCallPoolRecoversAPanic(t *testing.T) {
	boom := errors.New("boom")
	var refused error
	p := &callPool{
		limit:  2,
		make:   func(context.Context, *stepgen.Call) { panic(boom) },
		refuse: func(_ *stepgen.Call, err error) { refused = err },
	}
	p.add(context.Background(), &stepgen.Call{})
	p.wait()

	var pe *callPanicError
	if !errors.As(refused, &pe) || !errors.Is(refused, boom) || len(pe.Stack) == 0 {
		t.Errorf("a panicking call was refused with %v, want a *callPanicError with its stack, wrapping the panic", refused)
	}
}

func TestCallPoolTakesNoCallAfterWait(t *testing.T) {
	p, pr := newPoolProbe(1)
	close(pr.release)
	p.wait()
	if p.add(context.Background(), &stepgen.Call{}) {
		t.Error("add after wait took the call")
	}
	if len(pr.made) != 0 || len(pr.refused) != 0 {
		t.Errorf("made %d and refused %d calls after wait, want none", len(pr.made), len(pr.refused))
	}
}

// TestHostCallsWithinParallelism: the operation's Parallelism bounds its
// provider calls in flight as it bounds its steps.
func TestHostCallsWithinParallelism(t *testing.T) {
	const parallelism, n = 2, 8
	var mu sync.Mutex
	now, most := 0, 0
	started := make(chan struct{}, n)
	release := make(chan struct{})
	h := New(Config{
		Parallelism: parallelism,
		Analyze: func(context.Context, *resource.State) error {
			mu.Lock()
			now++
			most = max(most, now)
			mu.Unlock()
			started <- struct{}{}
			<-release
			mu.Lock()
			now--
			mu.Unlock()
			return nil
		},
	})
	for range n {
		h.call(context.Background(), &stepgen.Call{Kind: stepgen.CallAnalyze})
	}
	for range parallelism {
		select {
		case <-started:
		case <-time.After(10 * time.Second):
			t.Fatal("a call the pool should be making never started")
		}
	}
	select {
	case <-started:
		t.Fatalf("a call started beyond the Parallelism of %d", parallelism)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	h.calls.wait()
	if most != parallelism {
		t.Errorf("at most %d calls ran at once, want %d", most, parallelism)
	}
}
