package resource_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/groundwork-iac/groundwork/resource"
)

var (
	key   = resource.PathKey
	index = resource.PathIndex
	star  = resource.PathWildcard
	dot   = resource.PathElement{IsWildcard: true} // ".*"
)

func TestParsePropertyPath(t *testing.T) {
	tests := []struct {
		in     string
		want   resource.PropertyPath
		String string // "" means the input itself
	}{
		{in: "a", want: resource.PropertyPath{key("a")}},
		{in: "a.b[0]", want: resource.PropertyPath{key("a"), key("b"), index(0)}},
		{in: `a.b[0]["c.d"].*`, want: resource.PropertyPath{key("a"), key("b"), index(0), key("c.d"), dot}},
		{in: "[*]", want: resource.PropertyPath{star()}},
		{in: "*", want: resource.PropertyPath{dot}},
		{in: `foo["with \"quotes\""]`, want: resource.PropertyPath{key("foo"), key(`with "quotes"`)}},
		{in: `["key with.dot"]`, want: resource.PropertyPath{key("key with.dot")}},
		{in: `["a"]`, want: resource.PropertyPath{key("a")}, String: "a"},
		{in: `a["*"]`, want: resource.PropertyPath{key("a"), key("*")}},
		{in: "[3].x", want: resource.PropertyPath{index(3), key("x")}},
		{in: "a[007]", want: resource.PropertyPath{key("a"), index(7)}, String: "a[7]"},
		{in: "tags.app-name", want: resource.PropertyPath{key("tags"), key("app-name")}},
		{in: "a.b/c:d", want: resource.PropertyPath{key("a"), key("b/c:d")}, String: `a["b/c:d"]`},
		{in: "a.0", want: resource.PropertyPath{key("a"), key("0")}, String: `a["0"]`},
		{in: "ключ.значение", want: resource.PropertyPath{key("ключ"), key("значение")}},
		{in: `a[""]`, want: resource.PropertyPath{key("a"), key("")}},
		{in: `["\n\t\\"]`, want: resource.PropertyPath{key("\n\t\\")}},
		{in: `metadata.labels["app.kubernetes.io/name"]`, want: resource.PropertyPath{key("metadata"), key("labels"), key("app.kubernetes.io/name")}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := resource.ParsePropertyPath(tt.in)
			if err != nil {
				t.Fatalf("ParsePropertyPath: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			wantString := tt.String
			if wantString == "" {
				wantString = tt.in
			}
			if got.String() != wantString {
				t.Errorf("String() = %q, want %q", got.String(), wantString)
			}
		})
	}
}

func TestParsePropertyPathErrors(t *testing.T) {
	tests := []struct {
		in     string
		offset int
	}{
		{"", 0},
		{".a", 0},
		{"a.", 2},
		{"a..b", 2},
		{"a[", 2},
		{"a[0", 3},
		{"a[x]", 2},
		{"a[-1]", 2},
		{"a[0]b", 4},
		{`a["b`, 2},
		{`a["b"`, 5},
		{`a["\q"]`, 2},
		{"a b", 1},
		{"a]", 1},
		{"a.[0]", 2},
		{"a[99999999999999999999999]", 2},
		{"a\"b", 1},
		{"a\x00", 1},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := resource.ParsePropertyPath(tt.in)
			var pe *resource.PathError
			if !errors.As(err, &pe) {
				t.Fatalf("error = %v, want a *PathError", err)
			}
			if pe.Offset != tt.offset || pe.Path != tt.in {
				t.Errorf("PathError = %+v, want offset %d (%v)", pe, tt.offset, err)
			}
		})
	}
}

func mustPath(t *testing.T, s string) resource.PropertyPath {
	t.Helper()
	p, err := resource.ParsePropertyPath(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustValue(t *testing.T, v any) resource.PropertyValue {
	t.Helper()
	pv, err := resource.NewPropertyValue(v)
	if err != nil {
		t.Fatal(err)
	}
	return pv
}

func TestPathGet(t *testing.T) {
	doc := resource.NewObject(resource.PropertyMap{
		"a": mustValue(t, map[string]any{"b": []any{"x", map[string]any{"c.d": 1}}}),
		"s": resource.NewSecret(mustValue(t, map[string]any{"inner": []any{"pw"}})),
		"o": resource.NewOutput(resource.Output{Known: true, Element: mustValue(t, map[string]any{"k": "v"})}),
		"u": resource.NewUnknown(),
	})
	tests := []struct {
		path  string
		want  resource.PropertyValue
		found bool
	}{
		{"a.b[0]", resource.NewString("x"), true},
		{`a.b[1]["c.d"]`, resource.NewNumber(1), true},
		{"a.b[2]", resource.PropertyValue{}, false},
		{"a.c", resource.PropertyValue{}, false},
		{"a[0]", resource.PropertyValue{}, false},
		{"a.b.c", resource.PropertyValue{}, false},
		{"s.inner[0]", resource.NewSecret(resource.NewString("pw")), true},
		{"s.inner", resource.NewSecret(resource.NewArray(resource.NewString("pw"))), true},
		{"o.k", resource.NewString("v"), true},
		{"u.anything[3]", resource.NewUnknown(), true},
		{"a.*", resource.PropertyValue{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, found := mustPath(t, tt.path).Get(doc)
			if found != tt.found {
				t.Fatalf("found = %v, want %v", found, tt.found)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if tt.path[0] != '[' {
				mgot, mfound := doc.ObjectValue().GetPath(mustPath(t, tt.path))
				if mfound != found || !mgot.DeepEquals(got) {
					t.Errorf("GetPath = %v, %v; want %v, %v", mgot, mfound, got, found)
				}
			}
		})
	}
	if got, ok := (resource.PropertyPath{}).Get(doc); !ok || !got.DeepEquals(doc) {
		t.Errorf("empty path Get = %v, %v; want the value itself", got, ok)
	}
}

func TestPathSet(t *testing.T) {
	tests := []struct {
		name, path string
		dest, want any
		ok         bool
	}{
		{"new key", "a", map[string]any{}, map[string]any{"a": "V"}, true},
		{"creates objects", "a.b.c", map[string]any{}, map[string]any{"a": map[string]any{"b": map[string]any{"c": "V"}}}, true},
		{"creates arrays", "a[1].b", map[string]any{}, map[string]any{"a": []any{nil, map[string]any{"b": "V"}}}, true},
		{"replaces element", "a[0]", map[string]any{"a": []any{1, 2}}, map[string]any{"a": []any{"V", 2}}, true},
		{"keeps siblings", "a.y", map[string]any{"a": map[string]any{"x": 1}}, map[string]any{"a": map[string]any{"x": 1, "y": "V"}}, true},
		{"key into array", "a.b", map[string]any{"a": []any{}}, nil, false},
		{"index into string", "a[0]", map[string]any{"a": "s"}, nil, false},
		{"wildcard", "a.*", map[string]any{"a": map[string]any{}}, nil, false},
		{"too far", "a[100000]", map[string]any{}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dest := mustValue(t, tt.dest)
			before := dest.String()
			got, ok := mustPath(t, tt.path).Set(dest, resource.NewString("V"))
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			want := dest
			if tt.ok {
				want = mustValue(t, tt.want)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if dest.String() != before {
				t.Errorf("Set modified its input: %s, was %s", dest, before)
			}
		})
	}
}

func TestPathSetThroughSecret(t *testing.T) {
	dest := resource.NewObject(resource.PropertyMap{"s": resource.NewSecret(mustValue(t, map[string]any{"k": 1}))})
	got, ok := mustPath(t, "s.k").Set(dest, resource.NewNumber(2))
	want := resource.NewObject(resource.PropertyMap{"s": resource.NewSecret(mustValue(t, map[string]any{"k": 2}))})
	if !ok {
		t.Fatal("Set failed")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	m, ok := dest.ObjectValue().SetPath(mustPath(t, "s.k"), resource.NewNumber(2))
	if !ok || !resource.NewObject(m).DeepEquals(want) {
		t.Errorf("SetPath = %v, %v", m, ok)
	}
	if _, ok := mustPath(t, "u.k").Set(resource.NewObject(resource.PropertyMap{"u": resource.NewUnknown()}), resource.NewNull()); ok {
		t.Errorf("Set into an unknown succeeded")
	}
}

func TestPathDelete(t *testing.T) {
	tests := []struct {
		name, path string
		dest, want any
		ok         bool
	}{
		{"key", "a", map[string]any{"a": 1, "b": 2}, map[string]any{"b": 2}, true},
		{"nested key", "a.b", map[string]any{"a": map[string]any{"b": 1, "c": 2}}, map[string]any{"a": map[string]any{"c": 2}}, true},
		{"array element shifts", "a[0]", map[string]any{"a": []any{1, 2, 3}}, map[string]any{"a": []any{2, 3}}, true},
		{"inside array element", "a[1].x", map[string]any{"a": []any{1, map[string]any{"x": 1, "y": 2}}}, map[string]any{"a": []any{1, map[string]any{"y": 2}}}, true},
		{"missing", "z", map[string]any{"a": 1}, nil, false},
		{"missing index", "a[5]", map[string]any{"a": []any{1}}, nil, false},
		{"wildcard", "*", map[string]any{"a": 1}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dest := mustValue(t, tt.dest)
			before := dest.String()
			got, ok := mustPath(t, tt.path).Delete(dest)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			want := dest
			if tt.ok {
				want = mustValue(t, tt.want)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if dest.String() != before {
				t.Errorf("Delete modified its input")
			}
			m, mok := dest.ObjectValue().DeletePath(mustPath(t, tt.path))
			if mok != ok || !resource.NewObject(m).DeepEquals(want) {
				t.Errorf("DeletePath = %v, %v", m, mok)
			}
		})
	}
	secret := resource.NewObject(resource.PropertyMap{"s": resource.NewSecret(mustValue(t, map[string]any{"k": 1, "j": 2}))})
	got, ok := mustPath(t, "s.k").Delete(secret)
	want := resource.NewObject(resource.PropertyMap{"s": resource.NewSecret(mustValue(t, map[string]any{"j": 2}))})
	if diff := cmp.Diff(want, got); !ok || diff != "" {
		t.Errorf("Delete through a secret: ok=%v (-want +got):\n%s", ok, diff)
	}
}

func TestPathContains(t *testing.T) {
	tests := []struct {
		p, q string
		want bool
	}{
		{"a", "a", true},
		{"a", "a.b[0]", true},
		{"a.b", "a", false},
		{"a.*", "a.b", true},
		{"a[*]", "a[3].x", true},
		{"a.*", "a[3]", true},
		{"*", "anything.at.all", true},
		{"a.b", "a.*", false},
		{"a[*]", "a[*]", true},
		{"a[0]", "a[1]", false},
		{"a[0]", `a["0"]`, false},
		{"a.b", "a.c", false},
	}
	for _, tt := range tests {
		if got := mustPath(t, tt.p).Contains(mustPath(t, tt.q)); got != tt.want {
			t.Errorf("%s.Contains(%s) = %v, want %v", tt.p, tt.q, got, tt.want)
		}
	}
}

func TestPathAppendDoesNotAlias(t *testing.T) {
	base := make(resource.PropertyPath, 1, 4)
	base[0] = key("a")
	x := base.Append(key("x"))
	y := base.Append(key("y"))
	if x.String() != "a.x" || y.String() != "a.y" {
		t.Errorf("Append aliased: %s, %s", x, y)
	}
}
