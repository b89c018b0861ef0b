package engine_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// A pending update whose resource and provider were deleted afterwards
// (the program stopped declaring them) cannot be read back: nothing
// recorded says how to reach the provider. A refresh still resolves it,
// warning that the resource must be checked by hand and naming its type
// and ID, so that the stack is never stuck with a pending operation no
// operation can clear.
func TestRefreshClearsAPendingOperationWhoseProviderIsGone(t *testing.T) {
	env := enginetest.New(t)
	started := make(chan struct{})
	var once sync.Once
	var reads int
	env.Provider("test", "", &providers.Func{
		CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			return providers.CreateResponse{ID: resource.ID(req.URN.Name() + "-id"), Outputs: req.Inputs}, nil
		},
		UpdateF: func(ctx context.Context, _ providers.UpdateRequest) (providers.UpdateResponse, error) {
			once.Do(func() { close(started) })
			<-ctx.Done()
			return providers.UpdateResponse{}, ctx.Err()
		},
		ReadF: func(_ context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
			reads++
			return providers.ReadResponse{ID: req.ID, Inputs: req.Inputs, Outputs: req.State}, nil
		},
	})
	slow := func(n int) engine.Program {
		return func(c *engine.Context) error {
			c.Register(thing, "slow", engine.Props{"n": n})
			return nil
		}
	}
	if _, err := env.Up(slow(1)); err != nil {
		t.Fatal(err)
	}

	// The update of slow is abandoned: it stays pending.
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go func() {
		<-started
		cancel(errors.New("interrupted"))
	}()
	if _, err := upWithin(t, env, ctx, slow(2), engine.GracePeriod(0)); err == nil {
		t.Fatal("the interrupted update succeeded")
	}
	if got := pendingOf(env.Snapshot()); len(got) != 1 || got[0] != "updating slow" {
		t.Fatalf("pending operations %v; want the update of slow", got)
	}

	// The program stops declaring slow: it and its default provider are
	// deleted; the pending update stays, for a refresh to resolve.
	if _, err := env.Up(func(*engine.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	for _, r := range env.Snapshot().Resources {
		if r.Custom {
			t.Fatalf("%s is recorded after the program stopped declaring it", r.URN)
		}
	}
	if got := pendingOf(env.Snapshot()); len(got) != 1 {
		t.Fatalf("pending operations %v after an update; want the update of slow kept", got)
	}

	if _, err := env.Engine().Refresh(context.Background()); err != nil {
		t.Fatalf("refresh: %v", err)
	}
	if got := pendingOf(env.Snapshot()); len(got) != 0 {
		t.Errorf("pending operations %v after a refresh; want none", got)
	}
	if reads != 0 {
		t.Errorf("the provider was asked to read %d times; its record is gone, so it cannot be", reads)
	}
	msg := warningOf(env.Events(), "slow")
	for _, part := range []string{"updating", thing, "slow-id", "by hand"} {
		if !strings.Contains(msg, part) {
			t.Errorf("the refresh's warning about slow does not say %q: %q", part, msg)
		}
	}

	// Nothing is left to warn of.
	before := len(env.Events())
	if _, err := env.Engine().Refresh(context.Background()); err != nil {
		t.Fatalf("second refresh: %v", err)
	}
	if msg := warningOf(env.Events()[before:], "slow"); msg != "" {
		t.Errorf("the second refresh still warns of slow: %s", msg)
	}
	unlocked(t, env)
}
