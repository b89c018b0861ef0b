package providers_test

import (
	"context"
	"testing"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// BenchmarkSourceProvider measures the lookup every step and provider
// call makes: a resource's provider, named by a reference to a loaded
// instance.
func BenchmarkSourceProvider(b *testing.B) {
	reg := providers.NewRegistry()
	if err := reg.RegisterFactory("cloud", "1.0.0", func(context.Context) (providers.Provider, error) {
		return &providers.Func{}, nil
	}); err != nil {
		b.Fatal(err)
	}
	urn := resource.NewURN("dev", "proj", "", providers.ProviderType("cloud"), "default")
	if err := reg.Load(context.Background(), []*resource.State{{URN: urn, Type: providers.ProviderType("cloud"), ID: "c1", Custom: true}}); err != nil {
		b.Fatal(err)
	}
	src := reg.Serving("pulumi", &providers.Func{})
	ref := providers.NewReference(urn, "c1").String()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := src.Provider(ref, "cloud:index:Bucket"); err != nil {
			b.Fatal(err)
		}
	}
}
