package random

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// field is one input as a parser read it: its value when known, whether it
// was given at all (null counts as not given), and whether it is unknown, as
// inputs may be during a preview.
type field[T any] struct {
	v       T
	set     bool
	unknown bool
}

// reader reads typed inputs from a property map, collects what is wrong
// with them as check failures, and builds the checked inputs: the given
// ones plus the defaults of those left out.
type reader struct {
	m        resource.PropertyMap
	out      resource.PropertyMap
	failures []providers.CheckFailure
	// unknown is set once any input read is unknown.
	unknown bool
}

func newReader(m resource.PropertyMap) *reader {
	out := m.Copy()
	if out == nil {
		out = resource.PropertyMap{}
	}
	return &reader{m: m, out: out}
}

func (r *reader) fail(prop, format string, args ...any) {
	r.failures = append(r.failures, providers.CheckFailure{Property: prop, Reason: fmt.Sprintf(format, args...)})
}

// value returns key's value with secrets and known outputs peeled off.
func (r *reader) value(key string) (v resource.PropertyValue, set, unknown bool) {
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

// only fails every key that is not one of keys. Keys starting with "__" are
// reserved for the engine and SDKs and pass.
func (r *reader) only(keys ...string) {
	for _, k := range r.m.StableKeys() {
		if !slices.Contains(keys, string(k)) && !strings.HasPrefix(string(k), "__") {
			r.fail(string(k), "unknown property; the valid ones are %s", strings.Join(keys, ", "))
		}
	}
}

// setDefault records def as key's checked value when key is not given.
func (r *reader) setDefault(key string, def resource.PropertyValue) {
	r.out[resource.PropertyKey(key)] = def
}

func (r *reader) str(key string, def *string) field[string] {
	v, set, unknown := r.value(key)
	switch {
	case unknown:
		return field[string]{set: true, unknown: true}
	case !set:
		if def != nil {
			r.setDefault(key, resource.NewString(*def))
			return field[string]{v: *def}
		}
		return field[string]{}
	case !v.IsString():
		r.fail(key, "must be a string, not %s", v.Kind())
		return field[string]{}
	}
	return field[string]{v: v.StringValue(), set: true}
}

func (r *reader) boolean(key string, def bool) field[bool] {
	v, set, unknown := r.value(key)
	switch {
	case unknown:
		return field[bool]{set: true, unknown: true}
	case !set:
		r.setDefault(key, resource.NewBool(def))
		return field[bool]{v: def}
	case !v.IsBool():
		r.fail(key, "must be a bool, not %s", v.Kind())
		return field[bool]{v: def}
	}
	return field[bool]{v: v.BoolValue(), set: true}
}

// integer reads a whole number in [lo, hi]. A missing key fails when
// required, and otherwise takes def.
func (r *reader) integer(key string, lo, hi int64, required bool, def int64) field[int64] {
	v, set, unknown := r.value(key)
	switch {
	case unknown:
		return field[int64]{set: true, unknown: true}
	case !set && required:
		r.fail(key, "is required")
		return field[int64]{}
	case !set:
		r.setDefault(key, resource.NewNumber(float64(def)))
		return field[int64]{v: def}
	case !v.IsNumber():
		r.fail(key, "must be a number, not %s", v.Kind())
		return field[int64]{}
	}
	n := v.NumberValue()
	if n != math.Trunc(n) || n < float64(lo) || n > float64(hi) {
		r.fail(key, "must be a whole number from %d to %d, not %v", lo, hi, n)
		return field[int64]{}
	}
	return field[int64]{v: int64(n), set: true}
}

// keepers checks that keepers, if given, is an object. Its values may be
// anything: they only matter by changing.
func (r *reader) keepers() {
	v, set, unknown := r.value("keepers")
	if set && !unknown && !v.IsObject() {
		r.fail("keepers", "must be an object, not %s", v.Kind())
	}
}
