package server_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

var thing = resource.NewURN("dev", "proj", "", "x:index:Thing", "t")

// Every ability crosses the wire and back.
func TestAbilitiesRoundTrip(t *testing.T) {
	var mu sync.Mutex
	var params []providers.ParameterizeRequest
	detailed := resource.DiffResult{
		Changes: resource.DiffSome, ReplaceKeys: []resource.PropertyKey{"a"}, ChangedKeys: []resource.PropertyKey{"a"},
		StableKeys: []resource.PropertyKey{"id"}, DeleteBeforeReplace: true,
		DetailedDiff: map[string]resource.PropertyDiff{"a": {Kind: resource.DiffUpdateReplace, InputDiff: true}},
	}
	var gotDiff providers.DiffRequest
	addr, _ := serve(t, &providers.Func{
		ParameterizeF: func(_ context.Context, req providers.ParameterizeRequest) (providers.ParameterizeResponse, error) {
			mu.Lock()
			defer mu.Unlock()
			params = append(params, req)
			return providers.ParameterizeResponse{Name: "sub", Version: "2.0.0"}, nil
		},
		GetSchemaF: func(_ context.Context, req providers.GetSchemaRequest) (providers.GetSchemaResponse, error) {
			return providers.GetSchemaResponse{Schema: []byte(`{"name":"x","version":` + string(rune('0'+req.Version)) + `}`)}, nil
		},
		InvokeF: func(context.Context, providers.InvokeRequest) (providers.InvokeResponse, error) {
			return providers.InvokeResponse{Failures: []providers.CheckFailure{{Property: "n", Reason: "too big"}}}, nil
		},
		DiffF: func(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
			gotDiff = req
			return detailed, nil
		},
	})
	p := connect(t, addr)
	ctx := t.Context()

	if resp, err := p.Parameterize(ctx, providers.ParameterizeRequest{Args: []string{"--x", "y"}}); err != nil || resp.Name != "sub" || resp.Version != "2.0.0" {
		t.Errorf("Parameterize (args) = %+v, %v", resp, err)
	}
	value := &providers.ParameterizeValue{Name: "sub", Version: "2.0.0", Value: []byte{1, 2, 3}}
	if _, err := p.Parameterize(ctx, providers.ParameterizeRequest{Value: value}); err != nil {
		t.Errorf("Parameterize (value): %v", err)
	}
	mu.Lock()
	if diff := cmp.Diff([]providers.ParameterizeRequest{{Args: []string{"--x", "y"}}, {Value: value}}, params); diff != "" {
		t.Errorf("parameterizations received (-want +got):\n%s", diff)
	}
	mu.Unlock()

	if resp, err := p.GetSchema(ctx, providers.GetSchemaRequest{Version: 1}); err != nil || string(resp.Schema) != `{"name":"x","version":1}` {
		t.Errorf("GetSchema = %s, %v", resp.Schema, err)
	}
	if resp, err := p.Invoke(ctx, providers.InvokeRequest{Token: "x:index:f"}); err != nil || !cmp.Equal(resp.Failures, []providers.CheckFailure{{Property: "n", Reason: "too big"}}) {
		t.Errorf("Invoke = %+v, %v", resp, err)
	}
	var failed *providers.InvokeFailedError
	if err := providers.StreamInvoke(ctx, p, providers.InvokeRequest{Token: "x:index:f"}, func(resource.PropertyMap) error { return nil }); !errors.As(err, &failed) {
		t.Errorf("StreamInvoke with failures = %v, want an *InvokeFailedError", err)
	}

	req := providers.DiffRequest{
		URN: thing, ID: "i", IgnoreChanges: []string{"b"},
		OldInputs: resource.PropertyMap{"a": resource.NewString("1")}, OldOutputs: resource.PropertyMap{"a": resource.NewString("1"), "id": resource.NewString("i")},
		NewInputs: resource.PropertyMap{"a": resource.NewString("2")},
	}
	d, err := p.Diff(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(detailed, d); diff != "" {
		t.Errorf("Diff (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(req, gotDiff); diff != "" {
		t.Errorf("DiffRequest the provider received (-want +got):\n%s", diff)
	}

	// A provider without configuration abilities gets the fallbacks.
	news := resource.PropertyMap{"region": resource.NewString("eu")}
	if resp, err := p.CheckConfig(ctx, providers.CheckRequest{News: news}); err != nil || !resp.Inputs.DeepEquals(news) {
		t.Errorf("CheckConfig fallback = %+v, %v", resp, err)
	}
	if d, err := p.DiffConfig(ctx, providers.DiffRequest{OldInputs: news, NewInputs: resource.PropertyMap{}}); err != nil || d.Changes != resource.DiffSome || d.Replace() {
		t.Errorf("DiffConfig fallback = %+v, %v", d, err)
	}
}

// A provider that does not accept secrets gets plain values, and its
// outputs are marked secret again where their inputs were.
func TestSecretsWithAProviderThatRefusesThem(t *testing.T) {
	var seen resource.PropertyMap
	addr, _ := serve(t, &providers.Func{
		ConfigureF: func(context.Context, providers.ConfigureRequest) (providers.ConfigureResponse, error) {
			return providers.ConfigureResponse{}, nil // accepts neither secrets nor resources
		},
		CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			seen = req.Inputs
			return providers.CreateResponse{ID: "i", Outputs: req.Inputs}, nil
		},
	})
	p := connect(t, addr)
	if _, err := p.Configure(t.Context(), providers.ConfigureRequest{AcceptSecrets: true, AcceptResources: true}); err != nil {
		t.Fatal(err)
	}
	ref := resource.NewResourceReference(resource.ResourceReference{URN: thing, ID: "ref-id"})
	inputs := resource.PropertyMap{"token": resource.NewSecret(resource.NewString("s")), "plain": resource.NewString("p"), "ref": ref}
	resp, err := p.Create(t.Context(), providers.CreateRequest{URN: thing, Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	wantSeen := resource.PropertyMap{"token": resource.NewString("s"), "plain": resource.NewString("p"), "ref": resource.NewString("ref-id")}
	if diff := cmp.Diff(wantSeen, seen); diff != "" {
		t.Errorf("what the provider received (-want +got):\n%s", diff)
	}
	wantOuts := resource.PropertyMap{"token": resource.NewSecret(resource.NewString("s")), "plain": resource.NewString("p"), "ref": resource.NewString("ref-id")}
	if diff := cmp.Diff(wantOuts, resp.Outputs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
}
