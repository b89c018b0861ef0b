package providers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// A Source serves one package with a fixed provider and every other one
// from its registry: the fixed package's provider resources and the
// references to them (which the registry never loads) reach the fixed
// provider; other provider resources reach the registry; a resource names
// the instance its reference names.
func TestSourceServesAPackageAndTheRegistry(t *testing.T) {
	ctx := context.Background()
	reg := providers.NewRegistry()
	if err := reg.RegisterFactory("cloud", "1.0.0", func(context.Context) (providers.Provider, error) {
		return &providers.Func{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	cloudURN := resource.NewURN("dev", "proj", "", providers.ProviderType("cloud"), "default")
	if err := reg.Load(ctx, []*resource.State{{URN: cloudURN, Type: providers.ProviderType("cloud"), ID: "c1", Custom: true}}); err != nil {
		t.Fatal(err)
	}
	cloud, ok := reg.Get(providers.NewReference(cloudURN, "c1"))
	if !ok {
		t.Fatal("the registry did not load the cloud provider")
	}
	fixed := &providers.Func{}
	src := reg.Serving("pulumi", fixed)
	pulumiRef := providers.NewReference(resource.NewURN("dev", "proj", "", providers.ProviderType("pulumi"), "default"), "p1").String()

	tests := []struct {
		name, ref, typ string
		want           providers.Provider
		wantErr        string
	}{
		{name: "the fixed package's provider resource", typ: providers.ProviderType("pulumi"), want: fixed},
		{name: "another provider resource", typ: providers.ProviderType("cloud"), want: reg},
		{name: "a resource of the fixed package", ref: pulumiRef, typ: "pulumi:pulumi:StackReference", want: fixed},
		{name: "a resource of a loaded provider", ref: providers.NewReference(cloudURN, "c1").String(), typ: "cloud:index:Bucket", want: cloud},
		{name: "no reference", typ: "cloud:index:Bucket", wantErr: "no provider for a resource of type cloud:index:Bucket"},
		{name: "an unknown reference", ref: providers.NewReference(cloudURN, "gone").String(), typ: "cloud:index:Bucket", wantErr: "is unknown"},
		{name: "a malformed reference", ref: "not-a-reference", typ: "cloud:index:Bucket", wantErr: "not-a-reference"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 2 { // the second time from the parsed references remembered
				got, err := src.Provider(tt.ref, tt.typ)
				if tt.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
						t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
					}
					continue
				}
				if err != nil || got != tt.want {
					t.Fatalf("Provider(%q, %q) = %v, %v; want %v", tt.ref, tt.typ, got, err, tt.want)
				}
			}
		})
	}
}

// The fixed package has one provider: its default provider's version is
// the one asked for, whatever the registry holds; other packages' versions
// are the registry's choice.
func TestSourceChooseVersion(t *testing.T) {
	ctx := context.Background()
	reg := providers.NewRegistry()
	for _, pkg := range []string{"pulumi", "cloud"} {
		if err := reg.RegisterFactory(pkg, "1.0.0", func(context.Context) (providers.Provider, error) {
			return &providers.Func{}, nil
		}, providers.Tokens(pkg+":index:Served")); err != nil {
			t.Fatal(err)
		}
	}
	src := reg.Serving("pulumi", &providers.Func{})
	if v, err := src.ChooseVersion(ctx, "pulumi", "", "pulumi:pulumi:StackReference"); err != nil || v != "" {
		t.Errorf("ChooseVersion of the fixed package = %q, %v; want the version asked for", v, err)
	}
	_, want := reg.ChooseVersion(ctx, "cloud", "", "cloud:index:Other")
	if _, err := src.ChooseVersion(ctx, "cloud", "", "cloud:index:Other"); want == nil || err == nil || err.Error() != want.Error() {
		t.Errorf("ChooseVersion of another package: err = %v, want the registry's %v", err, want)
	}
}

// A Source loads the recorded providers of every package but the fixed
// one into its registry, which would otherwise hold an instance of the
// fixed package's provider that no factory can start.
func TestSourceLoadLeavesTheFixedPackageOut(t *testing.T) {
	ctx := context.Background()
	pulumiURN := resource.NewURN("dev", "proj", "", providers.ProviderType("pulumi"), "default")
	cloudURN := resource.NewURN("dev", "proj", "", providers.ProviderType("cloud"), "default")
	states := []*resource.State{
		{URN: pulumiURN, Type: providers.ProviderType("pulumi"), ID: "p1", Custom: true},
		{URN: cloudURN, Type: providers.ProviderType("cloud"), ID: "c1", Custom: true},
	}
	tests := []struct {
		name       string
		load       func(*providers.Registry) error
		wantPulumi bool
	}{
		{name: "the registry", load: func(r *providers.Registry) error { return r.Load(ctx, states) }, wantPulumi: true},
		{name: "a source serving pulumi", load: func(r *providers.Registry) error {
			return r.Serving("pulumi", &providers.Func{}).Load(ctx, states)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := providers.NewRegistry()
			if err := reg.RegisterFactory("cloud", "1.0.0", func(context.Context) (providers.Provider, error) {
				return &providers.Func{}, nil
			}); err != nil {
				t.Fatal(err)
			}
			if err := tt.load(reg); err != nil {
				t.Fatalf("Load: %v", err)
			}
			if _, ok := reg.Get(providers.NewReference(cloudURN, "c1")); !ok {
				t.Error("the cloud provider was not loaded")
			}
			if _, ok := reg.Get(providers.NewReference(pulumiURN, "p1")); ok != tt.wantPulumi {
				t.Errorf("the registry holds the pulumi provider: %v, want %v", ok, tt.wantPulumi)
			}
		})
	}
}

// A Source remembers what each reference resolves to, and resolves it
// again once the registry's instances change: a provider reloaded with
// another configuration is answered by its new instance, and a deleted
// one is unknown.
func TestSourceFollowsTheRegistry(t *testing.T) {
	ctx := context.Background()
	reg := providers.NewRegistry()
	if err := reg.RegisterFactory("cloud", "1.0.0", func(context.Context) (providers.Provider, error) {
		return &providers.Func{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	urn := resource.NewURN("dev", "proj", "", providers.ProviderType("cloud"), "default")
	load := func(region string) providers.Provider {
		t.Helper()
		st := &resource.State{URN: urn, Type: providers.ProviderType("cloud"), ID: "c1", Custom: true,
			Inputs: resource.PropertyMap{"region": resource.NewString(region)}}
		if err := reg.Load(ctx, []*resource.State{st}); err != nil {
			t.Fatal(err)
		}
		p, ok := reg.Get(providers.NewReference(urn, "c1"))
		if !ok {
			t.Fatal("the registry did not load the provider")
		}
		return p
	}
	src := reg.Serving("pulumi", &providers.Func{})
	ref := providers.NewReference(urn, "c1").String()
	resolve := func() (providers.Provider, error) { return src.Provider(ref, "cloud:index:Bucket") }

	first := load("east")
	for range 2 {
		if got, err := resolve(); err != nil || got != first {
			t.Fatalf("Provider = %v, %v; want the loaded instance", got, err)
		}
	}
	second := load("west")
	if second == first {
		t.Fatal("reloading with another configuration kept the instance")
	}
	if got, err := resolve(); err != nil || got != second {
		t.Fatalf("after a reload, Provider = %v, %v; want the new instance", got, err)
	}
	if _, err := reg.Delete(ctx, providers.DeleteRequest{URN: urn, ID: "c1"}); err != nil {
		t.Fatal(err)
	}
	if got, err := resolve(); err == nil || !strings.Contains(err.Error(), "is unknown") {
		t.Fatalf("after a delete, Provider = %v, %v; want an unknown provider", got, err)
	}
}
