package resource

import (
	"math"
	"reflect"
	"slices"
	"strconv"
)

// Kind says which kind of value a PropertyValue holds.
type Kind uint8

// The kinds of property value.
const (
	KindNull Kind = iota
	KindBool
	KindNumber
	KindString
	KindArray
	KindObject
	KindAsset
	KindArchive
	KindResourceReference
	KindUnknown
	KindSecret
	KindOutput
)

var kindNames = [...]string{"null", "bool", "number", "string", "array", "object", "asset", "archive", "resource reference", "unknown", "secret", "output"}

// String names the kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// PropertyKey is the name of a property in a PropertyMap.
type PropertyKey string

// PropertyMap is an object: property values keyed by name.
type PropertyMap map[PropertyKey]PropertyValue

// PropertyValue is one value of a resource's inputs or outputs. The zero
// value is null. Values are immutable by convention: constructors copy nothing
// and callers must not mutate the arrays and maps a value holds after handing
// it over.
//
// The kind is not stored apart: ref holds either the payload of a composite
// kind, whose dynamic type names the kind, or the zero-size tag of a scalar
// one (and nil for null). That keeps a value at 40 bytes instead of 48, which
// is what a map slot holds: a small PropertyMap (up to eight entries) is
// one 480-byte allocation instead of 576.
type PropertyValue struct {
	num float64 // number; bool as 0 or 1
	str string  // string
	ref any     // a scalar's tag, or []PropertyValue, PropertyMap, *Asset, *Archive, *ResourceReference, *PropertyValue (secret), *Output
}

// The refs of the scalar kinds. Zero-size, they convert to an interface
// without an allocation, and testing for one compares the interface's type
// word alone.
type (
	stringTag  struct{}
	numberTag  struct{}
	boolTag    struct{}
	unknownTag struct{}
)

// ResourceReference is a value that refers to another resource: its URN, its
// ID for custom resources, and the version of the package that manages it.
type ResourceReference struct {
	URN URN
	// ID is the referenced custom resource's ID; "" for a component.
	ID ID
	// IDUnknown is set when the resource is custom but its ID is not known
	// yet (a preview of a resource that will be created).
	IDUnknown      bool
	PackageVersion string
}

// Output is a value that carries its own metadata: whether it is known,
// whether it is secret, and which resources it came from. It is how a
// program passes one resource's outputs to another's inputs without losing
// the dependency or the secretness.
type Output struct {
	Element      PropertyValue // meaningful only when Known
	Known        bool
	Secret       bool
	Dependencies []URN
}

// NewNull returns the null value.
func NewNull() PropertyValue { return PropertyValue{} }

// NewBool returns a bool value.
func NewBool(b bool) PropertyValue {
	v := PropertyValue{ref: boolTag{}}
	if b {
		v.num = 1
	}
	return v
}

// NewNumber returns a number value.
func NewNumber(n float64) PropertyValue { return PropertyValue{num: n, ref: numberTag{}} }

// NewString returns a string value.
func NewString(s string) PropertyValue { return PropertyValue{str: s, ref: stringTag{}} }

// NewArray returns an array value holding elems.
func NewArray(elems ...PropertyValue) PropertyValue {
	if elems == nil {
		elems = []PropertyValue{}
	}
	return PropertyValue{ref: elems}
}

// NewObject returns an object value holding m.
func NewObject(m PropertyMap) PropertyValue {
	if m == nil {
		m = PropertyMap{}
	}
	return PropertyValue{ref: m}
}

// NewAssetValue returns an asset value.
func NewAssetValue(a *Asset) PropertyValue { return PropertyValue{ref: a} }

// NewArchiveValue returns an archive value.
func NewArchiveValue(a *Archive) PropertyValue { return PropertyValue{ref: a} }

// NewResourceReference returns a resource reference value.
func NewResourceReference(r ResourceReference) PropertyValue {
	return PropertyValue{ref: &r}
}

// NewUnknown returns the unknown value: a value that will only be known
// once a resource has been created or updated.
func NewUnknown() PropertyValue { return PropertyValue{ref: unknownTag{}} }

// NewSecret wraps v as a secret. Wrapping a secret again is a no-op.
func NewSecret(v PropertyValue) PropertyValue {
	if _, ok := v.ref.(*PropertyValue); ok {
		return v
	}
	return PropertyValue{ref: &v}
}

// NewOutput returns an output value.
func NewOutput(o Output) PropertyValue {
	if !o.Known {
		o.Element = PropertyValue{}
	}
	return PropertyValue{ref: &o}
}

// Kind returns the value's kind.
func (v PropertyValue) Kind() Kind {
	// Type assertions to concrete types are one comparison each: cheaper,
	// in the order of how common the kinds are, than a type switch.
	if _, ok := v.ref.(stringTag); ok {
		return KindString
	}
	if v.ref == nil {
		return KindNull
	}
	if _, ok := v.ref.(PropertyMap); ok {
		return KindObject
	}
	switch v.ref.(type) {
	case numberTag:
		return KindNumber
	case boolTag:
		return KindBool
	case []PropertyValue:
		return KindArray
	case *PropertyValue:
		return KindSecret
	case unknownTag:
		return KindUnknown
	case *Asset:
		return KindAsset
	case *Archive:
		return KindArchive
	case *ResourceReference:
		return KindResourceReference
	case *Output:
		return KindOutput
	}
	return KindNull // unreachable: the constructors set nothing else
}

// IsNull reports whether v is null.
func (v PropertyValue) IsNull() bool { return v.Kind() == KindNull }

// IsBool reports whether v is a bool.
func (v PropertyValue) IsBool() bool { _, ok := v.ref.(boolTag); return ok }

// IsNumber reports whether v is a number.
func (v PropertyValue) IsNumber() bool { _, ok := v.ref.(numberTag); return ok }

// IsString reports whether v is a string.
func (v PropertyValue) IsString() bool { _, ok := v.ref.(stringTag); return ok }

// IsArray reports whether v is an array.
func (v PropertyValue) IsArray() bool { return v.Kind() == KindArray }

// IsObject reports whether v is an object.
func (v PropertyValue) IsObject() bool { return v.Kind() == KindObject }

// IsAsset reports whether v is an asset.
func (v PropertyValue) IsAsset() bool { return v.Kind() == KindAsset }

// IsArchive reports whether v is an archive.
func (v PropertyValue) IsArchive() bool { return v.Kind() == KindArchive }

// IsResourceReference reports whether v is a resource reference.
func (v PropertyValue) IsResourceReference() bool { return v.Kind() == KindResourceReference }

// IsUnknown reports whether v is unknown. An output that is not known also
// counts as unknown.
func (v PropertyValue) IsUnknown() bool {
	return v.Kind() == KindUnknown || (v.Kind() == KindOutput && !v.ref.(*Output).Known)
}

// IsSecret reports whether v is a secret.
func (v PropertyValue) IsSecret() bool { return v.Kind() == KindSecret }

// IsOutput reports whether v is an output value.
func (v PropertyValue) IsOutput() bool { return v.Kind() == KindOutput }

// BoolValue returns the bool v holds (false if v is not a bool).
func (v PropertyValue) BoolValue() bool { return v.IsBool() && v.num != 0 }

// NumberValue returns the number v holds (0 if v is not a number).
func (v PropertyValue) NumberValue() float64 {
	if !v.IsNumber() {
		return 0
	}
	return v.num
}

// StringValue returns the string v holds ("" if v is not a string).
func (v PropertyValue) StringValue() string { return v.str }

// ArrayValue returns the elements v holds (nil if v is not an array).
func (v PropertyValue) ArrayValue() []PropertyValue {
	a, _ := v.ref.([]PropertyValue)
	return a
}

// ObjectValue returns the map v holds (nil if v is not an object).
func (v PropertyValue) ObjectValue() PropertyMap {
	m, _ := v.ref.(PropertyMap)
	return m
}

// AssetValue returns the asset v holds (nil if v is not an asset).
func (v PropertyValue) AssetValue() *Asset {
	a, _ := v.ref.(*Asset)
	return a
}

// ArchiveValue returns the archive v holds (nil if v is not an archive).
func (v PropertyValue) ArchiveValue() *Archive {
	a, _ := v.ref.(*Archive)
	return a
}

// ResourceReferenceValue returns the reference v holds (the zero reference
// if v is not one).
func (v PropertyValue) ResourceReferenceValue() ResourceReference {
	if r, ok := v.ref.(*ResourceReference); ok {
		return *r
	}
	return ResourceReference{}
}

// SecretElement returns the value a secret wraps (null if v is not a
// secret).
func (v PropertyValue) SecretElement() PropertyValue {
	if p, ok := v.ref.(*PropertyValue); ok {
		return *p
	}
	return PropertyValue{}
}

// OutputValue returns the output v holds (the zero output if v is not one).
func (v PropertyValue) OutputValue() Output {
	if o, ok := v.ref.(*Output); ok {
		return *o
	}
	return Output{}
}

// ContainsUnknowns reports whether v is or holds an unknown value anywhere.
func (v PropertyValue) ContainsUnknowns() bool {
	switch v.Kind() {
	case KindUnknown:
		return true
	case KindArray:
		for _, e := range v.ArrayValue() {
			if e.ContainsUnknowns() {
				return true
			}
		}
	case KindObject:
		return v.ObjectValue().ContainsUnknowns()
	case KindSecret:
		return v.SecretElement().ContainsUnknowns()
	case KindOutput:
		o := v.ref.(*Output)
		return !o.Known || o.Element.ContainsUnknowns()
	case KindResourceReference:
		return v.ref.(*ResourceReference).IDUnknown
	}
	return false
}

// ContainsSecrets reports whether v is or holds a secret anywhere (including
// outputs marked secret).
func (v PropertyValue) ContainsSecrets() bool {
	switch v.Kind() {
	case KindSecret:
		return true
	case KindArray:
		for _, e := range v.ArrayValue() {
			if e.ContainsSecrets() {
				return true
			}
		}
	case KindObject:
		return v.ObjectValue().ContainsSecrets()
	case KindOutput:
		o := v.ref.(*Output)
		return o.Secret || o.Element.ContainsSecrets()
	}
	return false
}

// ContainsUnknowns reports whether any value in m holds an unknown.
func (m PropertyMap) ContainsUnknowns() bool {
	for _, v := range m {
		if v.ContainsUnknowns() {
			return true
		}
	}
	return false
}

// ContainsSecrets reports whether any value in m holds a secret.
func (m PropertyMap) ContainsSecrets() bool {
	for _, v := range m {
		if v.ContainsSecrets() {
			return true
		}
	}
	return false
}

// DeepEquals reports whether v and other are the same value, recursively.
// Unknown equals only unknown; a secret equals only a secret of an equal
// value; assets and archives compare by their hashes when both have one.
func (v PropertyValue) DeepEquals(other PropertyValue) bool {
	// One type test of each side decides the kinds (see Kind).
	if _, ok := v.ref.(stringTag); ok {
		_, ok := other.ref.(stringTag)
		return ok && v.str == other.str
	}
	switch a := v.ref.(type) {
	case numberTag:
		_, ok := other.ref.(numberTag)
		return ok && (v.num == other.num || (math.IsNaN(v.num) && math.IsNaN(other.num)))
	case boolTag:
		_, ok := other.ref.(boolTag)
		return ok && v.num == other.num
	case unknownTag:
		_, ok := other.ref.(unknownTag)
		return ok
	case nil:
		return other.ref == nil
	case PropertyMap:
		b, ok := other.ref.(PropertyMap)
		return ok && a.DeepEquals(b)
	case []PropertyValue:
		b, ok := other.ref.([]PropertyValue)
		return ok && slices.EqualFunc(a, b, PropertyValue.DeepEquals)
	case *PropertyValue:
		b, ok := other.ref.(*PropertyValue)
		return ok && a.DeepEquals(*b)
	case *Asset:
		b, ok := other.ref.(*Asset)
		return ok && a.Equals(b)
	case *Archive:
		b, ok := other.ref.(*Archive)
		return ok && a.Equals(b)
	case *ResourceReference:
		b, ok := other.ref.(*ResourceReference)
		return ok && *a == *b
	case *Output:
		b, ok := other.ref.(*Output)
		return ok && a.Known == b.Known && a.Secret == b.Secret &&
			a.Element.DeepEquals(b.Element) && slices.Equal(a.Dependencies, b.Dependencies)
	}
	return false
}

// Equal is DeepEquals; it lets go-cmp compare property values.
func (v PropertyValue) Equal(other PropertyValue) bool { return v.DeepEquals(other) }

// DeepEquals reports whether m and other hold the same keys with deeply equal
// values. A map equals itself at once: carried-over records (an unchanged
// resource's outputs) share their maps.
func (m PropertyMap) DeepEquals(other PropertyMap) bool {
	if len(m) != len(other) {
		return false
	}
	if len(m) == 0 || sameMap(m, other) {
		return true
	}
	for k, v := range m {
		w, ok := other[k]
		if !ok || !v.DeepEquals(w) {
			return false
		}
	}
	return true
}

// sameMap reports whether a and b are one map.
func sameMap(a, b PropertyMap) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// Copy returns a shallow copy of m.
func (m PropertyMap) Copy() PropertyMap {
	if m == nil {
		return nil
	}
	out := make(PropertyMap, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// StableKeys returns m's keys in sorted order.
func (m PropertyMap) StableKeys() []PropertyKey {
	keys := make([]PropertyKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Unwrap strips secrets and known outputs, returning the plain value inside
// (recursively). An unknown output becomes unknown.
func (v PropertyValue) Unwrap() PropertyValue {
	switch v.Kind() {
	case KindSecret:
		return v.SecretElement().Unwrap()
	case KindOutput:
		o := v.ref.(*Output)
		if !o.Known {
			return NewUnknown()
		}
		return o.Element.Unwrap()
	case KindArray:
		a := v.ArrayValue()
		out := make([]PropertyValue, len(a))
		for i, e := range a {
			out[i] = e.Unwrap()
		}
		return NewArray(out...)
	case KindObject:
		return NewObject(v.ObjectValue().Unwrap())
	}
	return v
}

// Unwrap returns a copy of m with secrets and outputs stripped.
func (m PropertyMap) Unwrap() PropertyMap {
	out := make(PropertyMap, len(m))
	for k, v := range m {
		out[k] = v.Unwrap()
	}
	return out
}
