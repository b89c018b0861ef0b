package resource

import (
	"slices"
)

// ObjectDiff is the difference between two property maps, key by key. Each
// key of either map lands in exactly one of the four categories, except a
// key that is null or missing on both sides, which lands in none. A
// category with no keys is nil.
type ObjectDiff struct {
	// Adds holds the new values of keys that are missing or null in the
	// old map.
	Adds PropertyMap
	// Deletes holds the old values of keys that are missing or null in the
	// new map.
	Deletes PropertyMap
	// Sames holds the values of keys whose values did not change.
	Sames PropertyMap
	// Updates describes the keys whose values changed.
	Updates map[PropertyKey]ValueDiff
}

// ValueDiff describes one changed value. When both sides are objects (or
// both arrays), possibly wrapped in secrets, Object (or Array) also says
// what changed inside them; it is nil if nothing inside changed, which
// happens when only the secretness of the value changed.
type ValueDiff struct {
	Old, New PropertyValue
	Array    *ArrayDiff
	Object   *ObjectDiff
}

// ArrayDiff is the difference between two arrays, element by element at
// equal indices. Adds holds the elements past the end of the old array,
// Deletes those past the end of the new one. A category with no elements
// is nil.
type ArrayDiff struct {
	Adds    map[int]PropertyValue
	Deletes map[int]PropertyValue
	Sames   map[int]PropertyValue
	Updates map[int]ValueDiff
}

// Diff compares m (the old map) with news (the new map) and returns what
// changed, or nil if nothing did.
//
// A key whose value is null is treated as missing. An unknown value, on
// either side and at any depth, always counts as changed: its eventual
// value cannot be known to be the same. Otherwise values compare as
// DeepEquals does. Diff first checks for equality without allocating, so
// that the common case of unchanged inputs costs one pass and no garbage.
func (m PropertyMap) Diff(news PropertyMap) *ObjectDiff {
	if mapsSame(m, news) {
		return nil
	}
	return diffMaps(m, news)
}

// ChangedKeys returns, sorted, the keys Diff would report as added, deleted
// or updated between m (the old values) and news, without building the
// diff: a null value counts as absent. It returns nil when nothing changed.
func (m PropertyMap) ChangedKeys(news PropertyMap) []PropertyKey {
	var keys []PropertyKey
	for k, o := range m {
		n, inNew := news[k]
		switch {
		case o.IsNull():
			if inNew && !n.IsNull() {
				keys = append(keys, k)
			}
		case !inNew || n.IsNull() || !valuesSame(o, n):
			keys = append(keys, k)
		}
	}
	for k, n := range news {
		if _, inOld := m[k]; !inOld && !n.IsNull() {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// AnyChanges reports whether d records any add, delete or update. It is
// false for a nil diff.
func (d *ObjectDiff) AnyChanges() bool {
	return d != nil && len(d.Adds)+len(d.Deletes)+len(d.Updates) > 0
}

// ChangedKeys returns the added, deleted and updated keys, sorted.
func (d *ObjectDiff) ChangedKeys() []PropertyKey {
	if d == nil {
		return nil
	}
	keys := make([]PropertyKey, 0, len(d.Adds)+len(d.Deletes)+len(d.Updates))
	for k := range d.Adds {
		keys = append(keys, k)
	}
	for k := range d.Deletes {
		keys = append(keys, k)
	}
	for k := range d.Updates {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// AnyChanges reports whether d records any add, delete or update. It is
// false for a nil diff.
func (d *ArrayDiff) AnyChanges() bool {
	return d != nil && len(d.Adds)+len(d.Deletes)+len(d.Updates) > 0
}

func diffMaps(olds, news PropertyMap) *ObjectDiff {
	d := &ObjectDiff{}
	for k, o := range olds {
		n, inNew := news[k]
		switch {
		case o.IsNull():
			if inNew && n.IsNull() {
				setKey(&d.Sames, k, n)
			} else if inNew {
				setKey(&d.Adds, k, n)
			}
		case !inNew || n.IsNull():
			setKey(&d.Deletes, k, o)
		default:
			if vd, changed := diffValues(o, n); changed {
				if d.Updates == nil {
					d.Updates = make(map[PropertyKey]ValueDiff)
				}
				d.Updates[k] = vd
			} else {
				setKey(&d.Sames, k, n)
			}
		}
	}
	for k, n := range news {
		if _, inOld := olds[k]; !inOld && !n.IsNull() {
			setKey(&d.Adds, k, n)
		}
	}
	if !d.AnyChanges() {
		return nil
	}
	return d
}

func setKey(m *PropertyMap, k PropertyKey, v PropertyValue) {
	if *m == nil {
		*m = make(PropertyMap)
	}
	(*m)[k] = v
}

func setIndex(m *map[int]PropertyValue, i int, v PropertyValue) {
	if *m == nil {
		*m = make(map[int]PropertyValue)
	}
	(*m)[i] = v
}

// diffValues compares two values and, if they differ, describes how.
func diffValues(o, n PropertyValue) (ValueDiff, bool) {
	if valuesSame(o, n) {
		return ValueDiff{}, false
	}
	vd := ValueDiff{Old: o, New: n}
	oi, ni := stripSecret(o), stripSecret(n)
	switch {
	case oi.Kind() == KindObject && ni.Kind() == KindObject:
		vd.Object = oi.ObjectValue().Diff(ni.ObjectValue())
	case oi.Kind() == KindArray && ni.Kind() == KindArray:
		vd.Array = diffArrays(oi.ArrayValue(), ni.ArrayValue())
	}
	return vd, true
}

func stripSecret(v PropertyValue) PropertyValue {
	for v.Kind() == KindSecret {
		v = v.SecretElement()
	}
	return v
}

func diffArrays(olds, news []PropertyValue) *ArrayDiff {
	d := &ArrayDiff{}
	for i := 0; i < min(len(olds), len(news)); i++ {
		if vd, changed := diffValues(olds[i], news[i]); changed {
			if d.Updates == nil {
				d.Updates = make(map[int]ValueDiff)
			}
			d.Updates[i] = vd
		} else {
			setIndex(&d.Sames, i, news[i])
		}
	}
	for i := len(olds); i < len(news); i++ {
		setIndex(&d.Adds, i, news[i])
	}
	for i := len(news); i < len(olds); i++ {
		setIndex(&d.Deletes, i, olds[i])
	}
	if !d.AnyChanges() {
		return nil
	}
	return d
}

// mapsSame is the allocation-free equality that Diff uses: null equals
// missing, and unknowns never equal anything.
func mapsSame(a, b PropertyMap) bool {
	for k, v := range a {
		if !valuesSame(v, b[k]) {
			return false
		}
	}
	for k, w := range b {
		if _, ok := a[k]; !ok && !w.IsNull() {
			return false
		}
	}
	return true
}

func valuesSame(v, w PropertyValue) bool {
	// One type test of each side decides the kinds (see Kind).
	switch a := v.ref.(type) {
	case stringTag:
		_, ok := w.ref.(stringTag)
		return ok && v.str == w.str
	case PropertyMap:
		b, ok := w.ref.(PropertyMap)
		return ok && mapsSame(a, b)
	case []PropertyValue:
		b, ok := w.ref.([]PropertyValue)
		return ok && slices.EqualFunc(a, b, valuesSame)
	case *PropertyValue: // secret
		b, ok := w.ref.(*PropertyValue)
		return ok && valuesSame(*a, *b)
	case *Output:
		b, ok := w.ref.(*Output)
		return ok && a.Known && b.Known && a.Secret == b.Secret &&
			slices.Equal(a.Dependencies, b.Dependencies) && valuesSame(a.Element, b.Element)
	case *ResourceReference:
		b, ok := w.ref.(*ResourceReference)
		return ok && !a.IDUnknown && !b.IDUnknown && *a == *b
	case unknownTag:
		return false
	}
	return v.DeepEquals(w)
}

// DetailedDiffFromObjectDiff flattens d into a detailed diff keyed by
// property path (in the syntax of PropertyPath.String, e.g. "a.b[0]" or
// `tags["app.kubernetes.io/name"]`). Each leaf change gets one entry: an
// added or deleted key or element is reported where it was added or
// deleted, not expanded below; an updated object or array is descended
// into; any other update (including a change of secretness only) is
// reported at its own path. inputDiff is copied into every entry. The
// result is never nil: an empty map means no changes.
func DetailedDiffFromObjectDiff(d *ObjectDiff, inputDiff bool) map[string]PropertyDiff {
	out := make(map[string]PropertyDiff)
	w := detailWriter{out: out, input: inputDiff}
	w.object(d)
	return out
}

type detailWriter struct {
	out   map[string]PropertyDiff
	input bool
	path  PropertyPath
}

func (w *detailWriter) add(kind PropertyDiffKind) {
	w.out[w.path.String()] = PropertyDiff{Kind: kind, InputDiff: w.input}
}

func (w *detailWriter) object(d *ObjectDiff) {
	if d == nil {
		return
	}
	for k := range d.Adds {
		w.path = append(w.path, PathKey(string(k)))
		w.add(DiffAdd)
		w.path = w.path[:len(w.path)-1]
	}
	for k := range d.Deletes {
		w.path = append(w.path, PathKey(string(k)))
		w.add(DiffDelete)
		w.path = w.path[:len(w.path)-1]
	}
	for k, vd := range d.Updates {
		w.path = append(w.path, PathKey(string(k)))
		w.value(vd)
		w.path = w.path[:len(w.path)-1]
	}
}

func (w *detailWriter) value(vd ValueDiff) {
	switch {
	case vd.Object.AnyChanges():
		w.object(vd.Object)
	case vd.Array.AnyChanges():
		w.array(vd.Array)
	default:
		w.add(DiffUpdate)
	}
}

func (w *detailWriter) array(d *ArrayDiff) {
	for i := range d.Adds {
		w.path = append(w.path, PathIndex(i))
		w.add(DiffAdd)
		w.path = w.path[:len(w.path)-1]
	}
	for i := range d.Deletes {
		w.path = append(w.path, PathIndex(i))
		w.add(DiffDelete)
		w.path = w.path[:len(w.path)-1]
	}
	for i, vd := range d.Updates {
		w.path = append(w.path, PathIndex(i))
		w.value(vd)
		w.path = w.path[:len(w.path)-1]
	}
}
