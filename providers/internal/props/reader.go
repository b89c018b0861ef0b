package props

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// Field is one input as a Reader read it: its value when known, whether it
// was given at all (null counts as not given), and whether it is unknown, as
// inputs may be during a preview. An unknown field is also Set.
//
// A field left out but given a default holds the default in Value with Set
// false: the user did not give it.
type Field[T any] struct {
	Value   T
	Set     bool
	Unknown bool
}

// Reader reads typed inputs from a property map, collects what is wrong
// with them as check failures, and builds the checked inputs: the given
// ones plus the defaults of those left out.
//
// Every read looks through secrets and known outputs, so a secret string
// reads as a string; keeping the secretness in what a provider records is
// the provider's business (the checked inputs keep the given values as
// they were). A Reader is not safe for concurrent use.
type Reader struct {
	m        resource.PropertyMap
	out      resource.PropertyMap
	failures []providers.CheckFailure
	unknown  bool
}

// NewReader returns a Reader of m. It does not modify m.
func NewReader(m resource.PropertyMap) *Reader {
	out := m.Copy()
	if out == nil {
		out = resource.PropertyMap{}
	}
	return &Reader{m: m, out: out}
}

// Failures returns the check failures found so far, in the order found.
func (r *Reader) Failures() []providers.CheckFailure { return r.failures }

// Unknown reports whether any input read so far was unknown.
func (r *Reader) Unknown() bool { return r.unknown }

// Out returns the checked inputs: the given ones plus every default set.
// It is the Reader's own map, not a copy.
func (r *Reader) Out() resource.PropertyMap { return r.out }

// Fail records a check failure of prop, its reason formatted as by
// fmt.Sprintf.
func (r *Reader) Fail(prop, format string, args ...any) {
	r.failures = append(r.failures, providers.CheckFailure{Property: prop, Reason: fmt.Sprintf(format, args...)})
}

// Value returns key's value with secrets and known outputs peeled off.
// set is false when key is absent or null; an unknown value is set and
// unknown, and marks the Reader as having read an unknown.
func (r *Reader) Value(key string) (v resource.PropertyValue, set, unknown bool) {
	raw, ok := r.m[resource.PropertyKey(key)]
	if !ok {
		return v, false, false
	}
	v = raw.Unwrap()
	if v.IsUnknown() {
		r.unknown = true
		return v, true, true
	}
	return v, !v.IsNull(), false
}

// Only fails every key that is not one of keys, in the map's stable key
// order. Keys starting with "__" are reserved for the engine and SDKs and
// pass.
func (r *Reader) Only(keys ...string) {
	for _, k := range r.m.StableKeys() {
		if !slices.Contains(keys, string(k)) && !strings.HasPrefix(string(k), "__") {
			r.Fail(string(k), "unknown property; the valid ones are %s", strings.Join(keys, ", "))
		}
	}
}

// SetDefault records def as key's checked value.
func (r *Reader) SetDefault(key string, def resource.PropertyValue) {
	r.out[resource.PropertyKey(key)] = def
}

// Str reads an optional string.
func (r *Reader) Str(key string) Field[string] {
	f, _ := r.str(key)
	return f
}

// RequiredStr reads a string that must be given.
func (r *Reader) RequiredStr(key string) Field[string] {
	f, absent := r.str(key)
	if absent {
		r.Fail(key, "is required")
	}
	return f
}

// StrDefault reads a string that takes def when it is not given.
func (r *Reader) StrDefault(key, def string) Field[string] {
	f, absent := r.str(key)
	if absent {
		r.SetDefault(key, resource.NewString(def))
		f.Value = def
	}
	return f
}

// str reads a string, and reports whether it was absent (or null).
func (r *Reader) str(key string) (f Field[string], absent bool) {
	v, set, unknown := r.Value(key)
	switch {
	case unknown:
		return Field[string]{Set: true, Unknown: true}, false
	case !set:
		return Field[string]{}, true
	case !v.IsString():
		r.Fail(key, "must be a string, not %s", v.Kind())
		return Field[string]{}, false
	}
	return Field[string]{Value: v.StringValue(), Set: true}, false
}

// Bool reads a bool that takes def when it is not given, or when it is
// not a bool (after failing it).
func (r *Reader) Bool(key string, def bool) Field[bool] {
	v, set, unknown := r.Value(key)
	switch {
	case unknown:
		return Field[bool]{Set: true, Unknown: true}
	case !set:
		r.SetDefault(key, resource.NewBool(def))
		return Field[bool]{Value: def}
	case !v.IsBool():
		r.Fail(key, "must be a bool, not %s", v.Kind())
		return Field[bool]{Value: def}
	}
	return Field[bool]{Value: v.BoolValue(), Set: true}
}

// RequiredInt reads a whole number in [lo, hi] that must be given.
func (r *Reader) RequiredInt(key string, lo, hi int64) Field[int64] {
	return r.integer(key, lo, hi, true, 0)
}

// IntDefault reads a whole number in [lo, hi] that takes def when it is
// not given. def is not checked against the range.
func (r *Reader) IntDefault(key string, lo, hi, def int64) Field[int64] {
	return r.integer(key, lo, hi, false, def)
}

func (r *Reader) integer(key string, lo, hi int64, required bool, def int64) Field[int64] {
	v, set, unknown := r.Value(key)
	switch {
	case unknown:
		return Field[int64]{Set: true, Unknown: true}
	case !set && required:
		r.Fail(key, "is required")
		return Field[int64]{}
	case !set:
		r.SetDefault(key, resource.NewNumber(float64(def)))
		return Field[int64]{Value: def}
	case !v.IsNumber():
		r.Fail(key, "must be a number, not %s", v.Kind())
		return Field[int64]{}
	}
	n := v.NumberValue()
	if n != math.Trunc(n) || n < float64(lo) || n > float64(hi) {
		r.Fail(key, "must be a whole number from %d to %d, not %v", lo, hi, n)
		return Field[int64]{}
	}
	return Field[int64]{Value: int64(n), Set: true}
}

// Asset reads an optional asset.
func (r *Reader) Asset(key string) Field[*resource.Asset] {
	v, set, unknown := r.Value(key)
	switch {
	case unknown:
		return Field[*resource.Asset]{Set: true, Unknown: true}
	case !set:
		return Field[*resource.Asset]{}
	case !v.IsAsset():
		r.Fail(key, "must be an asset, not %s", v.Kind())
		return Field[*resource.Asset]{}
	}
	return Field[*resource.Asset]{Value: v.AssetValue(), Set: true}
}
