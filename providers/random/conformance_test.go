package random_test

import (
	"testing"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/providertest"
	"github.com/groundwork-iac/groundwork/providers/random"
	"github.com/groundwork-iac/groundwork/resource"
)

func TestConformance(t *testing.T) {
	num := resource.NewNumber
	keepers := resource.NewObject(resource.PropertyMap{"k": resource.NewString("v")})
	tests := []struct {
		typ              string
		inputs, replaced resource.PropertyMap
	}{
		{random.StringType, resource.PropertyMap{"length": num(16)}, resource.PropertyMap{"length": num(16), "special": resource.NewBool(false)}},
		{random.IntegerType, resource.PropertyMap{"min": num(1), "max": num(1000)}, resource.PropertyMap{"min": num(1), "max": num(1000), "keepers": keepers}},
		{random.UUIDType, resource.PropertyMap{}, resource.PropertyMap{"keepers": keepers}},
		{random.PetType, resource.PropertyMap{"length": num(3)}, resource.PropertyMap{"length": num(3), "prefix": resource.NewString("x")}},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			providertest.Run(t, providertest.Harness{
				New:    func(*testing.T) providers.Provider { return random.New() },
				Type:   tt.typ,
				Inputs: tt.inputs,
				// No Update: every change replaces a random value.
				Replace:              tt.replaced,
				RespectsCancellation: true,
			})
		})
	}
}
