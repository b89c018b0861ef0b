package program_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/program"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// heldDeployer answers the registrations of test:index:Thing resources
// only when released (each then hears the result fakeDeployer gives), and
// others (the stack, the default provider) at once.
type heldDeployer struct {
	fakeDeployer
	mu      sync.Mutex
	held    []func()
	arrived chan struct{}
}

func (h *heldDeployer) RegisterResourceAsync(ctx context.Context, goal *resource.Goal, done func(providers.RegisterResult, error)) {
	if goal.Type != "test:index:Thing" {
		done(h.RegisterResource(ctx, *goal))
		return
	}
	h.mu.Lock()
	h.held = append(h.held, func() { done(h.RegisterResource(ctx, *goal)) })
	h.mu.Unlock()
	h.arrived <- struct{}{}
}

func (h *heldDeployer) release() {
	h.mu.Lock()
	held := h.held
	h.held = nil
	h.mu.Unlock()
	for _, answer := range held {
		answer()
	}
}

// A handle's Done channel, asked for before the registration finishes or
// after, is closed once it has finished, and waits that block from other
// goroutines see its result: the channel is made only when asked for, and
// every way of waiting agrees with it.
func TestResourceDoneBeforeAndAfterFinishing(t *testing.T) {
	dep := &heldDeployer{arrived: make(chan struct{}, 1)}
	host := &fakeHost{mon: monitor.New(monitor.Config{Deployer: dep})}
	runner := program.NewRunner(context.Background(), program.Settings{Project: "site", Stack: "dev"}, host)
	want := resource.NewURN("dev", "site", "", "test:index:Thing", "a")
	err := runner.Run(func(c *program.Context) error {
		a := c.Register("test:index:Thing", "a", program.Props{})
		<-dep.arrived
		early := a.Done()
		select {
		case <-early:
			t.Fatal("Done is closed before the registration finished")
		default:
		}
		var wg sync.WaitGroup
		got := make([]resource.URN, 4)
		for i := range got {
			wg.Go(func() {
				if i%2 == 0 {
					<-a.Done()
					got[i], _ = a.URN()
					return
				}
				got[i], _ = a.URN() // blocks in Wait
			})
		}
		time.Sleep(10 * time.Millisecond) // let some of them block first
		dep.release()
		wg.Wait()
		for i, u := range got {
			if u != want {
				t.Errorf("waiter %d saw URN %q; want %q", i, u, want)
			}
		}
		select {
		case <-early:
		default:
			t.Error("the Done channel asked for before the registration finished is still open")
		}
		if late := a.Done(); late != early {
			t.Error("Done returned another channel once the registration had finished")
		}

		b := c.Register("test:index:Thing", "b", program.Props{})
		<-dep.arrived
		dep.release()
		if err := b.Wait(); err != nil {
			return err
		}
		select {
		case <-b.Done():
		default:
			t.Error("the Done channel first asked for after the registration finished is open")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
}
