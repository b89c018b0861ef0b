package resource

import "fmt"

// MaxDepth bounds how deeply property values nest: an array element, an
// object member, a secret's or an output's element, and an archive inside
// an archive each go one level down, and a top-level property is at level
// 1. Only values that hold others or are not plain JSON (arrays, objects,
// secrets, outputs, assets, archives, references, unknowns) count: a
// string, number, bool or null one level below MaxDepth is fine. A value nested deeper could be
// written but not read back (the state's reader bounds nesting, as
// encoding/json does, so that hostile input cannot exhaust the stack: a
// level can take two of its own), so the engine refuses it at
// registration and the state's writer refuses to write it.
const MaxDepth = 1000

// DepthError reports a value nested deeper than MaxDepth.
type DepthError struct {
	// Key is the property that holds the value.
	Key PropertyKey
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("property %q nests deeper than %d levels, more than the state can record (or contains itself)", e.Key, MaxDepth)
}

// CheckDepth returns a *DepthError when a value of m nests deeper than
// MaxDepth. It stops at that depth, so a value that contains itself (a
// cycle) is reported, not followed forever.
func (m PropertyMap) CheckDepth() error {
	for k, v := range m {
		if tooDeep(v, 1) {
			return &DepthError{Key: k}
		}
	}
	return nil
}

// TooDeep reports whether v, as a top-level property (at level 1), nests
// deeper than MaxDepth.
func (v PropertyValue) TooDeep() bool { return tooDeep(v, 1) }

// tooDeep reports whether v, at depth, nests deeper than MaxDepth.
func tooDeep(v PropertyValue, depth int) bool {
	switch v.Kind() {
	case KindNull, KindBool, KindNumber, KindString:
		return false
	}
	if depth > MaxDepth {
		return true
	}
	switch v.Kind() {
	case KindArray:
		for _, e := range v.ArrayValue() {
			if tooDeep(e, depth+1) {
				return true
			}
		}
	case KindObject:
		for _, e := range v.ObjectValue() {
			if tooDeep(e, depth+1) {
				return true
			}
		}
	case KindSecret:
		return tooDeep(v.SecretElement(), depth+1)
	case KindOutput:
		return tooDeep(v.OutputValue().Element, depth+1)
	case KindArchive:
		return archiveTooDeep(v.ArchiveValue(), depth)
	}
	return false
}

func archiveTooDeep(a *Archive, depth int) bool {
	if depth > MaxDepth {
		return true
	}
	if a == nil {
		return false
	}
	for _, m := range a.Assets {
		if m.Archive != nil && archiveTooDeep(m.Archive, depth+1) {
			return true
		}
	}
	return false
}
