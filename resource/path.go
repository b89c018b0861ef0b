package resource

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// PathElement is one step of a PropertyPath: an object key, an array index,
// or a wildcard that stands for any key or index. Build elements with
// PathKey, PathIndex and PathWildcard rather than by hand.
type PathElement struct {
	// Key is the object key when the element is neither an index nor a
	// wildcard.
	Key string
	// Index is the array index when IsIndex is set and IsWildcard is not.
	Index int
	// IsIndex marks an array step. With IsWildcard it records that the
	// wildcard was written "[*]" rather than ".*".
	IsIndex bool
	// IsWildcard marks a step that matches any key or index.
	IsWildcard bool
}

// PathKey returns the element for object key k.
func PathKey(k string) PathElement { return PathElement{Key: k} }

// PathIndex returns the element for array index i.
func PathIndex(i int) PathElement { return PathElement{Index: i, IsIndex: true} }

// PathWildcard returns a wildcard element, written "[*]".
func PathWildcard() PathElement { return PathElement{IsIndex: true, IsWildcard: true} }

// matches reports whether e, which may be a wildcard, matches other.
// A wildcard in e matches anything; a wildcard in other is matched only by
// a wildcard in e.
func (e PathElement) matches(other PathElement) bool {
	switch {
	case e.IsWildcard:
		return true
	case other.IsWildcard:
		return false
	case e.IsIndex:
		return other.IsIndex && e.Index == other.Index
	default:
		return !other.IsIndex && e.Key == other.Key
	}
}

// PropertyPath addresses a value nested inside a property value: a sequence
// of object keys and array indices, such as
//
//	spec.containers[0].image
//	metadata.labels["app.kubernetes.io/name"]
//	tags.*
//	["key with.dot"][*]
//
// Unquoted keys are runs of any characters except '.', '[', ']', '"' and
// white space; other keys are written in brackets as Go double-quoted
// string literals. Indices are non-negative decimal integers in brackets.
// "*" (after a dot or at the start) and "[*]" are wildcards.
//
// Paths look through secrets: a step into a secret steps into the value
// it wraps, and what Get finds beneath a secret comes back wrapped as a
// secret again, so secretness is never lost by addressing into a value.
type PropertyPath []PathElement

// PathError reports a malformed property path: the input, the byte offset
// of the problem and what is wrong there.
type PathError struct {
	Path   string
	Offset int
	Reason string
}

// Error describes the problem and where it is.
func (e *PathError) Error() string {
	return fmt.Sprintf("invalid property path %q at byte %d: %s", e.Path, e.Offset, e.Reason)
}

// ParsePropertyPath parses the textual form of a property path (see
// PropertyPath). The error is a *PathError.
func ParsePropertyPath(s string) (PropertyPath, error) {
	p := pathParser{s: s}
	return p.parse()
}

type pathParser struct {
	s   string
	pos int
}

func (p *pathParser) fail(at int, format string, args ...any) error {
	return &PathError{Path: p.s, Offset: at, Reason: fmt.Sprintf(format, args...)}
}

func (p *pathParser) parse() (PropertyPath, error) {
	if p.s == "" {
		return nil, p.fail(0, "path is empty")
	}
	var out PropertyPath
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		switch {
		case c == '[':
			e, err := p.bracket()
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		case c == '.' && len(out) > 0:
			p.pos++
			if p.pos == len(p.s) {
				return nil, p.fail(p.pos, "expected a key after '.'")
			}
			e, err := p.bare()
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		case len(out) == 0:
			e, err := p.bare()
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		default:
			return nil, p.fail(p.pos, "expected '.' or '[', found %q", p.runeAt(p.pos))
		}
	}
	return out, nil
}

func (p *pathParser) runeAt(i int) rune {
	r, _ := utf8.DecodeRuneInString(p.s[i:])
	return r
}

// bare parses an unquoted key or "*" at p.pos.
func (p *pathParser) bare() (PathElement, error) {
	start := p.pos
	for p.pos < len(p.s) {
		r, size := utf8.DecodeRuneInString(p.s[p.pos:])
		if r == '.' || r == '[' {
			break
		}
		if !isBareKeyRune(r) || (r == utf8.RuneError && size == 1) {
			if p.pos == start {
				return PathElement{}, p.fail(p.pos, "expected a key, found %q (quote such keys: [\"...\"])", r)
			}
			return PathElement{}, p.fail(p.pos, "character %q is not allowed in an unquoted key (quote such keys: [\"...\"])", r)
		}
		p.pos += size
	}
	key := p.s[start:p.pos]
	if key == "" {
		return PathElement{}, p.fail(start, "expected a key, found %q", p.runeAt(start))
	}
	if key == "*" {
		return PathElement{IsWildcard: true}, nil
	}
	return PathKey(key), nil
}

// isBareKeyRune reports whether r may appear in an unquoted key.
func isBareKeyRune(r rune) bool {
	switch r {
	case '.', '[', ']', '"':
		return false
	}
	return !unicode.IsSpace(r) && !unicode.IsControl(r)
}

// bracket parses "[n]", "[*]" or "[\"key\"]" at p.pos.
func (p *pathParser) bracket() (PathElement, error) {
	open := p.pos
	p.pos++ // '['
	if p.pos == len(p.s) {
		return PathElement{}, p.fail(p.pos, "unterminated '[' opened at byte %d", open)
	}
	var e PathElement
	switch c := p.s[p.pos]; {
	case c == '*':
		p.pos++
		e = PathWildcard()
	case c == '"':
		key, err := p.quoted()
		if err != nil {
			return PathElement{}, err
		}
		e = PathKey(key)
	case c >= '0' && c <= '9':
		start := p.pos
		for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
			p.pos++
		}
		n, err := strconv.Atoi(p.s[start:p.pos])
		if err != nil {
			return PathElement{}, p.fail(start, "index %s is out of range", p.s[start:p.pos])
		}
		e = PathIndex(n)
	default:
		return PathElement{}, p.fail(p.pos, "expected an index, '*' or a quoted key after '[', found %q", p.runeAt(p.pos))
	}
	if p.pos == len(p.s) {
		return PathElement{}, p.fail(p.pos, "unterminated '[' opened at byte %d", open)
	}
	if p.s[p.pos] != ']' {
		return PathElement{}, p.fail(p.pos, "expected ']', found %q", p.runeAt(p.pos))
	}
	p.pos++
	return e, nil
}

// quoted parses a Go double-quoted string literal at p.pos.
func (p *pathParser) quoted() (string, error) {
	start := p.pos
	i := start + 1
	for i < len(p.s) && p.s[i] != '"' {
		if p.s[i] == '\\' {
			i++
		}
		i++
	}
	if i >= len(p.s) {
		return "", p.fail(start, "unterminated quoted key")
	}
	key, err := strconv.Unquote(p.s[start : i+1])
	if err != nil {
		return "", p.fail(start, "malformed quoted key %s: want a Go string literal", p.s[start:i+1])
	}
	p.pos = i + 1
	return key, nil
}

// String renders the path in the syntax ParsePropertyPath reads; parsing
// the result gives back an equal path. Keys that are not simple
// identifiers (letters, digits, '_', '-' and '$', not starting with a
// digit) are written quoted, as are keys that read as wildcards. The empty
// path renders as "".
func (p PropertyPath) String() string {
	var b strings.Builder
	for i, e := range p {
		e.write(&b, i == 0)
	}
	return b.String()
}

// String renders the element as it appears inside a path.
func (e PathElement) String() string {
	var b strings.Builder
	e.write(&b, true)
	return b.String()
}

func (e PathElement) write(b *strings.Builder, first bool) {
	switch {
	case e.IsWildcard && e.IsIndex:
		b.WriteString("[*]")
	case e.IsWildcard:
		if !first {
			b.WriteByte('.')
		}
		b.WriteByte('*')
	case e.IsIndex:
		b.WriteByte('[')
		b.WriteString(strconv.Itoa(e.Index))
		b.WriteByte(']')
	case isSimpleKey(e.Key):
		if !first {
			b.WriteByte('.')
		}
		b.WriteString(e.Key)
	default:
		b.WriteString("[")
		b.WriteString(strconv.Quote(e.Key))
		b.WriteString("]")
	}
}

func isSimpleKey(k string) bool {
	if k == "" {
		return false
	}
	for i, r := range k {
		switch {
		case unicode.IsLetter(r) || r == '_' || r == '$':
		case i > 0 && (unicode.IsDigit(r) || r == '-'):
		default:
			return false
		}
	}
	return true
}

// Append returns a new path with elems added after p's elements; p itself
// is not changed.
func (p PropertyPath) Append(elems ...PathElement) PropertyPath {
	out := make(PropertyPath, 0, len(p)+len(elems))
	out = append(out, p...)
	return append(out, elems...)
}

// Contains reports whether other is p or lies beneath p: p is no longer
// than other and each of p's elements matches the corresponding element of
// other. A wildcard in p matches any key or index; a wildcard in other is
// matched only by a wildcard in p.
func (p PropertyPath) Contains(other PropertyPath) bool {
	if len(p) > len(other) {
		return false
	}
	for i, e := range p {
		if !e.matches(other[i]) {
			return false
		}
	}
	return true
}

// HasWildcards reports whether any element of p is a wildcard.
func (p PropertyPath) HasWildcards() bool {
	for _, e := range p {
		if e.IsWildcard {
			return true
		}
	}
	return false
}
