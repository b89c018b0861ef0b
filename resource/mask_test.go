package resource_test

import (
	"testing"

	"github.com/groundwork-iac/groundwork/resource"
)

// TestMaskSecrets masks every secret however it is nested, keeps it
// secret, leaves every other value as it is, and changes nothing in the
// map it is given.
func TestMaskSecrets(t *testing.T) {
	secret := func(s string) resource.PropertyValue { return resource.NewSecret(resource.NewString(s)) }
	masked := secret(resource.Masked)
	str := resource.NewString
	tests := []struct {
		name     string
		in, want resource.PropertyMap
	}{
		{"no secret", resource.PropertyMap{"a": str("x")}, resource.PropertyMap{"a": str("x")}},
		{"a secret", resource.PropertyMap{"a": str("x"), "pw": secret("hunter2")},
			resource.PropertyMap{"a": str("x"), "pw": masked}},
		{"in an array", resource.PropertyMap{"l": resource.NewArray(str("x"), secret("hunter2"))},
			resource.PropertyMap{"l": resource.NewArray(str("x"), masked)}},
		{"in an object", resource.PropertyMap{"o": resource.NewObject(resource.PropertyMap{"k": secret("hunter2"), "v": str("y")})},
			resource.PropertyMap{"o": resource.NewObject(resource.PropertyMap{"k": masked, "v": str("y")})}},
		{"a secret output", resource.PropertyMap{"out": resource.NewOutput(resource.Output{Element: str("hunter2"), Known: true, Secret: true})},
			resource.PropertyMap{"out": masked}},
		{"in an output", resource.PropertyMap{"out": resource.NewOutput(resource.Output{Element: secret("hunter2"), Known: true})},
			resource.PropertyMap{"out": resource.NewOutput(resource.Output{Element: masked, Known: true})}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.in.Copy()
			got := tt.in.MaskSecrets()
			if !got.DeepEquals(tt.want) {
				t.Errorf("MaskSecrets() = %v, want %v", got.Mappable(), tt.want.Mappable())
			}
			if !tt.in.DeepEquals(before) {
				t.Errorf("MaskSecrets changed its map: %v", tt.in.Mappable())
			}
		})
	}
}
