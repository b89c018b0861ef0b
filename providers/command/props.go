package command

import (
	"fmt"
	"strings"

	"github.com/groundwork-iac/groundwork/providers/internal/props"
	"github.com/groundwork-iac/groundwork/resource"
)

// reader is a props.Reader with the inputs particular to commands.
type reader struct{ *props.Reader }

// env reads an object of strings whose keys are environment variable
// names. It is unknown if any of its values is.
func (r reader) env(key string) props.Field[map[string]string] {
	v, set, unknown := r.Value(key)
	switch {
	case unknown:
		return props.Field[map[string]string]{Set: true, Unknown: true}
	case !set:
		return props.Field[map[string]string]{}
	case !v.IsObject():
		r.Fail(key, "must be an object of strings, not %s", v.Kind())
		return props.Field[map[string]string]{}
	}
	f := props.Field[map[string]string]{Value: map[string]string{}, Set: true}
	for name, ev := range v.ObjectValue() {
		path := resource.PropertyPath{resource.PathKey(key), resource.PathKey(string(name))}.String()
		switch {
		case name == "" || strings.ContainsAny(string(name), "=\x00"):
			r.Fail(path, "is not an environment variable name: it must be non-empty, without = or NUL")
		case ev.IsUnknown():
			f.Unknown = true
		case !ev.IsString():
			r.Fail(path, "must be a string, not %s", ev.Kind())
		case strings.ContainsRune(ev.StringValue(), 0):
			r.Fail(path, "must not contain a NUL character")
		default:
			f.Value[string(name)] = ev.StringValue()
		}
	}
	return f
}

// strs reads an array of strings. It is unknown if any of its elements is.
func (r reader) strs(key string) props.Field[[]string] {
	v, set, unknown := r.Value(key)
	switch {
	case unknown:
		return props.Field[[]string]{Set: true, Unknown: true}
	case !set:
		return props.Field[[]string]{}
	case !v.IsArray():
		r.Fail(key, "must be an array of strings, not %s", v.Kind())
		return props.Field[[]string]{}
	}
	f := props.Field[[]string]{Value: []string{}, Set: true}
	for i, ev := range v.ArrayValue() {
		switch ev = ev.Unwrap(); {
		case ev.IsUnknown():
			f.Unknown = true
		case !ev.IsString():
			r.Fail(fmt.Sprintf("%s[%d]", key, i), "must be a string, not %s", ev.Kind())
		default:
			f.Value = append(f.Value, ev.StringValue())
		}
	}
	return f
}
