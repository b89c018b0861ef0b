package providers_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// everything is a provider with every ability, each recording its call.
func everything(rec *recorder) *providers.Func {
	ret := resource.PropertyMap{"ok": resource.NewBool(true)}
	return &providers.Func{
		GetSchemaF: func(context.Context, providers.GetSchemaRequest) (providers.GetSchemaResponse, error) {
			rec.add("GetSchema")
			return providers.GetSchemaResponse{Schema: []byte(`{"name":"all"}`)}, nil
		},
		ConstructF: func(_ context.Context, req providers.ConstructRequest) (providers.ConstructResponse, error) {
			rec.add("Construct")
			return providers.ConstructResponse{URN: req.URN, Outputs: ret}, nil
		},
		InvokeF: func(context.Context, providers.InvokeRequest) (providers.InvokeResponse, error) {
			rec.add("Invoke")
			return providers.InvokeResponse{Return: ret}, nil
		},
		CallF: func(context.Context, providers.CallRequest) (providers.CallResponse, error) {
			rec.add("Call")
			return providers.CallResponse{Return: ret}, nil
		},
		CheckConfigF: func(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
			rec.add("CheckConfig")
			return providers.CheckResponse{Inputs: req.News}, nil
		},
		DiffConfigF: func(context.Context, providers.DiffRequest) (providers.DiffResponse, error) {
			rec.add("DiffConfig")
			return providers.DiffResponse{Changes: resource.DiffNone}, nil
		},
		SignalCancellationF: func(context.Context) error { rec.add("SignalCancellation"); return nil },
		CloseF:              func(context.Context) error { rec.add("Close"); return nil },
	}
}

func TestInstanceForwardsAbilities(t *testing.T) {
	rec := &recorder{}
	r := providers.NewRegistry()
	_ = r.RegisterFactory("all", "1.0.0", func(context.Context) (providers.Provider, error) { return everything(rec), nil })
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	ctx := t.Context()
	ref, _ := createProvider(t, r, providerURN("all", "p"), resource.PropertyMap{}, false)
	p := mustGet(t, r, ref)
	rec.mu.Lock()
	rec.events = nil // forget the registry's own CheckConfig
	rec.mu.Unlock()

	comp := resource.URN("urn:pulumi:dev::proj::all:index:Comp::c")
	var streamed []resource.PropertyMap
	errs := []error{
		second(providers.GetSchema(ctx, p, providers.GetSchemaRequest{})),
		second(providers.Construct(ctx, p, providers.ConstructRequest{URN: comp})),
		second(providers.Invoke(ctx, p, providers.InvokeRequest{Token: "all:index:f"})),
		// No StreamInvokeF: the instance answers ErrNotImplemented and the
		// package function falls back to Invoke.
		providers.StreamInvoke(ctx, p, providers.InvokeRequest{Token: "all:index:f"}, func(m resource.PropertyMap) error {
			streamed = append(streamed, m)
			return nil
		}),
		second(providers.Call(ctx, p, providers.CallRequest{Token: "all:index:Comp/m"})),
		second(providers.CheckConfig(ctx, p, providers.CheckRequest{URN: ref.URN})),
		second(providers.DiffConfig(ctx, p, providers.DiffRequest{URN: ref.URN})),
		providers.SignalCancellation(ctx, p),
		second(providers.Parameterize(ctx, p, providers.ParameterizeRequest{Args: []string{"x"}})),
	}
	if err := errors.Join(errs[:len(errs)-1]...); err != nil {
		t.Fatalf("forwarded abilities: %v", err)
	}
	if !errors.Is(errs[len(errs)-1], providers.ErrNotImplemented) {
		t.Errorf("Parameterize on a provider without it = %v, want ErrNotImplemented", errs[len(errs)-1])
	}
	want := []string{"GetSchema", "Construct", "Invoke", "Invoke", "Call", "CheckConfig", "DiffConfig", "SignalCancellation"}
	if diff := cmp.Diff(want, rec.list()); diff != "" {
		t.Errorf("calls reaching the provider (-want +got):\n%s", diff)
	}
	if len(streamed) != 1 {
		t.Errorf("StreamInvoke emitted %d results, want 1", len(streamed))
	}
	if u, ok := p.(interface{ Unwrap() providers.Provider }); !ok || u.Unwrap() == nil {
		t.Error("a started instance must Unwrap to its provider")
	}

	// Closing the instance directly: it stays known, refusing calls.
	if err := providers.Close(ctx, p); err != nil {
		t.Fatal(err)
	}
	if got := rec.having("Close"); len(got) != 1 {
		t.Errorf("Close reached the provider %d times, want 1", len(got))
	}
	if _, err := providers.Invoke(ctx, mustGet(t, r, ref), providers.InvokeRequest{Token: "all:index:f"}); !errors.Is(err, providers.ErrClosed) {
		t.Errorf("Invoke after Close = %v, want ErrClosed", err)
	}
	if err := providers.Close(ctx, p); err != nil {
		t.Errorf("a second Close = %v, want nil", err)
	}
}

func TestUnconfiguredInstanceAbilities(t *testing.T) {
	rec := &recorder{}
	r := providers.NewRegistry()
	_ = r.RegisterFactory("all", "1.0.0", func(context.Context) (providers.Provider, error) { return everything(rec), nil })
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	ctx := t.Context()
	ref, _ := createProvider(t, r, providerURN("all", "p"), resource.PropertyMap{"token": resource.NewUnknown()}, true)
	p := mustGet(t, r, ref)

	// The schema needs no configuration: it is forwarded.
	if s, err := providers.GetSchema(ctx, p, providers.GetSchemaRequest{}); err != nil || string(s.Schema) != `{"name":"all"}` {
		t.Errorf("GetSchema = %q, %v", s.Schema, err)
	}
	// Components and methods need a configured provider.
	for name, err := range map[string]error{
		"Construct": second(providers.Construct(ctx, p, providers.ConstructRequest{URN: "urn:pulumi:dev::proj::all:index:Comp::c", Preview: true})),
		"Call":      second(providers.Call(ctx, p, providers.CallRequest{Token: "all:index:Comp/m", Preview: true})),
	} {
		if !errors.Is(err, providers.ErrNotConfigured) {
			t.Errorf("%s on an unconfigured provider = %v, want ErrNotConfigured", name, err)
		}
	}
	n := 0
	if err := providers.StreamInvoke(ctx, p, providers.InvokeRequest{Token: "all:index:f"}, func(resource.PropertyMap) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("StreamInvoke on an unconfigured provider = %v with %d results; want nothing", err, n)
	}
	if got := rec.having("Invoke"); got != nil {
		t.Errorf("an unconfigured provider was invoked: %v", got)
	}
}
