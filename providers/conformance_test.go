package providers_test

import (
	"context"
	"testing"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/providertest"
	"github.com/groundwork-iac/groundwork/resource"
)

// thingHarness is the conformance harness for providers backed by mem.
func thingHarness(mem *providertest.Memory, newProvider func(*testing.T) providers.Provider) providertest.Harness {
	return providertest.Harness{
		New:                  newProvider,
		Type:                 "mem:index:Thing",
		Inputs:               resource.PropertyMap{"name": str("a"), "size": resource.NewNumber(1)},
		Update:               resource.PropertyMap{"name": str("a"), "size": resource.NewNumber(2)},
		Replace:              resource.PropertyMap{"name": str("b"), "size": resource.NewNumber(1)},
		Count:                mem.Count,
		RespectsCancellation: true,
	}
}

func TestConformanceFunc(t *testing.T) {
	mem := providertest.NewMemory("name")
	providertest.Run(t, thingHarness(mem, func(*testing.T) providers.Provider { return mem.Provider() }))
}

func TestConformanceRecover(t *testing.T) {
	mem := providertest.NewMemory("name")
	providertest.Run(t, thingHarness(mem, func(*testing.T) providers.Provider {
		return providers.Recover("mem", mem.Provider())
	}))
}

func TestConformanceRegistryInstance(t *testing.T) {
	mem := providertest.NewMemory("name")
	r := providers.NewRegistry()
	if err := r.RegisterFactory("mem", "1.0.0", func(context.Context) (providers.Provider, error) {
		return mem.Provider(), nil
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	providertest.Run(t, thingHarness(mem, func(t *testing.T) providers.Provider {
		ref, _ := createProvider(t, r, providerURN("mem", t.Name()), resource.PropertyMap{"version": str("1.0.0")}, false)
		return mustGet(t, r, ref)
	}))
}

func TestConformanceLoadedRegistryInstance(t *testing.T) {
	mem := providertest.NewMemory("name")
	r := providers.NewRegistry()
	_ = r.RegisterFactory("mem", "1.0.0", func(context.Context) (providers.Provider, error) { return mem.Provider(), nil })
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	n := 0
	providertest.Run(t, thingHarness(mem, func(t *testing.T) providers.Provider {
		n++
		s := &resource.State{Type: providers.ProviderType("mem"), URN: providerURN("mem", t.Name()), ID: resource.ID(string(rune('a' + n))), Inputs: resource.PropertyMap{}}
		if err := r.Load(t.Context(), []*resource.State{s}); err != nil {
			t.Fatal(err)
		}
		return mustGet(t, r, providers.NewReference(s.URN, s.ID))
	}))
}
