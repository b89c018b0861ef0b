package resource_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
)

type inner struct {
	Port int `prop:"port"`
}

type base struct {
	Region string
}

type sample struct {
	base
	Path     string            `prop:"path"`
	Mode     string            `prop:"mode,optional"`
	Token    string            `prop:"token,secret"`
	MinUpper int               // "minUpper"
	URLPath  string            // "urlPath"
	ID       string            // "id"
	SHA256   string            // "sha256"
	Tags     map[string]string `prop:",optional"`
	Inner    *inner            `prop:"inner,optional"`
	List     []inner           `prop:"list,optional"`
	Skip     string            `prop:"-"`
	hidden   string
}

func TestStructFieldNames(t *testing.T) {
	fields, err := resource.StructFields(reflect.TypeFor[sample]())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range fields {
		names = append(names, string(f.Name))
	}
	want := []string{"region", "path", "mode", "token", "minUpper", "urlPath", "id", "sha256", "tags", "inner", "list"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}

func TestStructFieldsRejects(t *testing.T) {
	type badOption struct {
		A string `prop:"a,sometimes"`
	}
	type twice struct {
		A string `prop:"x"`
		B string `prop:"x"`
	}
	for name, typ := range map[string]reflect.Type{
		"not a struct": reflect.TypeFor[int](),
		"bad option":   reflect.TypeFor[badOption](),
		"same name":    reflect.TypeFor[twice](),
	} {
		if _, err := resource.StructFields(typ); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// A struct converts to an object and decodes back to the same struct;
// zero optional fields are left out and secret fields are secret.
func TestStructRoundTrip(t *testing.T) {
	in := sample{
		base: base{Region: "eu"}, Path: "/a", Token: "t0k", MinUpper: 2, URLPath: "/u", ID: "x", SHA256: "ff",
		Inner: &inner{Port: 80}, List: []inner{{Port: 1}, {Port: 2}}, Skip: "no", hidden: "no",
	}
	pv, err := resource.NewPropertyValue(in)
	if err != nil {
		t.Fatal(err)
	}
	obj := pv.ObjectValue()
	if _, ok := obj["mode"]; ok {
		t.Errorf("the zero optional mode is present: %v", obj)
	}
	if _, ok := obj["tags"]; ok {
		t.Errorf("the nil optional tags are present: %v", obj)
	}
	if !obj["token"].IsSecret() {
		t.Errorf("token is not secret: %v", obj["token"])
	}
	if _, ok := obj["skip"]; ok {
		t.Errorf(`a field tagged "-" is present`)
	}
	var out sample
	if err := pv.Decode(&out); err != nil {
		t.Fatal(err)
	}
	in.Skip, in.hidden = "", ""
	if diff := cmp.Diff(in, out, cmp.AllowUnexported(sample{})); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestDecode(t *testing.T) {
	num := resource.NewNumber
	str := resource.NewString
	obj := func(kv ...any) resource.PropertyValue {
		m := resource.PropertyMap{}
		for i := 0; i < len(kv); i += 2 {
			m[resource.PropertyKey(kv[i].(string))] = kv[i+1].(resource.PropertyValue)
		}
		return resource.NewObject(m)
	}
	tests := []struct {
		name    string
		in      resource.PropertyValue
		dst     any // a pointer to a zero value
		want    any // what dst points to afterwards
		wantErr string
	}{
		{name: "int", in: num(3), dst: new(int), want: 3},
		{name: "fraction into int", in: num(1.5), dst: new(int), wantErr: "1.5 is not a whole number"},
		{name: "overflow", in: num(300), dst: new(uint8), wantErr: "out of range"},
		{name: "negative uint", in: num(-1), dst: new(uint), wantErr: "out of range"},
		{name: "string", in: str("a"), dst: new(string), want: "a"},
		{name: "named string", in: str("i-1"), dst: new(resource.ID), want: resource.ID("i-1")},
		{name: "mismatch", in: num(1), dst: new(string), wantErr: "want a string, found a number"},
		{name: "secret unwrapped", in: resource.NewSecret(str("s")), dst: new(string), want: "s"},
		{name: "unknown", in: resource.NewUnknown(), dst: new(string), wantErr: "unknown"},
		{name: "null into pointer", in: resource.NewNull(), dst: new(*string), want: (*string)(nil)},
		{name: "pointer", in: str("p"), dst: new(*string), want: ptr("p")},
		{name: "slice", in: resource.NewArray(str("a"), str("b")), dst: new([]string), want: []string{"a", "b"}},
		{name: "map", in: obj("a", num(1)), dst: new(map[string]int), want: map[string]int{"a": 1}},
		{name: "any", in: obj("a", num(1)), dst: new(any), want: any(map[string]any{"a": 1.0})},
		{name: "raw", in: resource.NewSecret(str("s")), dst: new(resource.PropertyValue), want: resource.NewSecret(str("s"))},
		{name: "nested path", in: obj("list", resource.NewArray(obj("port", str("x")))), dst: new(sample), wantErr: `"list[0].port"`},
		{name: "extra keys ignored", in: obj("path", str("/p"), "nope", num(1)), dst: new(inner), want: inner{}},
		{name: "not a pointer", in: num(1), dst: 0, wantErr: "non-nil pointer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.in.Decode(tt.dst)
			if tt.wantErr != "" {
				var de *resource.DecodeError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &de) {
					t.Fatalf("error = %v, want a *DecodeError containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := reflect.ValueOf(tt.dst).Elem().Interface()
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b resource.PropertyValue) bool { return a.DeepEquals(b) })); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
