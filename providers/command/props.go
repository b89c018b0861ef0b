package command

import (
	"fmt"
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

func (r *reader) str(key string, required bool) field[string] {
	v, set, unknown := r.value(key)
	switch {
	case unknown:
		return field[string]{set: true, unknown: true}
	case !set:
		if required {
			r.fail(key, "is required")
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
		r.out[resource.PropertyKey(key)] = resource.NewBool(def)
		return field[bool]{v: def}
	case !v.IsBool():
		r.fail(key, "must be a bool, not %s", v.Kind())
		return field[bool]{v: def}
	}
	return field[bool]{v: v.BoolValue(), set: true}
}

// env reads an object of strings whose keys are environment variable
// names. It is unknown if any of its values is.
func (r *reader) env(key string) field[map[string]string] {
	v, set, unknown := r.value(key)
	switch {
	case unknown:
		return field[map[string]string]{set: true, unknown: true}
	case !set:
		return field[map[string]string]{}
	case !v.IsObject():
		r.fail(key, "must be an object of strings, not %s", v.Kind())
		return field[map[string]string]{}
	}
	f := field[map[string]string]{v: map[string]string{}, set: true}
	for name, ev := range v.ObjectValue() {
		path := resource.PropertyPath{resource.PathKey(key), resource.PathKey(string(name))}.String()
		switch {
		case name == "" || strings.ContainsAny(string(name), "=\x00"):
			r.fail(path, "is not an environment variable name: it must be non-empty, without = or NUL")
		case ev.IsUnknown():
			f.unknown = true
		case !ev.IsString():
			r.fail(path, "must be a string, not %s", ev.Kind())
		case strings.ContainsRune(ev.StringValue(), 0):
			r.fail(path, "must not contain a NUL character")
		default:
			f.v[string(name)] = ev.StringValue()
		}
	}
	return f
}
