package props

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

func TestReaderGetters(t *testing.T) {
	var (
		str     = resource.NewString
		num     = resource.NewNumber
		boolean = resource.NewBool
		secret  = resource.NewSecret
		unknown = resource.NewUnknown()
		null    = resource.NewNull()
		output  = func(v resource.PropertyValue) resource.PropertyValue {
			return resource.NewOutput(resource.Output{Element: v, Known: true})
		}
		unknownOutput = resource.NewOutput(resource.Output{})
		asset         = resource.NewTextAsset("hello")
	)
	fail := func(reason string) []providers.CheckFailure {
		return []providers.CheckFailure{{Property: "k", Reason: reason}}
	}

	type (
		strs = Field[string]
		bols = Field[bool]
		ints = Field[int64]
		asts = Field[*resource.Asset]
	)
	tests := []struct {
		name string
		// given is the value under "k"; nil leaves "k" out.
		given *resource.PropertyValue
		read  func(r *Reader) any
		want  any
		// wantFailures are the check failures the read records.
		wantFailures []providers.CheckFailure
		// wantDefault, when set, is the value the read adds to Out under
		// "k"; otherwise Out holds the inputs as given.
		wantDefault *resource.PropertyValue
		wantUnknown bool
	}{
		// Str: optional, no default.
		{name: "Str given", given: ptr(str("a")), read: readStr, want: strs{Value: "a", Set: true}},
		{name: "Str empty is given", given: ptr(str("")), read: readStr, want: strs{Set: true}},
		{name: "Str absent", read: readStr, want: strs{}},
		{name: "Str null", given: ptr(null), read: readStr, want: strs{}},
		{name: "Str unknown", given: ptr(unknown), read: readStr, want: strs{Set: true, Unknown: true}, wantUnknown: true},
		{name: "Str unknown output", given: ptr(unknownOutput), read: readStr, want: strs{Set: true, Unknown: true}, wantUnknown: true},
		{name: "Str secret", given: ptr(secret(str("s"))), read: readStr, want: strs{Value: "s", Set: true}},
		{name: "Str known output", given: ptr(output(str("o"))), read: readStr, want: strs{Value: "o", Set: true}},
		{name: "Str secret unknown", given: ptr(secret(unknown)), read: readStr, want: strs{Set: true, Unknown: true}, wantUnknown: true},
		{name: "Str wrong type", given: ptr(num(1)), read: readStr, want: strs{}, wantFailures: fail("must be a string, not number")},
		{name: "Str secret wrong type", given: ptr(secret(boolean(true))), read: readStr, want: strs{}, wantFailures: fail("must be a string, not bool")},

		// RequiredStr.
		{name: "RequiredStr given", given: ptr(str("a")), read: readRequiredStr, want: strs{Value: "a", Set: true}},
		{name: "RequiredStr absent", read: readRequiredStr, want: strs{}, wantFailures: fail("is required")},
		{name: "RequiredStr null", given: ptr(null), read: readRequiredStr, want: strs{}, wantFailures: fail("is required")},
		{name: "RequiredStr unknown", given: ptr(unknown), read: readRequiredStr, want: strs{Set: true, Unknown: true}, wantUnknown: true},
		{name: "RequiredStr wrong type", given: ptr(num(1)), read: readRequiredStr, want: strs{}, wantFailures: fail("must be a string, not number")},

		// StrDefault: a default is not "given".
		{name: "StrDefault given", given: ptr(str("a")), read: readStrDefault, want: strs{Value: "a", Set: true}},
		{name: "StrDefault absent", read: readStrDefault, want: strs{Value: "def"}, wantDefault: ptr(str("def"))},
		{name: "StrDefault null", given: ptr(null), read: readStrDefault, want: strs{Value: "def"}, wantDefault: ptr(str("def"))},
		{name: "StrDefault unknown", given: ptr(unknown), read: readStrDefault, want: strs{Set: true, Unknown: true}, wantUnknown: true},
		{name: "StrDefault wrong type", given: ptr(num(1)), read: readStrDefault, want: strs{}, wantFailures: fail("must be a string, not number")},

		// Bool: def stands in for a wrong type too.
		{name: "Bool given", given: ptr(boolean(false)), read: readBool, want: bols{Set: true}},
		{name: "Bool absent", read: readBool, want: bols{Value: true}, wantDefault: ptr(boolean(true))},
		{name: "Bool null", given: ptr(null), read: readBool, want: bols{Value: true}, wantDefault: ptr(boolean(true))},
		{name: "Bool unknown", given: ptr(unknown), read: readBool, want: bols{Set: true, Unknown: true}, wantUnknown: true},
		{name: "Bool secret", given: ptr(secret(boolean(false))), read: readBool, want: bols{Set: true}},
		{name: "Bool wrong type", given: ptr(str("true")), read: readBool, want: bols{Value: true}, wantFailures: fail("must be a bool, not string")},

		// RequiredInt in [-5, 5].
		{name: "RequiredInt given", given: ptr(num(-5)), read: readRequiredInt, want: ints{Value: -5, Set: true}},
		{name: "RequiredInt absent", read: readRequiredInt, want: ints{}, wantFailures: fail("is required")},
		{name: "RequiredInt null", given: ptr(null), read: readRequiredInt, want: ints{}, wantFailures: fail("is required")},
		{name: "RequiredInt unknown", given: ptr(unknown), read: readRequiredInt, want: ints{Set: true, Unknown: true}, wantUnknown: true},
		{name: "RequiredInt secret", given: ptr(secret(num(3))), read: readRequiredInt, want: ints{Value: 3, Set: true}},
		{name: "RequiredInt wrong type", given: ptr(str("3")), read: readRequiredInt, want: ints{}, wantFailures: fail("must be a number, not string")},
		{name: "RequiredInt fraction", given: ptr(num(1.5)), read: readRequiredInt, want: ints{}, wantFailures: fail("must be a whole number from -5 to 5, not 1.5")},
		{name: "RequiredInt too big", given: ptr(num(6)), read: readRequiredInt, want: ints{}, wantFailures: fail("must be a whole number from -5 to 5, not 6")},

		// IntDefault in [0, 10], default 7.
		{name: "IntDefault given", given: ptr(num(0)), read: readIntDefault, want: ints{Set: true}},
		{name: "IntDefault absent", read: readIntDefault, want: ints{Value: 7}, wantDefault: ptr(num(7))},
		{name: "IntDefault null", given: ptr(null), read: readIntDefault, want: ints{Value: 7}, wantDefault: ptr(num(7))},
		{name: "IntDefault unknown", given: ptr(unknown), read: readIntDefault, want: ints{Set: true, Unknown: true}, wantUnknown: true},
		{name: "IntDefault too small", given: ptr(num(-1)), read: readIntDefault, want: ints{}, wantFailures: fail("must be a whole number from 0 to 10, not -1")},

		// Asset: optional.
		{name: "Asset given", given: ptr(resource.NewAssetValue(asset)), read: readAsset, want: asts{Value: asset, Set: true}},
		{name: "Asset absent", read: readAsset, want: asts{}},
		{name: "Asset null", given: ptr(null), read: readAsset, want: asts{}},
		{name: "Asset unknown", given: ptr(unknown), read: readAsset, want: asts{Set: true, Unknown: true}, wantUnknown: true},
		{name: "Asset secret", given: ptr(secret(resource.NewAssetValue(asset))), read: readAsset, want: asts{Value: asset, Set: true}},
		{name: "Asset wrong type", given: ptr(str("hello")), read: readAsset, want: asts{}, wantFailures: fail("must be an asset, not string")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := resource.PropertyMap{"other": str("x")}
			if tt.given != nil {
				m["k"] = *tt.given
			}
			before := m.Copy()
			r := NewReader(m)
			got := tt.read(r)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("field (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantFailures, r.Failures()); diff != "" {
				t.Errorf("Failures() (-want +got):\n%s", diff)
			}
			if r.Unknown() != tt.wantUnknown {
				t.Errorf("Unknown() = %v, want %v", r.Unknown(), tt.wantUnknown)
			}
			wantOut := m.Copy()
			if tt.wantDefault != nil {
				wantOut["k"] = *tt.wantDefault
			}
			if !r.Out().DeepEquals(wantOut) {
				t.Errorf("Out() = %v, want %v", r.Out(), wantOut)
			}
			if !m.DeepEquals(before) {
				t.Errorf("the read changed its input map: %v, was %v", m, before)
			}
		})
	}
}

func ptr(v resource.PropertyValue) *resource.PropertyValue { return &v }

func readStr(r *Reader) any         { return r.Str("k") }
func readRequiredStr(r *Reader) any { return r.RequiredStr("k") }
func readStrDefault(r *Reader) any  { return r.StrDefault("k", "def") }
func readBool(r *Reader) any        { return r.Bool("k", true) }
func readRequiredInt(r *Reader) any { return r.RequiredInt("k", -5, 5) }
func readIntDefault(r *Reader) any  { return r.IntDefault("k", 0, 10, 7) }
func readAsset(r *Reader) any       { return r.Asset("k") }

func TestReaderOnly(t *testing.T) {
	x := resource.NewString("x")
	tests := []struct {
		name string
		in   resource.PropertyMap
		keys []string
		want []providers.CheckFailure
	}{
		{"all known", resource.PropertyMap{"a": x, "b": x}, []string{"a", "b", "c"}, nil},
		{"empty inputs", nil, []string{"a"}, nil},
		{"reserved keys pass", resource.PropertyMap{"a": x, "__defaults": x, "__self": x}, []string{"a"}, nil},
		{"unknown keys fail in stable order", resource.PropertyMap{"z": x, "a": x, "m": x, "__x": x}, []string{"a", "b"}, []providers.CheckFailure{
			{Property: "m", Reason: "unknown property; the valid ones are a, b"},
			{Property: "z", Reason: "unknown property; the valid ones are a, b"},
		}},
		{"null and unknown values count as present", resource.PropertyMap{"n": resource.NewNull(), "u": resource.NewUnknown()}, []string{"a"}, []providers.CheckFailure{
			{Property: "n", Reason: "unknown property; the valid ones are a"},
			{Property: "u", Reason: "unknown property; the valid ones are a"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(tt.in)
			r.Only(tt.keys...)
			if diff := cmp.Diff(tt.want, r.Failures()); diff != "" {
				t.Errorf("Failures() (-want +got):\n%s", diff)
			}
			if r.Unknown() {
				t.Errorf("Only marked the reader unknown; only reads do")
			}
		})
	}
}

func TestReaderValue(t *testing.T) {
	tests := []struct {
		name                 string
		in                   resource.PropertyMap
		wantKind             resource.Kind
		wantSet, wantUnknown bool
	}{
		{"absent", resource.PropertyMap{}, resource.KindNull, false, false},
		{"null", resource.PropertyMap{"k": resource.NewNull()}, resource.KindNull, false, false},
		{"plain", resource.PropertyMap{"k": resource.NewNumber(1)}, resource.KindNumber, true, false},
		{"secret is peeled", resource.PropertyMap{"k": resource.NewSecret(resource.NewArray())}, resource.KindArray, true, false},
		{"secret null is not set", resource.PropertyMap{"k": resource.NewSecret(resource.NewNull())}, resource.KindNull, false, false},
		{"unknown", resource.PropertyMap{"k": resource.NewUnknown()}, resource.KindUnknown, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(tt.in)
			v, set, unknown := r.Value("k")
			if v.Kind() != tt.wantKind || set != tt.wantSet || unknown != tt.wantUnknown {
				t.Errorf("Value = (%s, %v, %v), want (%s, %v, %v)", v.Kind(), set, unknown, tt.wantKind, tt.wantSet, tt.wantUnknown)
			}
			if r.Unknown() != tt.wantUnknown {
				t.Errorf("Unknown() = %v, want %v", r.Unknown(), tt.wantUnknown)
			}
		})
	}
}

func TestReaderFailAndSetDefault(t *testing.T) {
	r := NewReader(nil)
	r.Fail("a", "is %d, not %q", 1, "b")
	r.Fail("", "whole-resource failure")
	want := []providers.CheckFailure{{Property: "a", Reason: `is 1, not "b"`}, {Property: "", Reason: "whole-resource failure"}}
	if diff := cmp.Diff(want, r.Failures()); diff != "" {
		t.Errorf("Failures() (-want +got):\n%s", diff)
	}
	r.SetDefault("d", resource.NewString("v"))
	if want := (resource.PropertyMap{"d": resource.NewString("v")}); !r.Out().DeepEquals(want) {
		t.Errorf("Out() = %v, want %v", r.Out(), want)
	}
}
