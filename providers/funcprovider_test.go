package providers_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

const thingURN = resource.URN("urn:pulumi:dev::proj::mem:index:Thing::t")

func str(s string) resource.PropertyValue { return resource.NewString(s) }

func TestFuncDefaults(t *testing.T) {
	ctx := t.Context()
	p := &providers.Func{}
	ins := resource.PropertyMap{"a": str("1")}

	check, err := p.Check(ctx, providers.CheckRequest{URN: thingURN, News: ins})
	if err != nil || !check.Inputs.DeepEquals(ins) {
		t.Errorf("Check = %v, %v; want the news unchanged", check, err)
	}
	if _, err := p.Create(ctx, providers.CreateRequest{URN: thingURN, Inputs: ins}); !errors.Is(err, providers.ErrNotImplemented) {
		t.Errorf("Create without CreateF = %v, want ErrNotImplemented", err)
	}
	read, err := p.Read(ctx, providers.ReadRequest{URN: thingURN, ID: "id", Inputs: ins, State: resource.PropertyMap{"b": str("2")}})
	if diff := cmp.Diff(providers.ReadResponse{ID: "id", Inputs: ins, Outputs: resource.PropertyMap{"b": str("2")}}, read); err != nil || diff != "" {
		t.Errorf("Read = %v (-want +got):\n%s", err, diff)
	}
	upd, err := p.Update(ctx, providers.UpdateRequest{
		URN: thingURN, ID: "id",
		OldInputs:  resource.PropertyMap{"a": str("1"), "gone": str("x")},
		OldOutputs: resource.PropertyMap{"a": str("1"), "gone": str("x"), "computed": str("c")},
		NewInputs:  resource.PropertyMap{"a": str("2"), "new": str("n")},
	})
	wantOuts := resource.PropertyMap{"a": str("2"), "new": str("n"), "computed": str("c")}
	if diff := cmp.Diff(wantOuts, upd.Outputs); err != nil || diff != "" {
		t.Errorf("Update = %v (-want +got):\n%s", err, diff)
	}
	if _, err := p.Delete(ctx, providers.DeleteRequest{URN: thingURN, ID: "id"}); err != nil {
		t.Errorf("Delete: %v", err)
	}

	// Configuration: trivially configured.
	if resp, err := p.CheckConfig(ctx, providers.CheckRequest{News: ins}); err != nil || !resp.Inputs.DeepEquals(ins) {
		t.Errorf("CheckConfig = %v, %v", resp, err)
	}
	if resp, err := p.Configure(ctx, providers.ConfigureRequest{Inputs: ins}); err != nil || !resp.SupportsPreview || !resp.AcceptSecrets {
		t.Errorf("Configure = %+v, %v; want success accepting everything", resp, err)
	}
	if err := p.SignalCancellation(ctx); err != nil {
		t.Errorf("SignalCancellation: %v", err)
	}
	if err := p.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}

	// Everything else: not implemented.
	notImpl := map[string]error{}
	_, notImpl["Invoke"] = p.Invoke(ctx, providers.InvokeRequest{Token: "mem:index:f"})
	notImpl["StreamInvoke"] = p.StreamInvoke(ctx, providers.InvokeRequest{Token: "mem:index:f"}, nil)
	_, notImpl["Call"] = p.Call(ctx, providers.CallRequest{Token: "mem:index:C/m"})
	_, notImpl["Construct"] = p.Construct(ctx, providers.ConstructRequest{URN: thingURN})
	_, notImpl["GetSchema"] = p.GetSchema(ctx, providers.GetSchemaRequest{})
	_, notImpl["Parameterize"] = p.Parameterize(ctx, providers.ParameterizeRequest{Args: []string{"x"}})
	for method, err := range notImpl {
		if !errors.Is(err, providers.ErrNotImplemented) {
			t.Errorf("%s without a function = %v, want ErrNotImplemented", method, err)
		}
	}

	var nilFunc *providers.Func
	if _, err := nilFunc.Check(ctx, providers.CheckRequest{News: ins}); err != nil {
		t.Errorf("a nil *Func must behave as an empty one: %v", err)
	}
}

func TestFuncCallsItsFunctions(t *testing.T) {
	called := ""
	p := &providers.Func{
		CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			called = "create"
			return providers.CreateResponse{ID: "x", Outputs: req.Inputs}, nil
		},
		InvokeF: func(_ context.Context, req providers.InvokeRequest) (providers.InvokeResponse, error) {
			return providers.InvokeResponse{Return: resource.PropertyMap{"echo": str(req.Token)}}, nil
		},
	}
	if resp, err := p.Create(t.Context(), providers.CreateRequest{URN: thingURN}); err != nil || resp.ID != "x" || called != "create" {
		t.Errorf("Create = %v, %v", resp, err)
	}
	// StreamInvoke falls back to Invoke through the package function.
	var got []resource.PropertyMap
	err := providers.StreamInvoke(t.Context(), p, providers.InvokeRequest{Token: "t"}, func(m resource.PropertyMap) error {
		got = append(got, m)
		return nil
	})
	if diff := cmp.Diff([]resource.PropertyMap{{"echo": str("t")}}, got); err != nil || diff != "" {
		t.Errorf("StreamInvoke fallback: %v (-want +got):\n%s", err, diff)
	}
}

func TestDiffInputs(t *testing.T) {
	upd := resource.PropertyDiff{Kind: resource.DiffUpdate, InputDiff: true}
	tests := []struct {
		name       string
		olds, news resource.PropertyMap
		want       resource.DiffResult
	}{
		{name: "both empty", want: resource.DiffResult{Changes: resource.DiffNone}},
		{
			name: "equal nested",
			olds: resource.PropertyMap{"o": resource.NewObject(resource.PropertyMap{"x": str("1")})},
			news: resource.PropertyMap{"o": resource.NewObject(resource.PropertyMap{"x": str("1")})},
			want: resource.DiffResult{Changes: resource.DiffNone},
		},
		{
			name: "null equals absent",
			olds: resource.PropertyMap{"n": resource.NewNull()},
			want: resource.DiffResult{Changes: resource.DiffNone},
		},
		{
			name: "update add delete",
			olds: resource.PropertyMap{"a": str("1"), "b": str("x"), "same": str("s")},
			news: resource.PropertyMap{"a": str("2"), "c": str("y"), "same": str("s")},
			want: resource.DiffResult{
				Changes:     resource.DiffSome,
				ChangedKeys: []resource.PropertyKey{"a", "b", "c"},
				DetailedDiff: map[string]resource.PropertyDiff{
					"a": upd,
					"b": {Kind: resource.DiffDelete, InputDiff: true},
					"c": {Kind: resource.DiffAdd, InputDiff: true},
				},
			},
		},
		{
			name: "unknown is a change, odd keys are quoted",
			olds: resource.PropertyMap{"a.b": str("1")},
			news: resource.PropertyMap{"a.b": resource.NewUnknown()},
			want: resource.DiffResult{
				Changes:      resource.DiffSome,
				ChangedKeys:  []resource.PropertyKey{"a.b"},
				DetailedDiff: map[string]resource.PropertyDiff{`["a.b"]`: upd},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := providers.DiffInputs(tt.olds, tt.news)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DiffInputs (-want +got):\n%s", diff)
			}
			if got.Replace() {
				t.Error("DiffInputs must never ask for a replacement")
			}
		})
	}
}
