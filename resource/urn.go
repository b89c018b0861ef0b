package resource

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// URN is a resource's uniform resource name: the stable, unique identity of a
// resource within a stack. Its grammar is
//
//	urn:pulumi:<stack>::<project>::<qualified type>::<name>
//
// where the qualified type is "[parentType$]type", a type is
// "package:[module:]typeName" for custom resources and any text without
// "::" or "$" for components (see CheckComponentType), and stack, project
// and name are any text that does not contain "::". A URN is built from a resource's type, name and
// parent; it never changes while the resource keeps those.
type URN string

// ID is the provider-assigned identifier of a physical resource. It is opaque
// to the engine; the empty ID means "not yet created" (or unknown in a
// preview).
type ID string

// String returns the ID as a plain string.
func (id ID) String() string { return string(id) }

const (
	urnPrefix    = "urn:pulumi:"
	urnDelimiter = "::"
	typeDelim    = "$"
)

// RootStackType is the type of the root resource of every stack; stack
// outputs are recorded on it.
const RootStackType = "pulumi:pulumi:Stack"

// URNError reports a malformed URN: which part is wrong and why.
type URNError struct {
	URN    string // the input as given
	Part   string // "prefix", "stack", "project", "type", "name"
	Reason string
}

// Error describes the problem and where it is.
func (e *URNError) Error() string {
	return fmt.Sprintf("invalid URN %q: %s: %s", e.URN, e.Part, e.Reason)
}

// NewURN builds a URN from its parts. parentType is the qualified type of the
// parent resource ("" for none); for resources whose parent is the root stack
// resource callers conventionally pass "" so that the URN does not carry the
// stack type. NewURN does not validate; use ParseURN or IsValid for that.
func NewURN(stack, project, parentType, typ, name string) URN {
	qualified := typ
	if parentType != "" && parentType != RootStackType {
		qualified = parentType + typeDelim + typ
	}
	var b strings.Builder
	b.Grow(len(urnPrefix) + len(stack) + len(project) + len(qualified) + len(name) + 6)
	b.WriteString(urnPrefix)
	b.WriteString(stack)
	b.WriteString(urnDelimiter)
	b.WriteString(project)
	b.WriteString(urnDelimiter)
	b.WriteString(qualified)
	b.WriteString(urnDelimiter)
	b.WriteString(name)
	return URN(b.String())
}

// ParseURN checks s against the full URN grammar and returns it as a URN.
// The error is a *URNError naming the part that is wrong.
func ParseURN(s string) (URN, error) {
	if !utf8.ValidString(s) {
		return "", &URNError{URN: s, Part: "prefix", Reason: "not valid UTF-8"}
	}
	if !strings.HasPrefix(s, urnPrefix) {
		return "", &URNError{URN: s, Part: "prefix", Reason: `must begin with "urn:pulumi:"`}
	}
	// Cut the parts in place: the engine parses a URN for every provider
	// reference it resolves, so this path allocates nothing.
	var parts [4]string
	rest, n := s[len(urnPrefix):], 0
	for ; n < 3; n++ {
		i := strings.Index(rest, urnDelimiter)
		if i < 0 {
			break
		}
		parts[n], rest = rest[:i], rest[i+len(urnDelimiter):]
	}
	if n < 3 {
		return "", &URNError{URN: s, Part: "structure", Reason: fmt.Sprintf(`want 4 parts (stack, project, type, name) separated by "::", found %d`, n+1)}
	}
	if strings.Contains(rest, urnDelimiter) {
		return "", &URNError{URN: s, Part: "name", Reason: `must not contain "::"`}
	}
	stack, project, qualified, name := parts[0], parts[1], parts[2], rest
	if stack == "" {
		return "", &URNError{URN: s, Part: "stack", Reason: "is empty"}
	}
	if project == "" {
		return "", &URNError{URN: s, Part: "project", Reason: "is empty"}
	}
	// A ":" next to a "::" separator would make the split ambiguous.
	if strings.HasSuffix(stack, ":") {
		return "", &URNError{URN: s, Part: "stack", Reason: `must not end with ":"`}
	}
	if strings.HasPrefix(project, ":") || strings.HasSuffix(project, ":") {
		return "", &URNError{URN: s, Part: "project", Reason: `must not begin or end with ":"`}
	}
	if strings.HasPrefix(name, ":") {
		return "", &URNError{URN: s, Part: "name", Reason: `must not begin with ":"`}
	}
	if name == "" {
		return "", &URNError{URN: s, Part: "name", Reason: "is empty"}
	}
	for q := qualified; ; {
		typ, more, found := strings.Cut(q, typeDelim)
		if err := checkComponentType(typ); err != nil {
			part := "type"
			if found {
				part = "parent type"
			}
			return "", &URNError{URN: s, Part: part, Reason: fmt.Sprintf("%q: %v", typ, err)}
		}
		if !found {
			break
		}
		q = more
	}
	return URN(s), nil
}

// CheckType reports whether typ is a well-formed resource type token,
// "package:[module:]typeName".
func CheckType(typ string) error { return checkType(typ) }

// CheckComponentType reports whether typ can be the type of a component
// resource. The SDKs accept any text there ("component", "my component",
// as well as "package:module:Type"), and so does the engine, except what
// would make the URN ambiguous: an empty type, one that holds "::" (the
// URN's separator) or "$" (the separator of parent types), or one that
// begins or ends with ":". Custom resources, providers and remote
// components need a type token (CheckType), since their package is read
// from it.
func CheckComponentType(typ string) error { return checkComponentType(typ) }

func checkComponentType(typ string) error {
	switch {
	case typ == "":
		return fmt.Errorf("is empty")
	case strings.Contains(typ, urnDelimiter):
		return fmt.Errorf("must not contain %q", urnDelimiter)
	case strings.Contains(typ, typeDelim):
		return fmt.Errorf("must not contain %q", typeDelim)
	case strings.HasPrefix(typ, ":") || strings.HasSuffix(typ, ":"):
		return fmt.Errorf(`must not begin or end with ":"`)
	}
	return nil
}

func checkType(typ string) error {
	if typ == "" {
		return fmt.Errorf("is empty")
	}
	pkg, rest, _ := strings.Cut(typ, ":")
	module, name, three := strings.Cut(rest, ":")
	if n := strings.Count(typ, ":") + 1; n != 2 && n != 3 {
		return fmt.Errorf(`want "package:[module:]typeName", found %d ":"-separated parts`, n)
	}
	if !three {
		module, name = "", rest
	}
	if err := checkIdent(pkg, false); err != nil {
		return fmt.Errorf("package %v", err)
	}
	if three {
		if err := checkIdent(module, true); err != nil {
			return fmt.Errorf("module %v", err)
		}
	}
	if err := checkIdent(name, false); err != nil {
		return fmt.Errorf("type name %v", err)
	}
	return nil
}

// checkIdent accepts identifiers as real-world providers spell them: a letter
// or underscore first, then letters, digits, "_", "-" and "."; module names
// may also contain "/" (e.g. "s3/bucket", "apps/v1").
func checkIdent(s string, module bool) error {
	if s == "" {
		return fmt.Errorf("is empty")
	}
	for i, r := range s {
		switch {
		case unicode.IsLetter(r) || r == '_':
		case i > 0 && (unicode.IsDigit(r) || r == '-' || r == '.'):
		case module && r == '/' && i > 0:
		case module && i == 0 && unicode.IsDigit(r):
		default:
			return fmt.Errorf("%q: character %q at byte %d is not allowed", s, r, i)
		}
	}
	return nil
}

// IsValid reports whether the URN satisfies the grammar.
func (u URN) IsValid() bool {
	_, err := ParseURN(string(u))
	return err == nil
}

// String returns the URN as a plain string.
func (u URN) String() string { return string(u) }

// parts splits a URN into stack, project, qualified type and name. It is
// lenient: a malformed URN yields empty strings for the parts it lacks.
func (u URN) parts() (stack, project, qualified, name string) {
	s := string(u)
	if !strings.HasPrefix(s, urnPrefix) {
		return "", "", "", ""
	}
	s = s[len(urnPrefix):]
	out := [4]string{}
	for i := 0; i < 3; i++ {
		j := strings.Index(s, urnDelimiter)
		if j < 0 {
			out[i] = s
			return out[0], out[1], out[2], out[3]
		}
		out[i], s = s[:j], s[j+len(urnDelimiter):]
	}
	out[3] = s
	return out[0], out[1], out[2], out[3]
}

// Stack returns the stack part of the URN.
func (u URN) Stack() string { s, _, _, _ := u.parts(); return s }

// Project returns the project part of the URN.
func (u URN) Project() string { _, p, _, _ := u.parts(); return p }

// QualifiedType returns "[parentType$]type".
func (u URN) QualifiedType() string { _, _, q, _ := u.parts(); return q }

// Type returns the resource's own type: the last "$"-separated element of
// the qualified type.
func (u URN) Type() string {
	q := u.QualifiedType()
	if i := strings.LastIndex(q, typeDelim); i >= 0 {
		return q[i+1:]
	}
	return q
}

// ParentType returns the qualified type of the parent ("" if the URN carries
// none).
func (u URN) ParentType() string {
	q := u.QualifiedType()
	if i := strings.LastIndex(q, typeDelim); i >= 0 {
		return q[:i]
	}
	return ""
}

// Name returns the resource's name.
func (u URN) Name() string { _, _, _, n := u.parts(); return n }

// Rename returns the URN with a different name.
func (u URN) Rename(name string) URN {
	s, p, q, _ := u.parts()
	return URN(urnPrefix + s + urnDelimiter + p + urnDelimiter + q + urnDelimiter + name)
}

// RenameStack returns the URN in a different stack.
func (u URN) RenameStack(stack string) URN {
	_, p, q, n := u.parts()
	return URN(urnPrefix + stack + urnDelimiter + p + urnDelimiter + q + urnDelimiter + n)
}

// RenameProject returns the URN in a different project.
func (u URN) RenameProject(project string) URN {
	s, _, q, n := u.parts()
	return URN(urnPrefix + s + urnDelimiter + project + urnDelimiter + q + urnDelimiter + n)
}

// Retype returns the URN with a different own type; the parent type is
// kept exactly as it is.
func (u URN) Retype(typ string) URN {
	s, p, _, n := u.parts()
	q := typ
	if parent := u.ParentType(); parent != "" {
		q = parent + typeDelim + typ
	}
	return URN(urnPrefix + s + urnDelimiter + p + urnDelimiter + q + urnDelimiter + n)
}

// Reparent returns the URN with a different parent qualified type ("" for
// none).
func (u URN) Reparent(parentType string) URN {
	s, p, _, n := u.parts()
	return NewURN(s, p, parentType, u.Type(), n)
}

// Package returns the package of the URN's own type ("aws" for
// "aws:s3/bucket:Bucket").
func (u URN) Package() string { return TypePackage(u.Type()) }

// TypePackage returns the package part of a type token.
func TypePackage(typ string) string {
	if i := strings.IndexByte(typ, ':'); i >= 0 {
		return typ[:i]
	}
	return typ
}
