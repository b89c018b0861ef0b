package program_test

import (
	"context"
	"errors"
	"maps"
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

// readRecorder is a fakeDeployer that notes the IDs its reads ask for.
type readRecorder struct {
	fakeDeployer
	reads map[string]resource.ID
}

func (r *readRecorder) ReadResource(ctx context.Context, goal resource.Goal, id resource.ID) (providers.RegisterResult, error) {
	r.mu.Lock()
	r.reads[goal.Name] = id
	r.mu.Unlock()
	return r.RegisterResource(ctx, goal)
}

// A read needs an ID, typed or not; a registration needs none. A read
// with an ID reaches the monitor as a read of that ID, a registration as
// a registration.
func TestReadsNeedAnID(t *testing.T) {
	type thing struct{ *program.Resource }
	dep := &readRecorder{reads: map[string]resource.ID{}}
	host := &fakeHost{mon: monitor.New(monitor.Config{Deployer: dep})}
	runner := program.NewRunner(context.Background(), program.Settings{Project: "site", Stack: "dev"}, host)
	errs := map[string]error{}
	err := runner.Run(func(c *program.Context) error {
		errs["read"] = c.Read("test:index:Thing", "read", "", program.Props{}).Wait()
		errs["typed read"] = program.ReadResource[thing](c, "test:index:Thing", "typed-read", "", program.Props{}).Wait()
		errs["read with an ID"] = c.Read("test:index:Thing", "found", "id-1", program.Props{}).Wait()
		errs["registration"] = program.NewResource[thing](c, "test:index:Thing", "made", program.Props{}).Wait()
		return nil
	})
	if err == nil {
		t.Fatal("Run: no error for the reads without an ID")
	}
	for _, name := range []string{"read", "typed read"} {
		var arg *program.ArgumentError
		if !errors.As(errs[name], &arg) || arg.Argument != "the ID" || arg.Reason != "is empty" {
			t.Errorf("%s without an ID: %v; want an *ArgumentError that the ID is empty", name, errs[name])
		}
	}
	for _, name := range []string{"read with an ID", "registration"} {
		if errs[name] != nil {
			t.Errorf("%s: %v", name, errs[name])
		}
	}
	dep.mu.Lock()
	defer dep.mu.Unlock()
	if want := map[string]resource.ID{"found": "id-1"}; !maps.Equal(dep.reads, want) {
		t.Errorf("reads %v; want %v", dep.reads, want)
	}
}
