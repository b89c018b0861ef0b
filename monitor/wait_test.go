package monitor_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// holdingDeployer answers nothing until release: it keeps each
// registration's goal and done.
type holdingDeployer struct {
	deployer
	mu    sync.Mutex
	held  []*resource.Goal
	dones []func(providers.RegisterResult, error)
	// arrived, when set, is sent to as each registration arrives.
	arrived chan string
}

func (d *holdingDeployer) RegisterResourceAsync(_ context.Context, goal *resource.Goal, done func(providers.RegisterResult, error)) {
	d.mu.Lock()
	d.held = append(d.held, goal)
	d.dones = append(d.dones, done)
	d.mu.Unlock()
	if d.arrived != nil {
		d.arrived <- goal.Name
	}
}

// release answers every registration held so far, in arrival order.
func (d *holdingDeployer) release() {
	d.mu.Lock()
	held, dones := d.held, d.dones
	d.held, d.dones = nil, nil
	d.mu.Unlock()
	for i, g := range held {
		dones[i](d.register(*g))
	}
}

// The blocking RegisterResource watches its context: when the context
// ends before the deployer answers, it returns the context's cause as a
// failure the deployment reports, leaves no goroutine behind, and a late
// answer blocks nobody.
func TestRegisterResourceWatchesContext(t *testing.T) {
	d := &holdingDeployer{arrived: make(chan string, 1)}
	m := monitor.New(monitor.Config{Deployer: d})
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := m.RegisterResource(ctx, resource.Goal{Type: thing, Name: "comp"})
		errc <- err
	}()
	<-d.arrived
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) || !monitor.Reported(err) {
			t.Errorf("err = %v, want the context's cause as a *monitor.ReportedError", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("RegisterResource did not return when its context ended")
	}
	d.release() // the late answer
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after the registration ended, %d before", n, before)
	}
}

// The registrations parked on a default provider are continued from one
// goroutine without waiting for each other's answers: a deployer that
// answers none of them until all have arrived (as the engine answers a
// registration only when its step has completed) still sees all of them.
func TestParkedRegistrationsDoNotWaitForEachOther(t *testing.T) {
	names := []string{"a", "b", "c"}
	d := &holdingDeployer{arrived: make(chan string, len(names)+1)}
	m := monitor.New(monitor.Config{Deployer: d})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, len(names))
	for i, name := range names {
		wg.Add(1)
		g := thingGoal(name)
		m.RegisterResourceAsync(ctx, &g, func(_ providers.RegisterResult, err error) {
			errs[i] = err
			wg.Done()
		})
	}
	var arrived []string
	for len(arrived) < 1+len(names) {
		select {
		case name := <-d.arrived:
			arrived = append(arrived, name)
			if len(arrived) == 1 {
				d.release() // the default provider
			}
		case <-ctx.Done():
			t.Fatalf("only %v reached the deployer: a parked registration waits for another's answer", arrived)
		}
	}
	d.release()
	wg.Wait()
	want := append([]string{providers.DefaultProviderName("")}, names...)
	if diff := cmp.Diff(want, arrived); diff != "" {
		t.Errorf("arrivals at the deployer (-want +got):\n%s", diff)
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("%s: %v", names[i], err)
		}
	}
}
