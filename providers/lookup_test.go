package providers_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/providers"
)

func newFuncFactory() providers.Factory {
	return func(context.Context) (providers.Provider, error) { return &providers.Func{}, nil }
}

func TestLookup(t *testing.T) {
	r := providers.NewRegistry()
	for pkg, versions := range map[string][]string{
		"mem":  {"0.5.0", "1.0.0", "1.2.0", "1.3.0-beta.1", "2.0.0", "2.1.0-rc.1"},
		"beta": {"0.1.0-alpha"},
	} {
		for _, v := range versions {
			if err := r.RegisterFactory(pkg, v, newFuncFactory()); err != nil {
				t.Fatal(err)
			}
		}
	}
	memAll := []string{"0.5.0", "1.0.0", "1.2.0", "1.3.0-beta.1", "2.0.0", "2.1.0-rc.1"}
	tests := []struct {
		pkg, version string
		want         string   // the version chosen
		wantErr      string   // or an error containing this
		available    []string // a *NoFactoryError listing these versions
	}{
		{pkg: "mem", version: "", want: "2.0.0"},
		{pkg: "mem", version: "1.0.0", want: "1.2.0"},
		{pkg: "mem", version: "v1.0.0", want: "1.2.0"},
		{pkg: "mem", version: "1.2.0", want: "1.2.0"},
		{pkg: "mem", version: "1.2.1", want: "1.3.0-beta.1"},
		{pkg: "mem", version: "1.3.0-alpha", want: "1.3.0-beta.1"},
		{pkg: "mem", version: "2.0.0", want: "2.0.0"},
		{pkg: "mem", version: "2.0.1", want: "2.1.0-rc.1"},
		{pkg: "mem", version: "0.1.0", want: "0.5.0"},
		{pkg: "beta", version: "", want: "0.1.0-alpha"},
		{pkg: "mem", version: "1.4.0", wantErr: "compatible with version 1.4.0", available: memAll},
		{pkg: "mem", version: "3.0.0", wantErr: "available versions: 0.5.0, 1.0.0", available: memAll},
		{pkg: "gcp", version: "", wantErr: "registered packages: beta, mem"},
		{pkg: "mem", version: "1.x", wantErr: "invalid version"},
	}
	for _, tt := range tests {
		t.Run(tt.pkg+"@"+tt.version, func(t *testing.T) {
			got, err := r.Lookup(tt.pkg, tt.version)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Lookup = %v, %v; want an error containing %q", got, err, tt.wantErr)
				}
				var nf *providers.NoFactoryError
				if errors.As(err, &nf) {
					var versions []string
					for _, info := range nf.Available {
						versions = append(versions, info.Version)
					}
					if diff := cmp.Diff(tt.available, versions); diff != "" {
						t.Errorf("available versions (-want +got):\n%s", diff)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Lookup: %v", err)
			}
			want := providers.FactoryInfo{Package: tt.pkg, Version: tt.want, Plugin: tt.pkg, PluginVersion: tt.want}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Lookup (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRegisterFactoryErrors(t *testing.T) {
	r := providers.NewRegistry()
	if err := r.RegisterFactory("mem", "1.0.0", newFuncFactory()); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"duplicate":     r.RegisterFactory("mem", "1.0.0+other-build", newFuncFactory()),
		"bad version":   r.RegisterFactory("mem", "one", newFuncFactory()),
		"empty version": r.RegisterFactory("mem", "", newFuncFactory()),
		"nil factory":   r.RegisterFactory("mem", "1.0.1", nil),
		"empty package": r.RegisterFactory("", "1.0.1", newFuncFactory()),
	} {
		if err == nil {
			t.Errorf("%s: RegisterFactory succeeded, want an error", name)
		}
	}
}

func TestResolver(t *testing.T) {
	var calls atomic.Int32
	r := providers.NewRegistry(providers.WithResolver(func(_ context.Context, pkg, version string) (providers.Factory, string, error) {
		calls.Add(1)
		if pkg != "plug" {
			return nil, "", errors.New("no plugin binary pulumi-resource-" + pkg + " on the path")
		}
		return newFuncFactory(), "3.1.0", nil
	}))
	if _, err := r.Lookup("plug", "3.0.0"); err == nil {
		t.Fatal("Lookup consulted the resolver; it must only see registered factories")
	}
	for range 2 {
		p, info, err := r.Instantiate(t.Context(), "plug", "3.0.0")
		if err != nil {
			t.Fatalf("Instantiate: %v", err)
		}
		if info.Version != "3.1.0" {
			t.Errorf("Instantiate chose %v, want 3.1.0", info)
		}
		if err := providers.Close(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	if calls.Load() != 1 {
		t.Errorf("the resolver was called %d times; its answer must be registered and reused", calls.Load())
	}
	if info, err := r.Lookup("plug", ""); err != nil || info.Version != "3.1.0" {
		t.Errorf("Lookup after resolution = %v, %v", info, err)
	}

	_, _, err := r.Instantiate(t.Context(), "other", "")
	var nf *providers.NoFactoryError
	if !errors.As(err, &nf) || nf.ResolveErr == nil || !strings.Contains(err.Error(), "pulumi-resource-other") {
		t.Errorf("Instantiate of an unresolvable package = %v, want a *NoFactoryError with the resolver's error", err)
	}
}

func TestFactoryFailures(t *testing.T) {
	r := providers.NewRegistry()
	_ = r.RegisterFactory("nilp", "1.0.0", func(context.Context) (providers.Provider, error) { return nil, nil })
	_ = r.RegisterFactory("panics", "1.0.0", func(context.Context) (providers.Provider, error) { panic("no plugin") })
	_ = r.RegisterFactory("fails", "1.0.0", func(context.Context) (providers.Provider, error) { return nil, errors.New("exec: not found") })
	for pkg, want := range map[string]string{"nilp": "returned no provider", "panics": "panicked in Factory", "fails": "exec: not found"} {
		if _, _, err := r.Instantiate(t.Context(), pkg, ""); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), pkg+"@1.0.0") {
			t.Errorf("Instantiate(%s) = %v, want an error naming %s@1.0.0 and containing %q", pkg, err, pkg, want)
		}
	}
}
