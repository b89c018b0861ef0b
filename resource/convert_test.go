package resource_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/groundwork-iac/groundwork/resource"
)

type color string

func TestNewPropertyValue(t *testing.T) {
	asset := resource.NewTextAsset("x")
	archive := resource.NewPathArchive("dir")
	ref := resource.ResourceReference{URN: "urn:pulumi:s::p::a:b:C::n", ID: "i"}
	n, s := resource.NewNumber, resource.NewString
	tests := []struct {
		name string
		in   any
		want resource.PropertyValue
	}{
		{"nil", nil, resource.NewNull()},
		{"bool", true, resource.NewBool(true)},
		{"int", 42, n(42)},
		{"int8", int8(-8), n(-8)},
		{"int16", int16(16), n(16)},
		{"int32", int32(32), n(32)},
		{"int64", int64(-1 << 53), n(-(1 << 53))},
		{"int64 exact power of two", int64(1 << 60), n(1 << 60)},
		{"uint", uint(7), n(7)},
		{"uint8", uint8(255), n(255)},
		{"uint16", uint16(16), n(16)},
		{"uint32", uint32(32), n(32)},
		{"uint64", uint64(1 << 53), n(1 << 53)},
		{"uintptr", uintptr(3), n(3)},
		{"float32", float32(1.5), n(1.5)},
		{"float64", 2.25, n(2.25)},
		{"string", "s", s("s")},
		{"named string", color("red"), s("red")},
		{"URN", resource.URN("urn:x"), s("urn:x")},
		{"[]any", []any{1, "a", nil}, resource.NewArray(n(1), s("a"), resource.NewNull())},
		{"[]string", []string{"a", "b"}, resource.NewArray(s("a"), s("b"))},
		{"[]int", []int{1, 2}, resource.NewArray(n(1), n(2))},
		{"array", [2]bool{true, false}, resource.NewArray(resource.NewBool(true), resource.NewBool(false))},
		{"map[string]any", map[string]any{"a": map[string]any{"b": []any{true}}},
			resource.NewObject(resource.PropertyMap{"a": resource.NewObject(resource.PropertyMap{"b": resource.NewArray(resource.NewBool(true))})})},
		{"map[string]string", map[string]string{"k": "v"}, resource.NewObject(resource.PropertyMap{"k": s("v")})},
		{"map[string]int", map[string]int{"k": 1}, resource.NewObject(resource.PropertyMap{"k": n(1)})},
		{"PropertyValue", resource.NewSecret(s("x")), resource.NewSecret(s("x"))},
		{"PropertyMap", resource.PropertyMap{"a": n(1)}, resource.NewObject(resource.PropertyMap{"a": n(1)})},
		{"[]PropertyValue", []resource.PropertyValue{n(1)}, resource.NewArray(n(1))},
		{"*Asset", asset, resource.NewAssetValue(asset)},
		{"*Archive", archive, resource.NewArchiveValue(archive)},
		{"nil *Asset", (*resource.Asset)(nil), resource.NewNull()},
		{"ResourceReference", ref, resource.NewResourceReference(ref)},
		{"*ResourceReference", &ref, resource.NewResourceReference(ref)},
		{"UnknownPlaceholder", resource.UnknownPlaceholder{}, resource.NewUnknown()},
		{"nil slice", []int(nil), resource.NewNull()},
		{"nil pointer", (*int)(nil), resource.NewNull()},
		{"pointer", ptr(3), resource.NewNumber(3)},
		{"struct", struct {
			Name string `prop:"name"`
			Size int
		}{"a", 2}, resource.NewObject(resource.PropertyMap{"name": resource.NewString("a"), "size": resource.NewNumber(2)})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := resource.NewPropertyValue(tt.in)
			if err != nil {
				t.Fatalf("NewPropertyValue: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// badTag has a tag option NewPropertyValue does not know.
type badTag struct {
	A string `prop:"a,often"`
}

func TestNewPropertyValueErrors(t *testing.T) {
	fn := func() {}
	tests := []struct {
		name     string
		in       any
		path     string
		goType   string
		contains string
	}{
		{"chan at root", make(chan int), "", "chan int", "unsupported type"},
		{"func in map", map[string]any{"a": map[string]any{"b.c": func() {}}}, `a["b.c"]`, "func()", "unsupported type"},
		{"struct with a bad tag in slice", []any{1, badTag{}}, "[1]", "resource_test.badTag", "unknown prop tag option"},
		{"pointer to a func", map[string]any{"p": &fn}, "p", "func()", "unsupported type"},
		{"int key map", map[string]any{"m": map[int]string{1: "a"}}, "m", "map[int]string", "keys must be strings"},
		{"inexact int64", []any{int64(1<<53 + 1)}, "[0]", "int64", "exactly"},
		{"inexact uint64", uint64(math.MaxUint64), "", "uint64", "exactly"},
		{"max int64", int64(math.MaxInt64), "", "int64", "exactly"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := resource.NewPropertyValue(tt.in)
			var ce *resource.ConversionError
			if !errors.As(err, &ce) {
				t.Fatalf("error = %v, want a *ConversionError", err)
			}
			if got := ce.Path.String(); got != tt.path {
				t.Errorf("Path = %q, want %q", got, tt.path)
			}
			if ce.GoType != tt.goType {
				t.Errorf("GoType = %q, want %q", ce.GoType, tt.goType)
			}
			if !strings.Contains(err.Error(), tt.contains) || !strings.Contains(err.Error(), tt.goType) {
				t.Errorf("error %q should mention %q and %q", err, tt.goType, tt.contains)
			}
		})
	}
}

func TestNewPropertyMapFromMap(t *testing.T) {
	m, err := resource.NewPropertyMapFromMap(map[string]any{"a": 1, "b": []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	want := resource.PropertyMap{"a": resource.NewNumber(1), "b": resource.NewArray(resource.NewString("x"))}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := resource.NewPropertyMapFromMap(map[string]any{"bad": []any{make(chan int)}}); err == nil || !strings.Contains(err.Error(), `"bad[0]"`) {
		t.Errorf("error = %v, want one naming bad[0]", err)
	}
	empty, err := resource.NewPropertyMapFromMap(nil)
	if err != nil || empty == nil || len(empty) != 0 {
		t.Errorf("nil map gives %v, %v; want an empty map", empty, err)
	}
	if diff := cmp.Diff(resource.PropertyMap{"k": resource.NewString("v")}, resource.NewPropertyMapFromStrings(map[string]string{"k": "v"})); diff != "" {
		t.Errorf("NewPropertyMapFromStrings (-want +got):\n%s", diff)
	}
}

func TestMappable(t *testing.T) {
	asset := resource.NewTextAsset("x")
	archive := resource.NewPathArchive("d")
	ref := resource.ResourceReference{URN: "u", ID: "i"}
	m := resource.PropertyMap{
		"null":    resource.NewNull(),
		"bool":    resource.NewBool(true),
		"num":     resource.NewNumber(1.5),
		"str":     resource.NewString("s"),
		"arr":     resource.NewArray(resource.NewNumber(1), resource.NewUnknown()),
		"obj":     resource.NewObject(resource.PropertyMap{"k": resource.NewSecret(resource.NewString("pw"))}),
		"asset":   resource.NewAssetValue(asset),
		"archive": resource.NewArchiveValue(archive),
		"ref":     resource.NewResourceReference(ref),
		"out":     resource.NewOutput(resource.Output{Known: true, Secret: true, Element: resource.NewString("o")}),
		"unk":     resource.NewOutput(resource.Output{}),
	}
	want := map[string]any{
		"null": nil, "bool": true, "num": 1.5, "str": "s",
		"arr":   []any{1.0, resource.UnknownPlaceholder{}},
		"obj":   map[string]any{"k": "pw"},
		"asset": asset, "archive": archive, "ref": ref,
		"out": "o", "unk": resource.UnknownPlaceholder{},
	}
	got := m.Mappable()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Mappable (-want +got):\n%s", diff)
	}
	back, err := resource.NewPropertyMapFromMap(got)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m.Unwrap(), back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}
