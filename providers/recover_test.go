package providers_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

func TestRecoverTurnsPanicsIntoErrors(t *testing.T) {
	boom := func() { panic("boom") }
	inner := &providers.Func{
		CreateF: func(context.Context, providers.CreateRequest) (providers.CreateResponse, error) {
			boom()
			return providers.CreateResponse{}, nil
		},
		InvokeF: func(context.Context, providers.InvokeRequest) (providers.InvokeResponse, error) {
			var m map[string]int
			m["x"] = 1 // a runtime error panic
			return providers.InvokeResponse{}, nil
		},
		CloseF: func(context.Context) error { panic(errors.New("close failed")) },
	}
	p := providers.Recover("mem@1.0.0", inner)
	ctx := t.Context()

	_, err := p.Create(ctx, providers.CreateRequest{URN: thingURN})
	var pe *providers.PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("Create = %v, want a *PanicError", err)
	}
	for _, want := range []string{"mem@1.0.0", "Create", string(thingURN), "boom"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if pe.Method != "Create" || pe.URN != thingURN || len(pe.Stack) == 0 {
		t.Errorf("PanicError = %+v", pe)
	}

	_, err = providers.Invoke(ctx, p, providers.InvokeRequest{Token: "mem:index:getThing"})
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "mem:index:getThing") {
		t.Errorf("Invoke = %v, want a *PanicError naming the function", err)
	}

	err = providers.Close(ctx, p)
	if !errors.As(err, &pe) || pe.Unwrap() == nil || pe.Unwrap().Error() != "close failed" {
		t.Errorf("Close = %v, want a *PanicError unwrapping the panicked error", err)
	}
}

// onlyLifecycle hides every optional ability of a provider.
type onlyLifecycle struct{ providers.Provider }

func TestRecoverKeepsAbilitiesVisible(t *testing.T) {
	ctx := t.Context()
	schema := &providers.Func{GetSchemaF: func(context.Context, providers.GetSchemaRequest) (providers.GetSchemaResponse, error) {
		return providers.GetSchemaResponse{Schema: []byte("{}")}, nil
	}}
	wrapped := providers.Recover("s", schema)
	if resp, err := providers.GetSchema(ctx, wrapped, providers.GetSchemaRequest{}); err != nil || string(resp.Schema) != "{}" {
		t.Errorf("GetSchema through Recover = %q, %v", resp.Schema, err)
	}
	if got := wrapped.(interface{ Unwrap() providers.Provider }).Unwrap(); got != schema {
		t.Errorf("Unwrap() = %v, want the wrapped provider", got)
	}

	// A provider lacking abilities: the wrapper answers ErrNotImplemented,
	// and the package functions apply each fallback.
	lacking := providers.Recover("lacking", onlyLifecycle{&providers.Func{}})
	if _, err := lacking.(providers.Invoker).Invoke(ctx, providers.InvokeRequest{Token: "f"}); !errors.Is(err, providers.ErrNotImplemented) || !strings.Contains(err.Error(), "lacking") {
		t.Errorf("Invoke through the wrapper = %v, want ErrNotImplemented naming the provider", err)
	}
	news := resource.PropertyMap{"region": str("us-west-2")}
	if resp, err := providers.CheckConfig(ctx, lacking, providers.CheckRequest{News: news}); err != nil || !resp.Inputs.DeepEquals(news) {
		t.Errorf("CheckConfig fallback = %v, %v", resp, err)
	}
	if d, err := providers.DiffConfig(ctx, lacking, providers.DiffRequest{OldInputs: news, NewInputs: resource.PropertyMap{"region": str("eu")}}); err != nil || d.Changes != resource.DiffSome || d.Replace() {
		t.Errorf("DiffConfig fallback = %+v, %v; want an in-place change", d, err)
	}
	if _, err := providers.Configure(ctx, lacking, providers.ConfigureRequest{}); err != nil {
		t.Errorf("Configure fallback: %v", err)
	}
	if err := providers.SignalCancellation(ctx, lacking); err != nil {
		t.Errorf("SignalCancellation fallback: %v", err)
	}
	if err := providers.Close(ctx, lacking); err != nil {
		t.Errorf("Close fallback: %v", err)
	}
	if _, err := providers.Call(ctx, lacking, providers.CallRequest{Token: "m"}); !errors.Is(err, providers.ErrNotImplemented) {
		t.Errorf("Call fallback = %v, want ErrNotImplemented", err)
	}
	// The package functions also work on providers that are not wrapped.
	if _, err := providers.Invoke(ctx, onlyLifecycle{&providers.Func{}}, providers.InvokeRequest{Token: "f"}); !errors.Is(err, providers.ErrNotImplemented) {
		t.Errorf("Invoke on a bare provider = %v, want ErrNotImplemented", err)
	}
}

// BenchmarkRecoveredCall measures a provider call through the Recover
// wrapper, each on a goroutine of its own as a step's is, against the
// same call made directly: what the deferred recover costs every call.
func BenchmarkRecoveredCall(b *testing.B) {
	inner := &providers.Func{CreateF: func(context.Context, providers.CreateRequest) (providers.CreateResponse, error) {
		return providers.CreateResponse{ID: "id"}, nil
	}}
	for _, bc := range []struct {
		name string
		p    providers.Provider
	}{{"direct", inner}, {"recovered", providers.Recover("bench", inner)}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			req := providers.CreateRequest{URN: "urn:pulumi:dev::p::t:m:T::a"}
			done := make(chan struct{})
			for b.Loop() {
				go func() {
					if _, err := bc.p.Create(ctx, req); err != nil {
						b.Error(err)
					}
					done <- struct{}{}
				}()
				<-done
			}
		})
	}
}
