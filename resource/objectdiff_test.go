package resource_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/groundwork-iac/groundwork/resource"
)

func mustMap(t testing.TB, m map[string]any) resource.PropertyMap {
	t.Helper()
	pm, err := resource.NewPropertyMapFromMap(m)
	if err != nil {
		t.Fatal(err)
	}
	return pm
}

func TestDiffEqual(t *testing.T) {
	tests := []struct {
		name     string
		old, new map[string]any
	}{
		{"empty", map[string]any{}, map[string]any{}},
		{"nil", nil, nil},
		{"deep", map[string]any{"a": []any{1, map[string]any{"b": "c"}}}, map[string]any{"a": []any{1, map[string]any{"b": "c"}}}},
		{"null is missing", map[string]any{"a": nil, "b": 1}, map[string]any{"b": 1, "c": nil}},
		{"nested null is missing", map[string]any{"o": map[string]any{"x": nil}}, map[string]any{"o": map[string]any{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := mustMap(t, tt.old).Diff(mustMap(t, tt.new)); d != nil {
				t.Errorf("Diff = %+v, want nil", d)
			}
			if keys := mustMap(t, tt.old).ChangedKeys(mustMap(t, tt.new)); keys != nil {
				t.Errorf("PropertyMap.ChangedKeys = %v, want nil", keys)
			}
		})
	}
}

func TestDiff(t *testing.T) {
	n, s := resource.NewNumber, resource.NewString
	secretObj := func(m map[string]any) resource.PropertyValue {
		return resource.NewSecret(resource.NewObject(mustMap(t, m)))
	}
	tests := []struct {
		name     string
		old, new resource.PropertyMap
		want     *resource.ObjectDiff
	}{
		{
			name: "add delete same update",
			old:  resource.PropertyMap{"keep": n(1), "gone": n(2), "chg": s("a"), "wasnull": resource.NewNull()},
			new:  resource.PropertyMap{"keep": n(1), "new": n(3), "chg": s("b"), "wasnull": n(4)},
			want: &resource.ObjectDiff{
				Adds:    resource.PropertyMap{"new": n(3), "wasnull": n(4)},
				Deletes: resource.PropertyMap{"gone": n(2)},
				Sames:   resource.PropertyMap{"keep": n(1)},
				Updates: map[resource.PropertyKey]resource.ValueDiff{"chg": {Old: s("a"), New: s("b")}},
			},
		},
		{
			name: "nested object",
			old:  mustMap(t, map[string]any{"o": map[string]any{"a": 1, "b": 2}}),
			new:  mustMap(t, map[string]any{"o": map[string]any{"a": 1, "b": 3}}),
			want: &resource.ObjectDiff{Updates: map[resource.PropertyKey]resource.ValueDiff{"o": {
				Old: resource.NewObject(mustMap(t, map[string]any{"a": 1, "b": 2})),
				New: resource.NewObject(mustMap(t, map[string]any{"a": 1, "b": 3})),
				Object: &resource.ObjectDiff{
					Sames:   resource.PropertyMap{"a": n(1)},
					Updates: map[resource.PropertyKey]resource.ValueDiff{"b": {Old: n(2), New: n(3)}},
				},
			}}},
		},
		{
			name: "array",
			old:  mustMap(t, map[string]any{"a": []any{1, 2, 3}}),
			new:  mustMap(t, map[string]any{"a": []any{1, 5}}),
			want: &resource.ObjectDiff{Updates: map[resource.PropertyKey]resource.ValueDiff{"a": {
				Old: resource.NewArray(n(1), n(2), n(3)),
				New: resource.NewArray(n(1), n(5)),
				Array: &resource.ArrayDiff{
					Sames:   map[int]resource.PropertyValue{0: n(1)},
					Updates: map[int]resource.ValueDiff{1: {Old: n(2), New: n(5)}},
					Deletes: map[int]resource.PropertyValue{2: n(3)},
				},
			}}},
		},
		{
			name: "through secrets",
			old:  resource.PropertyMap{"s": secretObj(map[string]any{"a": 1})},
			new:  resource.PropertyMap{"s": secretObj(map[string]any{"a": 2})},
			want: &resource.ObjectDiff{Updates: map[resource.PropertyKey]resource.ValueDiff{"s": {
				Old:    secretObj(map[string]any{"a": 1}),
				New:    secretObj(map[string]any{"a": 2}),
				Object: &resource.ObjectDiff{Updates: map[resource.PropertyKey]resource.ValueDiff{"a": {Old: n(1), New: n(2)}}},
			}}},
		},
		{
			name: "secretness only",
			old:  resource.PropertyMap{"s": resource.NewObject(mustMap(t, map[string]any{"a": 1}))},
			new:  resource.PropertyMap{"s": secretObj(map[string]any{"a": 1})},
			want: &resource.ObjectDiff{Updates: map[resource.PropertyKey]resource.ValueDiff{"s": {
				Old: resource.NewObject(mustMap(t, map[string]any{"a": 1})),
				New: secretObj(map[string]any{"a": 1}),
			}}},
		},
		{
			name: "unknowns always change",
			old:  resource.PropertyMap{"u": resource.NewUnknown(), "k": n(1)},
			new:  resource.PropertyMap{"u": resource.NewUnknown(), "k": n(1)},
			want: &resource.ObjectDiff{
				Sames:   resource.PropertyMap{"k": n(1)},
				Updates: map[resource.PropertyKey]resource.ValueDiff{"u": {Old: resource.NewUnknown(), New: resource.NewUnknown()}},
			},
		},
		{
			name: "kind change",
			old:  resource.PropertyMap{"x": n(1)},
			new:  resource.PropertyMap{"x": s("1")},
			want: &resource.ObjectDiff{Updates: map[resource.PropertyKey]resource.ValueDiff{"x": {Old: n(1), New: s("1")}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.old.Diff(tt.new)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Diff (-want +got):\n%s", diff)
			}
			if !got.AnyChanges() {
				t.Errorf("AnyChanges() = false")
			}
			if diff := cmp.Diff(got.ChangedKeys(), tt.old.ChangedKeys(tt.new)); diff != "" {
				t.Errorf("PropertyMap.ChangedKeys disagrees with the diff's (-diff's +map's):\n%s", diff)
			}
		})
	}
}

func TestChangedKeys(t *testing.T) {
	d := mustMap(t, map[string]any{"z": 1, "b": 1, "same": 1}).Diff(mustMap(t, map[string]any{"a": 1, "b": 2, "same": 1}))
	want := []resource.PropertyKey{"a", "b", "z"}
	if diff := cmp.Diff(want, d.ChangedKeys()); diff != "" {
		t.Errorf("ChangedKeys (-want +got):\n%s", diff)
	}
	var none *resource.ObjectDiff
	if none.AnyChanges() || none.ChangedKeys() != nil {
		t.Errorf("a nil diff reports changes")
	}
}

func TestDetailedDiffFromObjectDiff(t *testing.T) {
	old := mustMap(t, map[string]any{
		"name":  "a",
		"tags":  map[string]any{"env": "dev", "app.kubernetes.io/name": "x", "gone": "1"},
		"ports": []any{80, 443},
		"rules": []any{map[string]any{"from": 1, "to": 2}},
		"drop":  true,
		"sec":   resource.NewSecret(resource.NewString("old")),
	})
	news := mustMap(t, map[string]any{
		"name":  "a",
		"tags":  map[string]any{"env": "prod", "app.kubernetes.io/name": "y", "new": "1"},
		"ports": []any{80, 8443, 9000},
		"rules": []any{map[string]any{"from": 1, "to": 3}},
		"add":   map[string]any{"deep": 1},
		"sec":   resource.NewSecret(resource.NewString("new")),
	})
	got := resource.DetailedDiffFromObjectDiff(old.Diff(news), true)
	upd := resource.PropertyDiff{Kind: resource.DiffUpdate, InputDiff: true}
	add := resource.PropertyDiff{Kind: resource.DiffAdd, InputDiff: true}
	del := resource.PropertyDiff{Kind: resource.DiffDelete, InputDiff: true}
	want := map[string]resource.PropertyDiff{
		"tags.env":                       upd,
		`tags["app.kubernetes.io/name"]`: upd,
		"tags.gone":                      del,
		"tags.new":                       add,
		"ports[1]":                       upd,
		"ports[2]":                       add,
		"rules[0].to":                    upd,
		"add":                            add,
		"drop":                           del,
		"sec":                            upd,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DetailedDiffFromObjectDiff (-want +got):\n%s", diff)
	}
	for k := range got {
		if _, err := resource.ParsePropertyPath(k); err != nil {
			t.Errorf("key %q is not a property path: %v", k, err)
		}
	}
	if got := resource.DetailedDiffFromObjectDiff(nil, false); got == nil || len(got) != 0 {
		t.Errorf("nil diff gives %v, want an empty map", got)
	}
}

func TestDiffEqualDoesNotAllocate(t *testing.T) {
	m := benchMap(50)
	other := benchMap(50)
	allocs := testing.AllocsPerRun(100, func() {
		if m.Diff(other) != nil {
			t.Fatal("maps differ")
		}
	})
	if allocs != 0 {
		t.Errorf("Diff of equal maps allocates %v times, want 0", allocs)
	}
}

func benchMap(n int) resource.PropertyMap {
	m := resource.PropertyMap{}
	for i := 0; i < n; i++ {
		m[resource.PropertyKey(fmt.Sprintf("key%d", i))] = resource.NewObject(resource.PropertyMap{
			"s":   resource.NewString("value"),
			"arr": resource.NewArray(resource.NewNumber(float64(i)), resource.NewBool(true)),
		})
	}
	return m
}

// BenchmarkDiffEqual diffs two equal maps of 20 properties, the common case
// for a resource that did not change.
func BenchmarkDiffEqual(b *testing.B) {
	old, news := benchMap(20), benchMap(20)
	b.ReportAllocs()
	for b.Loop() {
		if old.Diff(news) != nil {
			b.Fatal("maps differ")
		}
	}
}
