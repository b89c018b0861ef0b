package engine_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// An update is interrupted while a database is being created, and its
// provider gives up only when its context ends: at the end of the grace
// period. The create is not forgotten: it stays recorded as a pending
// operation naming the resource, which a refresh resolves.
func ExampleGracePeriod() {
	started := make(chan struct{})
	cloud := &providers.Func{CreateF: func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
		close(started)
		<-ctx.Done()
		return providers.CreateResponse{}, ctx.Err()
	}}
	store := memstore.New()
	eng, err := engine.New(engine.Config{
		Project: "shop", Stack: "dev", Store: store,
		Providers: func() *providers.Registry {
			r := providers.NewRegistry()
			_ = r.RegisterFactory("cloud", "1.0.0", func(context.Context) (providers.Provider, error) { return cloud, nil })
			return r
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		<-started
		cancel(errors.New("interrupted"))
	}()
	_, err = eng.Up(ctx, func(c *engine.Context) error {
		c.Register("cloud:index:Database", "orders", engine.Props{})
		return nil
	}, engine.GracePeriod(100*time.Millisecond))
	var cancelled *engine.CancelledError
	if errors.As(err, &cancelled) {
		fmt.Println("left pending:", cancelled.Pending)
	}
	snap, err := store.Load(context.Background(), state.StackID{Project: "shop", Stack: "dev"})
	if err != nil {
		log.Fatal(err)
	}
	for _, op := range snap.PendingOperations {
		fmt.Println("recorded:", op.Kind, op.Resource.URN.Name())
	}
	// Output:
	// left pending: [creating urn:pulumi:dev::shop::cloud:index:Database::orders]
	// recorded: creating orders
}
