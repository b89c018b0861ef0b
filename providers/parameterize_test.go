package providers_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// bridgeFactory starts a generic "bridge" plugin that becomes the package
// its parameterization names: args ["<name>", "<version>"], or a value
// whose Name and Version say it.
func bridgeFactory(rec *recorder) providers.Factory {
	return func(context.Context) (providers.Provider, error) {
		var mu sync.Mutex
		serves := ""
		return &providers.Func{
			ParameterizeF: func(_ context.Context, req providers.ParameterizeRequest) (providers.ParameterizeResponse, error) {
				var name, version string
				switch {
				case req.Value != nil:
					name, version = req.Value.Name, req.Value.Version
					rec.add("parameterize value %s@%s %s", name, version, req.Value.Value)
				case len(req.Args) == 2:
					name, version = req.Args[0], req.Args[1]
					rec.add("parameterize args %s", strings.Join(req.Args, " "))
				default:
					return providers.ParameterizeResponse{}, fmt.Errorf("want args <name> <version>, got %q", req.Args)
				}
				mu.Lock()
				serves = name
				mu.Unlock()
				return providers.ParameterizeResponse{Name: name, Version: version}, nil
			},
			CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
				mu.Lock()
				defer mu.Unlock()
				return providers.CreateResponse{ID: "x", Outputs: resource.PropertyMap{"servedAs": resource.NewString(serves)}}, nil
			},
		}, nil
	}
}

func newBridgeRegistry(t *testing.T, rec *recorder) *providers.Registry {
	t.Helper()
	r := providers.NewRegistry()
	if err := r.RegisterFactory("bridge", "0.5.0", bridgeFactory(rec)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	return r
}

func TestParameterizeArgsForm(t *testing.T) {
	rec := &recorder{}
	r := newBridgeRegistry(t, rec)
	ctx := t.Context()
	resp, err := r.Parameterize(ctx, "bridge", "", providers.ParameterizeRequest{Args: []string{"aws", "1.2.0"}})
	if err != nil || resp != (providers.ParameterizeResponse{Name: "aws", Version: "1.2.0"}) {
		t.Fatalf("Parameterize = %+v, %v", resp, err)
	}
	info, err := r.Lookup("aws", "1.0.0")
	want := providers.FactoryInfo{Package: "aws", Version: "1.2.0", Plugin: "bridge", PluginVersion: "0.5.0"}
	if diff := cmp.Diff(want, info); err != nil || diff != "" {
		t.Fatalf("Lookup of the produced package: %v (-want +got):\n%s", err, diff)
	}
	if again, err := r.Parameterize(ctx, "bridge", "0.5.0", providers.ParameterizeRequest{Args: []string{"aws", "1.2.0"}}); err != nil || again != resp {
		t.Errorf("parameterizing again = %+v, %v; want the same answer", again, err)
	}

	// A provider resource of the produced package: its instance is the
	// plugin, parameterized again, and its inputs record how.
	urn := providerURN("aws", "main")
	ref, checked := createProvider(t, r, urn, resource.PropertyMap{"version": str("1.2.0")}, false)
	res, err := mustGet(t, r, ref).Create(ctx, providers.CreateRequest{URN: "urn:pulumi:dev::proj::aws:s3/bucket:Bucket::b"})
	if err != nil || res.Outputs["servedAs"].StringValue() != "aws" {
		t.Fatalf("Create through the parameterized provider = %+v, %v", res, err)
	}
	if _, ok := checked[providers.ParameterizationKey]; !ok {
		t.Fatalf("checked inputs %v do not record the parameterization", checked)
	}

	// The next run: a fresh registry that knows only the plugin restores
	// the package from the recorded inputs.
	rec2 := &recorder{}
	r2 := newBridgeRegistry(t, rec2)
	state := &resource.State{Type: providers.ProviderType("aws"), URN: urn, ID: ref.ID, Custom: true, Inputs: checked, Outputs: checked}
	if err := r2.Load(ctx, []*resource.State{state}); err != nil {
		t.Fatalf("Load: %v", err)
	}
	res, err = mustGet(t, r2, ref).Create(ctx, providers.CreateRequest{URN: "urn:pulumi:dev::proj::aws:s3/bucket:Bucket::b"})
	if err != nil || res.Outputs["servedAs"].StringValue() != "aws" {
		t.Fatalf("Create through the restored provider = %+v, %v", res, err)
	}
	// Once to restore the package (the probe), once for the instance.
	if got := rec2.having("parameterize"); !cmp.Equal(got, []string{"parameterize args aws 1.2.0", "parameterize args aws 1.2.0"}) {
		t.Errorf("parameterize events in the second run = %v", got)
	}
}

func TestParameterizeValueForm(t *testing.T) {
	rec := &recorder{}
	r := newBridgeRegistry(t, rec)
	ctx := t.Context()
	req := providers.ParameterizeRequest{Value: &providers.ParameterizeValue{Name: "gcp", Version: "2.0.0", Value: []byte("blob")}}
	if _, err := r.Parameterize(ctx, "bridge", "0.5.0", req); err != nil {
		t.Fatalf("Parameterize: %v", err)
	}
	req.Value.Value[0] = 'X' // the registry must have kept its own copy

	p, info, err := r.Instantiate(ctx, "gcp", "2.0.0")
	if err != nil {
		t.Fatalf("Instantiate: %v", err)
	}
	defer providers.Close(ctx, p)
	if info.Plugin != "bridge" {
		t.Errorf("Instantiate chose %v", info)
	}
	if got := rec.having("parameterize"); !cmp.Equal(got, []string{"parameterize value gcp@2.0.0 blob", "parameterize value gcp@2.0.0 blob"}) {
		t.Errorf("parameterize events = %v; want the value replayed on the new instance", got)
	}

	// The recorded form is the value form, restorable later.
	_, checked := createProvider(t, r, providerURN("gcp", "p"), resource.PropertyMap{"version": str("2.0.0")}, false)
	rec2 := &recorder{}
	r2 := newBridgeRegistry(t, rec2)
	if _, err := r2.Check(ctx, providers.CheckRequest{URN: providerURN("gcp", "p"), News: checked}); err != nil {
		t.Fatalf("Check with a recorded parameterization: %v", err)
	}
	if got := rec2.having("parameterize"); len(got) != 1 || got[0] != "parameterize value gcp@2.0.0 blob" {
		t.Errorf("restoring from inputs = %v", got)
	}
}

func TestParameterizeErrors(t *testing.T) {
	r := newBridgeRegistry(t, &recorder{})
	_ = r.RegisterFactory("plain", "1.0.0", newFuncFactory())
	ctx := t.Context()
	tests := []struct {
		name, plugin string
		req          providers.ParameterizeRequest
		want         string
		is           error
	}{
		{name: "neither form", plugin: "bridge", want: "exactly one"},
		{name: "both forms", plugin: "bridge", req: providers.ParameterizeRequest{Args: []string{"a"}, Value: &providers.ParameterizeValue{}}, want: "exactly one"},
		{name: "plugin refuses", plugin: "bridge", req: providers.ParameterizeRequest{Args: []string{"a"}}, want: "want args"},
		{name: "bad version", plugin: "bridge", req: providers.ParameterizeRequest{Args: []string{"a", "one"}}, want: "invalid version"},
		{name: "not parameterizable", plugin: "plain", req: providers.ParameterizeRequest{Args: []string{"a"}}, is: providers.ErrNotImplemented},
		{name: "unknown plugin", plugin: "nope", req: providers.ParameterizeRequest{Args: []string{"a"}}, want: "no provider for package"},
		{name: "package taken", plugin: "bridge", req: providers.ParameterizeRequest{Args: []string{"plain", "1.0.0"}}, want: "already serves"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Parameterize(ctx, tt.plugin, "", tt.req)
			if err == nil || (tt.want != "" && !strings.Contains(err.Error(), tt.want)) || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Errorf("Parameterize = %v; want an error containing %q / wrapping %v", err, tt.want, tt.is)
			}
		})
	}
}
