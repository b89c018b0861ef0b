package random

import (
	"github.com/groundwork-iac/groundwork/providers/internal/props"
	"github.com/groundwork-iac/groundwork/resource"
)

// reader is a props.Reader with the inputs particular to random values.
type reader struct{ *props.Reader }

func newReader(m resource.PropertyMap) *reader {
	return &reader{props.NewReader(m)}
}

// keepers checks that keepers, if given, is an object. Its values may be
// anything: they only matter by changing.
func (r *reader) keepers() {
	v, set, unknown := r.Value("keepers")
	if set && !unknown && !v.IsObject() {
		r.Fail("keepers", "must be an object, not %s", v.Kind())
	}
}

// optionalInt reads a whole number in [lo, hi] that has no default: left
// out, it stays out of the outputs too.
func (r *reader) optionalInt(key string, lo, hi int64) props.Field[int64] {
	if _, set, _ := r.Value(key); !set {
		return props.Field[int64]{}
	}
	return r.RequiredInt(key, lo, hi)
}

// strings reads a list of strings that must be given. An unknown list, or
// one with unknown elements, is Unknown.
func (r *reader) strings(key string) (list []string, unknown bool) {
	v, set, unknown := r.Value(key)
	switch {
	case unknown:
		return nil, true
	case !set:
		r.Fail(key, "is required")
		return nil, false
	case !v.IsArray():
		r.Fail(key, "must be a list of strings, not %s", v.Kind())
		return nil, false
	}
	for i, e := range v.ArrayValue() {
		e = e.Unwrap()
		switch {
		case e.IsUnknown():
			unknown = true
		case !e.IsString():
			r.Fail(key, "must be a list of strings, but element %d is %s", i, e.Kind())
		default:
			list = append(list, e.StringValue())
		}
	}
	return list, unknown
}
