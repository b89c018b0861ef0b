//go:build unix

package plugin_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/plugin"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// Interrupting an update while a plugin creates a resource never forgets
// it: the plugin's answer within the grace period (success or a partial
// failure) is recorded; a create that outlives it stays recorded as a
// pending operation naming the resource.
func TestInterruptDuringPluginCreate(t *testing.T) {
	tests := []struct {
		name   string
		inputs engine.Props
		grace  time.Duration
		// id is the ID "slow" is recorded with, "" if it is only pending;
		// initErrors whether it has init errors.
		id         resource.ID
		initErrors bool
	}{
		{"a create that answers within the grace period is recorded", engine.Props{"sleepMs": 1500}, 30 * time.Second, "", false},
		{"a partial failure answered after the interrupt is recorded", engine.Props{"sleepMs": 1500, "partial": true}, 30 * time.Second, "partial-1", true},
		{"a create that outlives the grace period stays pending", engine.Props{"sleepMs": 60000}, 500 * time.Millisecond, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := memstore.New()
			eng, err := engine.New(engine.Config{
				Project: "proj", Stack: "dev", Store: store,
				Providers: func() *providers.Registry {
					return providers.NewRegistry(providers.WithResolver(plugin.Resolver(plugin.Options{})))
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			started := filepath.Join(t.TempDir(), "started")
			inputs := engine.Props{"started": started}
			for k, v := range tt.inputs {
				inputs[k] = v
			}
			ctx, cancel := context.WithCancelCause(t.Context())
			defer cancel(nil)
			interrupted := make(chan time.Time, 1)
			go func() {
				defer close(interrupted)
				for ctx.Err() == nil {
					if _, err := os.Stat(started); err == nil {
						interrupted <- time.Now()
						cancel(errors.New("interrupted"))
						return
					}
					time.Sleep(10 * time.Millisecond)
				}
			}()
			_, upErr := eng.Up(ctx, func(c *engine.Context) error {
				c.Register("gwtest:index:Thing", "slow", inputs)
				return nil
			}, engine.GracePeriod(tt.grace))
			at, ok := <-interrupted
			if !ok {
				t.Fatalf("the create never started: %v", upErr)
			}
			if took := time.Since(at); took > tt.grace+10*time.Second {
				t.Errorf("Up returned %v after the interrupt; the grace period is %v", took, tt.grace)
			}
			var ce *engine.CancelledError
			if !errors.As(upErr, &ce) {
				t.Fatalf("error = %v; want a *CancelledError", upErr)
			}
			snap, err := store.Load(t.Context(), state.StackID{Project: "proj", Stack: "dev"})
			if err != nil {
				t.Fatal(err)
			}
			urn := resource.NewURN("dev", "proj", "", "gwtest:index:Thing", "slow")
			var slow *resource.State
			for _, r := range snap.Resources {
				if r.URN == urn {
					slow = r
				}
			}
			var pending []string
			for _, op := range snap.PendingOperations {
				pending = append(pending, string(op.Kind)+" "+string(op.Resource.URN))
			}
			if tt.grace < time.Second {
				want := []string{"creating " + string(urn)}
				if slow != nil || !slices.Equal(pending, want) || !slices.Equal(ce.Pending, want) {
					t.Errorf("slow recorded: %v, pending %v, reported pending %v; want it only pending, %v", slow != nil, pending, ce.Pending, want)
				}
				return
			}
			if slow == nil || slow.ID == "" || len(pending) > 0 {
				t.Fatalf("slow recorded: %v, pending %v; want it recorded with its ID (error: %v)", slow != nil, pending, upErr)
			}
			if tt.id != "" && slow.ID != tt.id {
				t.Errorf("slow is recorded with id %s; want %s", slow.ID, tt.id)
			}
			if got := len(slow.InitErrors) > 0; got != tt.initErrors {
				t.Errorf("slow's init errors %v; want some: %v", slow.InitErrors, tt.initErrors)
			}
		})
	}
}

// A plugin that dies in the middle of a create may have created the
// resource: the create stays recorded as a pending operation naming it.
func TestPluginDyingMidCreateLeavesItPending(t *testing.T) {
	store := memstore.New()
	eng, err := engine.New(engine.Config{
		Project: "proj", Stack: "dev", Store: store,
		Providers: func() *providers.Registry {
			return providers.NewRegistry(providers.WithResolver(plugin.Resolver(plugin.Options{})))
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, upErr := eng.Up(t.Context(), func(c *engine.Context) error {
		c.Register("gwtest:index:Thing", "doomed", engine.Props{"crash": true})
		return nil
	})
	var un *engine.UnansweredError
	var exit *plugin.ExitError
	if !errors.As(upErr, &un) || !errors.As(upErr, &exit) {
		t.Errorf("error = %v; want an *engine.UnansweredError wrapping the plugin's *ExitError", upErr)
	}
	snap, err := store.Load(t.Context(), state.StackID{Project: "proj", Stack: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	var pending []string
	for _, op := range snap.PendingOperations {
		pending = append(pending, string(op.Kind)+" "+op.Resource.URN.Name())
	}
	if want := []string{"creating doomed"}; !slices.Equal(pending, want) {
		t.Errorf("pending operations %v; want %v", pending, want)
	}
}
