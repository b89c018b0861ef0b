package providers_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// recorder is a log of provider lifecycle events, safe for concurrent use.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf(format, args...))
}

func (r *recorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// having returns the events that begin with prefix.
func (r *recorder) having(prefix string) []string {
	var out []string
	for _, e := range r.list() {
		if strings.HasPrefix(e, prefix) {
			out = append(out, e)
		}
	}
	return out
}

// cloudFactory starts providers named p1, p2, ... that need a "region"
// (changing it forces a replacement), refuse to be configured with region
// "fail", and record their lifecycle in rec.
func cloudFactory(rec *recorder) providers.Factory {
	var n atomic.Int32
	return func(context.Context) (providers.Provider, error) {
		name := fmt.Sprintf("p%d", n.Add(1))
		rec.add("start %s", name)
		var mu sync.Mutex
		region := ""
		return &providers.Func{
			CheckConfigF: func(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
				for _, k := range []resource.PropertyKey{providers.VersionKey, providers.PluginDownloadURLKey, providers.ParameterizationKey} {
					if _, ok := req.News[k]; ok {
						return providers.CheckResponse{}, fmt.Errorf("reserved key %q reached CheckConfig", k)
					}
				}
				if _, ok := req.News["region"]; !ok {
					return providers.CheckResponse{Failures: []providers.CheckFailure{{Property: "region", Reason: "required"}}}, nil
				}
				return providers.CheckResponse{Inputs: req.News}, nil
			},
			DiffConfigF: func(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
				d := providers.DiffInputs(req.OldInputs, req.NewInputs)
				if slices.Contains(d.ChangedKeys, "region") {
					d.ReplaceKeys = []resource.PropertyKey{"region"}
				}
				return d, nil
			},
			ConfigureF: func(_ context.Context, req providers.ConfigureRequest) (providers.ConfigureResponse, error) {
				if _, ok := req.Inputs[providers.VersionKey]; ok {
					return providers.ConfigureResponse{}, errors.New("version reached Configure")
				}
				r := req.Inputs["region"].StringValue()
				rec.add("configure %s region=%s", name, r)
				if r == "fail" {
					return providers.ConfigureResponse{}, errors.New("no such region")
				}
				mu.Lock()
				region = r
				mu.Unlock()
				return providers.ConfigureResponse{SupportsPreview: true}, nil
			},
			CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
				mu.Lock()
				defer mu.Unlock()
				outs := resource.PropertyMap{}
				for k, v := range req.Inputs {
					outs[k] = v
				}
				outs["region"] = resource.NewString(region)
				outs["by"] = resource.NewString(name)
				return providers.CreateResponse{ID: resource.ID("r-" + name), Outputs: outs}, nil
			},
			InvokeF: func(context.Context, providers.InvokeRequest) (providers.InvokeResponse, error) {
				return providers.InvokeResponse{Return: resource.PropertyMap{"by": resource.NewString(name)}}, nil
			},
			SignalCancellationF: func(context.Context) error { rec.add("signal %s", name); return nil },
			CloseF:              func(context.Context) error { rec.add("close %s", name); return nil },
		}, nil
	}
}

// counterIDs makes provider IDs id-1, id-2, ...
func counterIDs() func() resource.ID {
	var n atomic.Int32
	return func() resource.ID { return resource.ID(fmt.Sprintf("id-%d", n.Add(1))) }
}

func providerURN(pkg, name string) resource.URN {
	return resource.NewURN("dev", "proj", "", providers.ProviderType(pkg), name)
}

func newCloudRegistry(t *testing.T, rec *recorder) *providers.Registry {
	t.Helper()
	r := providers.NewRegistry(providers.WithIDs(counterIDs()))
	if err := r.RegisterFactory("cloud", "1.0.0", cloudFactory(rec)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	return r
}

// createProvider checks and creates a provider resource and returns its
// reference and checked inputs.
func createProvider(t *testing.T, r *providers.Registry, urn resource.URN, inputs resource.PropertyMap, preview bool) (providers.Reference, resource.PropertyMap) {
	t.Helper()
	checked, err := r.Check(t.Context(), providers.CheckRequest{URN: urn, News: inputs})
	if err != nil || len(checked.Failures) > 0 {
		t.Fatalf("Check %s: %v %v", urn, err, checked.Failures)
	}
	created, err := r.Create(t.Context(), providers.CreateRequest{URN: urn, Inputs: checked.Inputs, Preview: preview})
	if err != nil {
		t.Fatalf("Create %s: %v", urn, err)
	}
	return providers.NewReference(urn, created.ID), checked.Inputs
}

func mustGet(t *testing.T, r *providers.Registry, ref providers.Reference) providers.Provider {
	t.Helper()
	p, ok := r.Get(ref)
	if !ok {
		t.Fatalf("Get(%s) found nothing", ref)
	}
	return p
}
