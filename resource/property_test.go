package resource_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/groundwork-iac/groundwork/resource"
)

// one value of every kind, with the predicate that must hold for it.
func everyKind() []struct {
	name string
	v    resource.PropertyValue
	kind resource.Kind
	is   func(resource.PropertyValue) bool
} {
	ref := resource.ResourceReference{URN: "urn:pulumi:dev::p::a:b:C::n", ID: "id-1", PackageVersion: "1.0.0"}
	return []struct {
		name string
		v    resource.PropertyValue
		kind resource.Kind
		is   func(resource.PropertyValue) bool
	}{
		{"null", resource.NewNull(), resource.KindNull, resource.PropertyValue.IsNull},
		{"bool", resource.NewBool(true), resource.KindBool, resource.PropertyValue.IsBool},
		{"number", resource.NewNumber(4.5), resource.KindNumber, resource.PropertyValue.IsNumber},
		{"string", resource.NewString("s"), resource.KindString, resource.PropertyValue.IsString},
		{"array", resource.NewArray(resource.NewNumber(1)), resource.KindArray, resource.PropertyValue.IsArray},
		{"object", resource.NewObject(resource.PropertyMap{"k": resource.NewString("v")}), resource.KindObject, resource.PropertyValue.IsObject},
		{"asset", resource.NewAssetValue(resource.NewTextAsset("hi")), resource.KindAsset, resource.PropertyValue.IsAsset},
		{"archive", resource.NewArchiveValue(resource.NewPathArchive("dir")), resource.KindArchive, resource.PropertyValue.IsArchive},
		{"reference", resource.NewResourceReference(ref), resource.KindResourceReference, resource.PropertyValue.IsResourceReference},
		{"unknown", resource.NewUnknown(), resource.KindUnknown, resource.PropertyValue.IsUnknown},
		{"secret", resource.NewSecret(resource.NewString("pw")), resource.KindSecret, resource.PropertyValue.IsSecret},
		{"output", resource.NewOutput(resource.Output{Element: resource.NewString("o"), Known: true}), resource.KindOutput, resource.PropertyValue.IsOutput},
	}
}

func TestKindsAndPredicates(t *testing.T) {
	preds := map[string]func(resource.PropertyValue) bool{
		"IsNull": resource.PropertyValue.IsNull, "IsBool": resource.PropertyValue.IsBool,
		"IsNumber": resource.PropertyValue.IsNumber, "IsString": resource.PropertyValue.IsString,
		"IsArray": resource.PropertyValue.IsArray, "IsObject": resource.PropertyValue.IsObject,
		"IsAsset": resource.PropertyValue.IsAsset, "IsArchive": resource.PropertyValue.IsArchive,
		"IsResourceReference": resource.PropertyValue.IsResourceReference,
		"IsUnknown":           resource.PropertyValue.IsUnknown, "IsSecret": resource.PropertyValue.IsSecret,
		"IsOutput": resource.PropertyValue.IsOutput,
	}
	for _, tt := range everyKind() {
		t.Run(tt.name, func(t *testing.T) {
			if tt.v.Kind() != tt.kind {
				t.Errorf("Kind() = %v, want %v", tt.v.Kind(), tt.kind)
			}
			if !tt.is(tt.v) {
				t.Errorf("predicate for %v is false", tt.kind)
			}
			holds := 0
			for _, p := range preds {
				if p(tt.v) {
					holds++
				}
			}
			if holds != 1 {
				t.Errorf("%d predicates hold, want exactly 1", holds)
			}
			if !tt.v.DeepEquals(tt.v) {
				t.Errorf("value does not DeepEqual itself")
			}
		})
	}
}

func TestDeepEqualsAcrossKinds(t *testing.T) {
	all := everyKind()
	for i, a := range all {
		for j, b := range all {
			if got := a.v.DeepEquals(b.v); got != (i == j) {
				t.Errorf("%s.DeepEquals(%s) = %v", a.name, b.name, got)
			}
		}
	}
}

func TestDeepEquals(t *testing.T) {
	obj := func(kv ...any) resource.PropertyValue {
		m := resource.PropertyMap{}
		for i := 0; i < len(kv); i += 2 {
			m[resource.PropertyKey(kv[i].(string))] = kv[i+1].(resource.PropertyValue)
		}
		return resource.NewObject(m)
	}
	s, n := resource.NewString, resource.NewNumber
	// shared is one map, NaN and unknown included, compared with itself.
	shared := obj("x", n(math.NaN()), "u", resource.NewUnknown(), "s", s("v"))
	changedMap := shared.ObjectValue().Copy()
	changedMap["s"] = s("w")
	changed := resource.NewObject(changedMap)
	tests := []struct {
		name string
		a, b resource.PropertyValue
		want bool
	}{
		{"bools", resource.NewBool(true), resource.NewBool(false), false},
		{"numbers", n(1), n(1), true},
		{"NaN equals NaN", n(math.NaN()), n(math.NaN()), true},
		{"strings", s("a"), s("b"), false},
		{"array order", resource.NewArray(n(1), n(2)), resource.NewArray(n(2), n(1)), false},
		{"array length", resource.NewArray(n(1)), resource.NewArray(n(1), n(1)), false},
		{"empty arrays", resource.NewArray(), resource.NewArray(), true},
		{"nested objects", obj("a", obj("b", s("c"))), obj("a", obj("b", s("c"))), true},
		{"nested objects differ", obj("a", obj("b", s("c"))), obj("a", obj("b", s("d"))), false},
		{"extra key", obj("a", n(1)), obj("a", n(1), "b", n(2)), false},
		{"secret vs plain", resource.NewSecret(s("x")), s("x"), false},
		{"secrets", resource.NewSecret(s("x")), resource.NewSecret(s("x")), true},
		{"secret of secret is one secret", resource.NewSecret(resource.NewSecret(s("x"))), resource.NewSecret(s("x")), true},
		{"assets by hash", resource.NewAssetValue(resource.NewTextAsset("a")), resource.NewAssetValue(&resource.Asset{Hash: resource.NewTextAsset("a").Hash, Path: "f"}), true},
		{"assets by source", resource.NewAssetValue(resource.NewPathAsset("a")), resource.NewAssetValue(resource.NewPathAsset("b")), false},
		{"refs", resource.NewResourceReference(resource.ResourceReference{URN: "u", ID: "1"}), resource.NewResourceReference(resource.ResourceReference{URN: "u", ID: "2"}), false},
		{"outputs known vs unknown", resource.NewOutput(resource.Output{Known: true}), resource.NewOutput(resource.Output{}), false},
		{"outputs deps", resource.NewOutput(resource.Output{Known: true, Element: n(1), Dependencies: []resource.URN{"a"}}), resource.NewOutput(resource.Output{Known: true, Element: n(1)}), false},
		{"unknown output drops its element", resource.NewOutput(resource.Output{Element: n(1)}), resource.NewOutput(resource.Output{}), true},
		{"one map", shared, shared, true},
		{"one map and an equal copy", shared, resource.NewObject(shared.ObjectValue().Copy()), true},
		{"one map and a changed copy", shared, changed, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.DeepEquals(tt.b); got != tt.want {
				t.Errorf("DeepEquals = %v, want %v", got, tt.want)
			}
			if got := tt.b.DeepEquals(tt.a); got != tt.want {
				t.Errorf("DeepEquals (swapped) = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAccessorsOnWrongKind(t *testing.T) {
	v := resource.NewString("s")
	got := []any{v.BoolValue(), v.NumberValue(), v.ArrayValue() == nil, v.ObjectValue() == nil,
		v.AssetValue() == nil, v.ArchiveValue() == nil, v.ResourceReferenceValue(), v.SecretElement().IsNull(), v.OutputValue().Known}
	want := []any{false, 0.0, true, true, true, true, resource.ResourceReference{}, true, false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("accessors (-want +got):\n%s", diff)
	}
	if resource.NewNumber(1).StringValue() != "" {
		t.Errorf("StringValue of a number is not empty")
	}
}

func TestContainsUnknownsAndSecrets(t *testing.T) {
	secret := resource.NewSecret(resource.NewString("pw"))
	tests := []struct {
		name             string
		v                resource.PropertyValue
		unknown, secrets bool
	}{
		{"plain", resource.NewString("x"), false, false},
		{"unknown", resource.NewUnknown(), true, false},
		{"secret", secret, false, true},
		{"secret unknown", resource.NewSecret(resource.NewUnknown()), true, true},
		{"in array", resource.NewArray(resource.NewNull(), resource.NewUnknown()), true, false},
		{"secret in object", resource.NewObject(resource.PropertyMap{"a": resource.NewArray(secret)}), false, true},
		{"unknown output", resource.NewOutput(resource.Output{}), true, false},
		{"secret output", resource.NewOutput(resource.Output{Known: true, Secret: true, Element: resource.NewString("x")}), false, true},
		{"output holding unknown", resource.NewOutput(resource.Output{Known: true, Element: resource.NewArray(resource.NewUnknown())}), true, false},
		{"reference with unknown ID", resource.NewResourceReference(resource.ResourceReference{URN: "u", IDUnknown: true}), true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.v.ContainsUnknowns(); got != tt.unknown {
				t.Errorf("ContainsUnknowns = %v, want %v", got, tt.unknown)
			}
			if got := tt.v.ContainsSecrets(); got != tt.secrets {
				t.Errorf("ContainsSecrets = %v, want %v", got, tt.secrets)
			}
			m := resource.PropertyMap{"k": tt.v}
			if m.ContainsUnknowns() != tt.unknown || m.ContainsSecrets() != tt.secrets {
				t.Errorf("PropertyMap disagrees with the value")
			}
		})
	}
}

func TestSecretsNeverPrint(t *testing.T) {
	const plain = "hunter2"
	secret := resource.NewSecret(resource.NewString(plain))
	values := map[string]resource.PropertyValue{
		"secret":           secret,
		"in array":         resource.NewArray(resource.NewString("ok"), secret),
		"in object":        resource.NewObject(resource.PropertyMap{"password": secret}),
		"deeply":           resource.NewObject(resource.PropertyMap{"a": resource.NewArray(resource.NewObject(resource.PropertyMap{"b": secret}))}),
		"secret output":    resource.NewOutput(resource.Output{Known: true, Secret: true, Element: resource.NewString(plain)}),
		"output of secret": resource.NewOutput(resource.Output{Known: true, Element: secret}),
		"secret object":    resource.NewSecret(resource.NewObject(resource.PropertyMap{"k": resource.NewString(plain)})),
	}
	for name, v := range values {
		t.Run(name, func(t *testing.T) {
			for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d", "%10v"} {
				for _, arg := range []any{v, &v, []resource.PropertyValue{v}, resource.PropertyMap{"x": v}, struct{ V resource.PropertyValue }{v}} {
					out := fmt.Sprintf(verb, arg)
					if strings.Contains(out, plain) {
						t.Errorf("Sprintf(%q, %T) = %q shows the secret", verb, arg, out)
					}
				}
			}
			if o := v.OutputValue(); v.IsOutput() {
				for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
					if out := fmt.Sprintf(verb, o); strings.Contains(out, plain) {
						t.Errorf("Sprintf(%q, Output) = %q shows the secret", verb, out)
					}
				}
			}
			if strings.Contains(v.String(), plain) {
				t.Errorf("String() shows the secret")
			}
		})
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		v    resource.PropertyValue
		want string
	}{
		{resource.NewNull(), "null"},
		{resource.NewBool(true), "true"},
		{resource.NewNumber(1.5), "1.5"},
		{resource.NewString("a"), `"a"`},
		{resource.NewArray(resource.NewNumber(1), resource.NewUnknown()), "[1, [unknown]]"},
		{resource.NewObject(resource.PropertyMap{"b": resource.NewNull(), "a": resource.NewSecret(resource.NewNull())}), "{a: [secret], b: null}"},
		{resource.NewResourceReference(resource.ResourceReference{URN: "u", ID: "i"}), "ref(u, id=i)"},
		{resource.NewAssetValue(resource.NewPathAsset("f.txt")), "asset(path=f.txt)"},
		{resource.NewArchiveValue(resource.NewURIArchive("file:///x.zip")), "archive(uri=file:///x.zip)"},
		{resource.NewOutput(resource.Output{}), "[unknown]"},
	}
	for _, tt := range tests {
		if got := tt.v.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestUnwrap(t *testing.T) {
	v := resource.NewObject(resource.PropertyMap{
		"s": resource.NewSecret(resource.NewString("x")),
		"o": resource.NewOutput(resource.Output{Known: true, Secret: true, Element: resource.NewArray(resource.NewSecret(resource.NewNumber(1)))}),
		"u": resource.NewOutput(resource.Output{}),
	})
	want := resource.NewObject(resource.PropertyMap{
		"s": resource.NewString("x"),
		"o": resource.NewArray(resource.NewNumber(1)),
		"u": resource.NewUnknown(),
	})
	if diff := cmp.Diff(want, v.Unwrap()); diff != "" {
		t.Errorf("Unwrap (-want +got):\n%s", diff)
	}
}
