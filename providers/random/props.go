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
