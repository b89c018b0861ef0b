package providertest_test

import (
	"testing"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/providertest"
	"github.com/groundwork-iac/groundwork/resource"
)

func TestMemoryConforms(t *testing.T) {
	mem := providertest.NewMemory("name")
	providertest.Run(t, providertest.Harness{
		New:                  func(*testing.T) providers.Provider { return mem.Provider() },
		Type:                 "mem:index:Thing",
		Inputs:               resource.PropertyMap{"name": resource.NewString("a")},
		Update:               resource.PropertyMap{"name": resource.NewString("a"), "tag": resource.NewString("t")},
		Replace:              resource.PropertyMap{"name": resource.NewString("b")},
		Count:                mem.Count,
		RespectsCancellation: true,
		Concurrency:          32,
	})
	if n := mem.Count(); n != 0 {
		t.Errorf("the suite left %d resources behind", n)
	}
	var zero providertest.Memory
	if zero.Count() != 0 {
		t.Error("the zero Memory is not empty")
	}
}
