package providers

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/resource"
)

// The optional abilities of a registry instance. Each goes through the same
// lifecycle guard as the resource operations.

// CheckConfig forwards to the provider: checking configuration needs none.
func (i *instance) CheckConfig(ctx context.Context, req CheckRequest) (CheckResponse, error) {
	call := func(p full) (CheckResponse, error) { return p.CheckConfig(ctx, req) }
	return guard(ctx, i, "CheckConfig", req.URN, call, call)
}

// DiffConfig forwards to the provider: diffing configuration needs none.
func (i *instance) DiffConfig(ctx context.Context, req DiffRequest) (DiffResponse, error) {
	call := func(p full) (DiffResponse, error) { return p.DiffConfig(ctx, req) }
	return guard(ctx, i, "DiffConfig", req.URN, call, call)
}

// Configure is refused: the registry configures its instances from their
// provider resources.
func (i *instance) Configure(ctx context.Context, req ConfigureRequest) (ConfigureResponse, error) {
	return ConfigureResponse{}, fmt.Errorf("provider %s: Configure: the registry configures its instances from their provider resources; update the provider resource %s instead", i.ref, i.ref.URN)
}

func (i *instance) Parameterize(ctx context.Context, req ParameterizeRequest) (ParameterizeResponse, error) {
	call := func(p full) (ParameterizeResponse, error) { return p.Parameterize(ctx, req) }
	return guard(ctx, i, "Parameterize", "", call, call)
}

func (i *instance) GetSchema(ctx context.Context, req GetSchemaRequest) (GetSchemaResponse, error) {
	call := func(p full) (GetSchemaResponse, error) { return p.GetSchema(ctx, req) }
	return guard(ctx, i, "GetSchema", "", call, call)
}

func (i *instance) Construct(ctx context.Context, req ConstructRequest) (ConstructResponse, error) {
	return guard(ctx, i, "Construct", req.URN, nil,
		func(p full) (ConstructResponse, error) { return p.Construct(ctx, req) })
}

// Invoke on an unconfigured instance (a preview) returns an empty result.
func (i *instance) Invoke(ctx context.Context, req InvokeRequest) (InvokeResponse, error) {
	return guard(ctx, i, "Invoke "+req.Token, "",
		func(full) (InvokeResponse, error) { return InvokeResponse{Return: resource.PropertyMap{}}, nil },
		func(p full) (InvokeResponse, error) { return p.Invoke(ctx, req) })
}

// StreamInvoke on an unconfigured instance (a preview) emits nothing.
func (i *instance) StreamInvoke(ctx context.Context, req InvokeRequest, emit func(resource.PropertyMap) error) error {
	_, err := guard(ctx, i, "StreamInvoke "+req.Token, "",
		func(full) (struct{}, error) { return struct{}{}, nil },
		func(p full) (struct{}, error) { return struct{}{}, p.StreamInvoke(ctx, req, emit) })
	return err
}

func (i *instance) Call(ctx context.Context, req CallRequest) (CallResponse, error) {
	return guard(ctx, i, "Call "+req.Token, "", nil,
		func(p full) (CallResponse, error) { return p.Call(ctx, req) })
}

// SignalCancellation forwards to a started provider, even a closed one;
// it does nothing for one not started.
func (i *instance) SignalCancellation(ctx context.Context) error {
	i.mu.Lock()
	p := i.inner
	i.mu.Unlock()
	if p == nil {
		return nil
	}
	return SignalCancellation(ctx, p)
}

// Close shuts the instance down (signal, wait for calls in flight, close);
// later calls are refused with ErrClosed. The registry keeps it, so Get
// still finds it and callers learn that it is closed.
func (i *instance) Close(ctx context.Context) error { return i.shutdown(ctx) }
