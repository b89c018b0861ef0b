package engine_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// interruptible is an in-process provider whose Create of "slow" runs
// behave (it is told when the create has started), and which records the
// signal to cancel.
type interruptible struct {
	started  chan struct{} // closed when the create of "slow" begins
	signaled chan struct{} // closed by SignalCancellation
	once     sync.Once
	sigOnce  sync.Once
}

func newInterruptible() *interruptible {
	return &interruptible{started: make(chan struct{}), signaled: make(chan struct{})}
}

func (p *interruptible) provider(behave func(ctx context.Context) (providers.CreateResponse, error)) *providers.Func {
	return &providers.Func{
		CreateF: func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			if req.URN.Name() != "slow" {
				return providers.CreateResponse{ID: resource.ID(req.URN.Name() + "-id"), Outputs: req.Inputs}, nil
			}
			p.once.Do(func() { close(p.started) })
			return behave(ctx)
		},
		SignalCancellationF: func(context.Context) error {
			p.sigOnce.Do(func() { close(p.signaled) })
			return nil
		},
	}
}

// upInterrupted runs Up of a stack with one resource, "slow", cancelling
// it once slow's create has started, and returns its error and how long
// it took after the cancellation.
func upInterrupted(t *testing.T, env *enginetest.Env, p *interruptible, opts ...engine.Option) (error, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var cancelled time.Time
	go func() {
		<-p.started
		cancelled = time.Now()
		cancel(errors.New("interrupted"))
	}()
	_, err := upWithin(t, env, ctx, func(c *engine.Context) error {
		c.Register(thing, "slow", engine.Props{"n": 1})
		return nil
	}, opts...)
	return err, time.Since(cancelled)
}

// pendingOf returns the pending operations of the stack, as "kind name".
func pendingOf(snap *state.Snapshot) []string {
	var ops []string
	for _, op := range snap.PendingOperations {
		ops = append(ops, string(op.Kind)+" "+op.Resource.URN.Name())
	}
	return ops
}

// An interrupt never forgets a create in flight: the create is given the
// grace period to answer, and its answer is recorded; a create that does
// not answer in time stays recorded as a pending operation naming its
// resource.
func TestInterruptDuringCreate(t *testing.T) {
	tests := []struct {
		name  string
		grace time.Duration
		// behave is the create of "slow", once the operation has been
		// cancelled.
		behave func(p *interruptible) func(ctx context.Context) (providers.CreateResponse, error)
		// recorded is the ID slow is recorded with ("" for none), and
		// initErrors whether it has init errors; pending its pending
		// operation.
		recorded   resource.ID
		initErrors bool
		pending    []string
	}{{
		name:  "a create that finishes once signalled is recorded",
		grace: 10 * time.Second,
		behave: func(p *interruptible) func(context.Context) (providers.CreateResponse, error) {
			return func(ctx context.Context) (providers.CreateResponse, error) {
				select {
				case <-p.signaled:
				case <-ctx.Done():
					return providers.CreateResponse{}, ctx.Err()
				}
				time.Sleep(50 * time.Millisecond) // the provider finishes its work
				return providers.CreateResponse{ID: "slow-id", Outputs: resource.PropertyMap{}}, nil
			}
		},
		recorded: "slow-id",
	}, {
		name:  "an init error answered once signalled is recorded",
		grace: 10 * time.Second,
		behave: func(p *interruptible) func(context.Context) (providers.CreateResponse, error) {
			return func(ctx context.Context) (providers.CreateResponse, error) {
				select {
				case <-p.signaled:
				case <-ctx.Done():
					return providers.CreateResponse{}, ctx.Err()
				}
				return providers.CreateResponse{}, &providers.InitError{ID: "slow-half", Reasons: []string{"interrupted while it booted"}}
			}
		},
		recorded:   "slow-half",
		initErrors: true,
	}, {
		name:  "a create that gives up when its context ends is left pending",
		grace: 300 * time.Millisecond,
		behave: func(p *interruptible) func(context.Context) (providers.CreateResponse, error) {
			return func(ctx context.Context) (providers.CreateResponse, error) {
				<-ctx.Done()
				return providers.CreateResponse{}, ctx.Err()
			}
		},
		pending: []string{"creating slow"},
	}, {
		name:  "with no grace period, a create in flight is left pending at once",
		grace: 0,
		behave: func(p *interruptible) func(context.Context) (providers.CreateResponse, error) {
			return func(ctx context.Context) (providers.CreateResponse, error) {
				<-ctx.Done()
				time.Sleep(50 * time.Millisecond) // the provider finishes its work anyway
				return providers.CreateResponse{ID: "slow-id"}, nil
			}
		},
		pending: []string{"creating slow"},
	}, {
		name:  "a create that outlives the grace period is left pending",
		grace: 300 * time.Millisecond,
		behave: func(p *interruptible) func(context.Context) (providers.CreateResponse, error) {
			return func(ctx context.Context) (providers.CreateResponse, error) {
				time.Sleep(3 * time.Second)
				return providers.CreateResponse{ID: "too-late"}, nil
			}
		},
		pending: []string{"creating slow"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newInterruptible()
			env := enginetest.New(t)
			env.Provider("test", "", p.provider(tt.behave(p)))
			err, took := upInterrupted(t, env, p, engine.GracePeriod(tt.grace))
			var ce *engine.CancelledError
			if !errors.As(err, &ce) {
				t.Fatalf("error = %v; want a *CancelledError", err)
			}
			if took > tt.grace+2*time.Second {
				t.Errorf("Up returned %v after the cancellation; the grace period is %v", took, tt.grace)
			}
			snap := env.Snapshot()
			r := env.Resource(env.URN(thing, "slow"))
			switch {
			case tt.recorded == "" && r != nil:
				t.Errorf("slow is recorded (id %s); want it only pending", r.ID)
			case tt.recorded != "" && r == nil:
				t.Fatalf("slow is not recorded; its create answered %s within the grace period (pending: %v)", tt.recorded, pendingOf(snap))
			case r != nil && (r.ID != tt.recorded || (len(r.InitErrors) > 0) != tt.initErrors):
				t.Errorf("slow is recorded with id %s and init errors %v; want id %s, init errors: %v", r.ID, r.InitErrors, tt.recorded, tt.initErrors)
			}
			if got := pendingOf(snap); !slices.Equal(got, tt.pending) {
				t.Errorf("pending operations %v; want %v", got, tt.pending)
			}
			if len(tt.pending) > 0 {
				want := "creating " + string(env.URN(thing, "slow"))
				if !slices.Equal(ce.Pending, []string{want}) || !strings.Contains(err.Error(), "recorded as a pending operation ("+want+"), which a refresh resolves") {
					t.Errorf("error = %v (pending %v); want it to name the pending %s", err, ce.Pending, want)
				}
				// The next operation warns of it.
				if _, err := env.Preview(func(*engine.Context) error { return nil }); err != nil {
					t.Fatal(err)
				}
				if !warnedOf(env.Events(), env.URN(thing, "slow")) {
					t.Errorf("the next operation does not warn of the pending create of slow: %v", env.Events())
				}
			}
			unlocked(t, env)
		})
	}
}

// An in-process provider that ignores its context does not hold the
// operation past its grace period: in a Create, the step stays pending;
// in a Check, nothing was started.
func TestProviderIgnoringItsContext(t *testing.T) {
	for _, method := range []string{"create", "check"} {
		t.Run(method, func(t *testing.T) {
			const grace = 300 * time.Millisecond
			release := make(chan struct{})
			t.Cleanup(func() { close(release) })
			started := make(chan struct{})
			var once sync.Once
			stuck := func() {
				once.Do(func() { close(started) })
				<-release // ignores its context
			}
			p := &providers.Func{
				CheckF: func(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
					if method == "check" {
						stuck()
					}
					return providers.CheckResponse{Inputs: req.News}, nil
				},
				CreateF: func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
					if method == "create" {
						stuck()
					}
					return providers.CreateResponse{ID: "id"}, nil
				},
			}
			env := enginetest.New(t)
			env.Provider("test", "", p)
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			var cancelled time.Time
			go func() {
				<-started
				cancelled = time.Now()
				cancel(errors.New("interrupted"))
			}()
			_, err := upWithin(t, env, ctx, func(c *engine.Context) error {
				c.Register(thing, "stuck", engine.Props{})
				return nil
			}, engine.GracePeriod(grace))
			if took := time.Since(cancelled); took > grace+2*time.Second {
				t.Errorf("Up returned %v after the cancellation; the grace period is %v", took, grace)
			}
			var ce *engine.CancelledError
			if !errors.As(err, &ce) {
				t.Fatalf("error = %v; want a *CancelledError", err)
			}
			var want []string
			if method == "create" {
				want = []string{"creating stuck"}
			}
			if got := pendingOf(env.Snapshot()); !slices.Equal(got, want) {
				t.Errorf("pending operations %v; want %v", got, want)
			}
			if r := env.Resource(env.URN(thing, "stuck")); r != nil {
				t.Errorf("stuck is recorded (id %s); its provider never answered", r.ID)
			}
			// The call left running is reported.
			reported := false
			for _, ev := range env.Events() {
				if d, ok := ev.(engine.DiagnosticEvent); ok && strings.Contains(d.Message, "a provider call had not returned") {
					reported = true
				}
			}
			if !reported {
				t.Errorf("no warning that a provider call was left running: %v", env.Events())
			}
		})
	}
}

// A resource's custom timeouts bound its provider's calls: a create that
// outlives its timeout fails, and, since the provider did not answer, it
// stays recorded as a pending operation.
func TestCustomTimeoutsAreEnforced(t *testing.T) {
	tests := []struct {
		name string
		// create is the provider's create; its context's deadline is
		// reported in deadline.
		create func(ctx context.Context) error
		// fails says whether Up fails with a *TimeoutError; pending whether
		// the create is left pending.
		fails, pending bool
	}{
		{"a create within its timeout succeeds", func(ctx context.Context) error { return nil }, false, false},
		{"a create that stops at its deadline fails and stays pending", func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		}, true, true},
		{"a create that ignores its deadline fails and stays pending", func(ctx context.Context) error {
			time.Sleep(5 * time.Second)
			return nil
		}, true, true},
		{"a create that fails on its own fails and is not pending", func(ctx context.Context) error {
			return errors.New("quota exceeded")
		}, false, false},
	}
	const timeout, grace = 300 * time.Millisecond, 200 * time.Millisecond
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			deadlines := make(chan time.Duration, 1)
			p := &providers.Func{CreateF: func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
				d, ok := ctx.Deadline()
				if !ok {
					deadlines <- 0
				} else {
					deadlines <- time.Until(d)
				}
				if req.Timeout != timeout {
					t.Errorf("the create was asked with timeout %v; want %v", req.Timeout, timeout)
				}
				if err := tt.create(ctx); err != nil {
					return providers.CreateResponse{}, err
				}
				return providers.CreateResponse{ID: "id"}, nil
			}}
			env := enginetest.New(t)
			env.Provider("test", "", p)
			start := time.Now()
			_, err := upWithin(t, env, context.Background(), func(c *engine.Context) error {
				c.Register(thing, "timed", engine.Props{}, engine.CustomTimeouts(resource.CustomTimeouts{Create: timeout}))
				return nil
			}, engine.GracePeriod(grace))
			if took := time.Since(start); took > timeout+grace+2*time.Second {
				t.Errorf("Up took %v; the create's timeout is %v and the grace period %v", took, timeout, grace)
			}
			if deadline := <-deadlines; deadline <= 0 || deadline > timeout {
				t.Errorf("the create's context ends in %v; want the custom timeout, %v", deadline, timeout)
			}
			var te *engine.TimeoutError
			if got := errors.As(err, &te); got != tt.fails {
				t.Errorf("error = %v; want a *TimeoutError: %v", err, tt.fails)
			}
			var un *engine.UnansweredError
			if got := errors.As(err, &un); got != tt.pending {
				t.Errorf("error = %v; want an *UnansweredError: %v", err, tt.pending)
			}
			var want []string
			if tt.pending {
				want = []string{"creating timed"}
			}
			if got := pendingOf(env.Snapshot()); !slices.Equal(got, want) {
				t.Errorf("pending operations %v; want %v", got, want)
			}
		})
	}
}

// warnedOf reports whether events hold a warning about urn.
func warnedOf(events []engine.Event, urn resource.URN) bool {
	for _, ev := range events {
		if d, ok := ev.(engine.DiagnosticEvent); ok && d.URN == urn && d.Severity == engine.SeverityWarning {
			return true
		}
	}
	return false
}

// Custom timeouts bound updates and deletes as they bound creates: an
// update or a delete that outlives its timeout fails and stays pending,
// and the resource stays recorded as it was.
func TestCustomTimeoutsBoundUpdatesAndDeletes(t *testing.T) {
	const timeout, grace = 200 * time.Millisecond, 100 * time.Millisecond
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	tests := []struct {
		name string
		// second is the program of the second Up, after one that
		// registered "r" with n=1.
		second  engine.Program
		pending string
	}{
		{"an update", func(c *engine.Context) error {
			c.Register(thing, "r", engine.Props{"n": 2}, engine.CustomTimeouts(resource.CustomTimeouts{Update: timeout, Delete: timeout}))
			return nil
		}, "updating r"},
		{"a delete", func(c *engine.Context) error { return nil }, "deleting r"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &providers.Func{
				CreateF: func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
					return providers.CreateResponse{ID: "r-id", Outputs: req.Inputs}, nil
				},
				UpdateF: func(ctx context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
					<-release // ignores its context
					return providers.UpdateResponse{Outputs: req.NewInputs}, nil
				},
				DeleteF: func(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
					<-release
					return providers.DeleteResponse{}, nil
				},
			}
			env := enginetest.New(t)
			env.Provider("test", "", p)
			if _, err := env.Up(func(c *engine.Context) error {
				c.Register(thing, "r", engine.Props{"n": 1}, engine.CustomTimeouts(resource.CustomTimeouts{Update: timeout, Delete: timeout}))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err := upWithin(t, env, context.Background(), tt.second, engine.GracePeriod(grace))
			if took := time.Since(start); took > timeout+grace+2*time.Second {
				t.Errorf("Up took %v; the timeout is %v and the grace period %v", took, timeout, grace)
			}
			var te *engine.TimeoutError
			var un *engine.UnansweredError
			if !errors.As(err, &te) || !errors.As(err, &un) {
				t.Errorf("error = %v; want an *UnansweredError caused by a *TimeoutError", err)
			}
			if got := pendingOf(env.Snapshot()); !slices.Equal(got, []string{tt.pending}) {
				t.Errorf("pending operations %v; want [%s]", got, tt.pending)
			}
			if r := env.Resource(env.URN(thing, "r")); r == nil || r.ID != "r-id" || r.Inputs["n"].NumberValue() != 1 {
				t.Errorf("r is recorded as %+v; want it as it was before", r)
			}
		})
	}
}
