package format

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// maxValueDepth bounds nesting in what is read, so that hostile input
// cannot exhaust the stack. encoding/json uses the same bound.
const maxValueDepth = 10000

// decoder is a small hand-written JSON reader for the state formats: one
// pass over the text, no intermediate tree, no reflection, and an error —
// never a panic — for any malformed input.
//
// It reads a string, so that a string value without escapes is a
// substring of the input: a snapshot's strings then cost no allocation and
// no copy, and share the text of the file (one copy of it, made when it is
// read). A decoder that must not keep its input alive (a journal's, whose
// entries outlive it only in part) copies what it keeps instead, interning
// the names that repeat (URNs, types, property keys), so that a replay
// holds each of them once.
type decoder struct {
	data  string
	pos   int
	mgr   secrets.Manager // nil when the store has no secrets provider
	share bool            // strings may share data, which the result keeps alive
	scope *decodeScope    // shared with sub-decoders
	// inputs is the encoding of the last resource's inputs, and inputsOf
	// that resource (see sameAsInputs).
	inputs   string
	inputsOf *resource.State
}

// decodeScope is what a decoder shares with the sub-decoders it starts.
type decodeScope struct {
	names map[string]string // interned strings (unused when sharing)
	// unknowns is set once an unknown value (or an unknown output, or a
	// reference whose ID is unknown) has been read.
	unknowns bool
	// The last time read, as text and parsed: records written together
	// carry the same times.
	timeText string
	time     time.Time
	minute   lastMinute // the minute of the last time parsed in full
}

// newDecoder returns a decoder that copies what it keeps.
func newDecoder(data string, mgr secrets.Manager) *decoder {
	return &decoder{data: data, mgr: mgr, scope: &decodeScope{names: make(map[string]string)}}
}

// newSharingDecoder returns a decoder whose strings share data.
func newSharingDecoder(data string, mgr secrets.Manager) *decoder {
	return &decoder{data: data, mgr: mgr, share: true, scope: &decodeScope{}}
}

// sub returns a decoder for other text that shares d's manager and scope.
func (d *decoder) sub(data string) *decoder {
	return &decoder{data: data, mgr: d.mgr, share: d.share, scope: d.scope}
}

// syntaxError reports malformed JSON.
type syntaxError struct {
	offset int
	msg    string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("at byte %d: %s", e.offset, e.msg) }

func (d *decoder) fail(format string, args ...any) error {
	return &syntaxError{offset: d.pos, msg: fmt.Sprintf(format, args...)}
}

func (d *decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek returns the next byte that is not white space (0 at the end).
func (d *decoder) peek() byte {
	d.space()
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

func (d *decoder) consume(c byte) bool {
	if d.pos < len(d.data) && d.data[d.pos] == c { // no white space first: the common case
		d.pos++
		return true
	}
	if d.peek() == c {
		d.pos++
		return true
	}
	return false
}

func (d *decoder) literal(lit string) bool {
	if len(d.data)-d.pos >= len(lit) && string(d.data[d.pos:d.pos+len(lit)]) == lit {
		d.pos += len(lit)
		return true
	}
	return false
}

// null consumes a null if one comes next.
func (d *decoder) null() bool { return d.peek() == 'n' && d.literal("null") }

// end requires that only white space is left.
func (d *decoder) end() error {
	if d.peek() != 0 || d.pos != len(d.data) {
		return d.fail("unexpected data after the value")
	}
	return nil
}

// eachMember reads an object, calling fn with each key; fn must read the
// member's value. The key is only valid during the call. A null counts as
// an empty object.
func (d *decoder) eachMember(fn func(key string) error) error {
	if d.null() {
		return nil
	}
	if !d.consume('{') {
		return d.fail("want an object")
	}
	if d.consume('}') {
		return nil
	}
	for {
		if d.peek() != '"' {
			return d.fail("want a member name")
		}
		key, err := d.rawString()
		if err != nil {
			return err
		}
		if !d.consume(':') {
			return d.fail("want ':' after a member name")
		}
		if err := fn(key); err != nil {
			return err
		}
		if d.consume(',') {
			continue
		}
		if d.consume('}') {
			return nil
		}
		return d.fail("want ',' or '}' in an object")
	}
}

// eachElement reads an array, calling fn to read each element. A null
// counts as an empty array.
func (d *decoder) eachElement(fn func() error) error {
	if d.null() {
		return nil
	}
	if !d.consume('[') {
		return d.fail("want an array")
	}
	if d.consume(']') {
		return nil
	}
	for {
		if err := fn(); err != nil {
			return err
		}
		if d.consume(',') {
			continue
		}
		if d.consume(']') {
			return nil
		}
		return d.fail("want ',' or ']' in an array")
	}
}

// str reads a string (null reads as "").
func (d *decoder) str() (string, error) {
	if d.null() {
		return "", nil
	}
	if d.peek() != '"' {
		return "", d.fail("want a string")
	}
	return d.string()
}

// name reads a string and interns it (or aliases it; see decoder).
func (d *decoder) name() (string, error) {
	if d.null() {
		return "", nil
	}
	if d.peek() != '"' {
		return "", d.fail("want a string")
	}
	b, err := d.rawString()
	if err != nil {
		return "", err
	}
	return d.intern(b), nil
}

// intern returns s, read from the input, as the decoder keeps strings:
// shared, or interned.
func (d *decoder) intern(s string) string {
	if d.share {
		return s
	}
	names := d.scope.names
	if names == nil {
		return strings.Clone(s)
	}
	if n, ok := names[s]; ok {
		return n
	}
	n := strings.Clone(s)
	names[n] = n
	return n
}

// text returns s, read from the input, as the decoder keeps strings that
// do not repeat: shared, or copied.
func (d *decoder) text(s string) string {
	if d.share {
		return s
	}
	return strings.Clone(s)
}

// flag reads true, false or null (false).
func (d *decoder) flag() (bool, error) {
	switch {
	case d.null():
		return false, nil
	case d.peek() == 't' && d.literal("true"):
		return true, nil
	case d.peek() == 'f' && d.literal("false"):
		return false, nil
	}
	return false, d.fail("want true or false")
}

// uint reads a non-negative integer.
func (d *decoder) uint() (uint64, error) {
	if d.null() {
		return 0, nil
	}
	start := d.pos
	for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
		d.pos++
	}
	n, err := strconv.ParseUint(d.data[start:d.pos], 10, 64)
	if err != nil {
		d.pos = start
		return 0, d.fail("want a non-negative integer")
	}
	return n, nil
}

// strs reads an array of strings; names says whether to intern them.
func (d *decoder) strs(names bool) ([]string, error) {
	var out []string
	err := d.eachElement(func() error {
		read := d.str
		if names {
			read = d.name
		}
		s, err := read()
		out = append(out, s)
		return err
	})
	return out, err
}

// time reads an RFC 3339 time that can be written back (years 0-9999).
func (d *decoder) time() (time.Time, error) {
	if d.null() {
		return time.Time{}, nil
	}
	if d.peek() != '"' {
		return time.Time{}, d.fail("want a string")
	}
	b, err := d.rawString()
	if err != nil || len(b) == 0 {
		return time.Time{}, err
	}
	sc := d.scope
	if b == sc.timeText {
		return sc.time, nil
	}
	t, ok := sc.minute.read(b)
	if !ok {
		t, err = time.Parse(time.RFC3339Nano, b)
		if y := t.UTC().Year(); err != nil || y < 0 || y > 9999 {
			return time.Time{}, d.fail("want an RFC 3339 time in the years 0-9999")
		}
		sc.minute.remember(b, t, d.text)
	}
	sc.timeText, sc.time = d.text(b), t
	return t, nil
}

// raw skips one value and returns its text.
func (d *decoder) raw(depth int) (string, error) {
	d.space()
	start := d.pos
	if err := d.skip(depth); err != nil {
		return "", err
	}
	return d.data[start:d.pos], nil
}

// skip moves past one value without building it, checking its syntax
// loosely; whatever is skipped is either ignored or read again later.
func (d *decoder) skip(depth int) error {
	switch c := d.peek(); {
	case c == 0:
		return d.fail("unexpected end of input")
	case c == '"':
		return d.skipString()
	case c == '{' || c == '[':
		nest := 0
		for d.pos < len(d.data) {
			switch d.data[d.pos] {
			case '"':
				if err := d.skipString(); err != nil {
					return err
				}
				continue
			case '{', '[':
				if nest++; depth+nest > maxValueDepth {
					return d.fail("values nest deeper than %d", maxValueDepth)
				}
			case '}', ']':
				if nest--; nest == 0 {
					d.pos++
					return nil
				}
			}
			d.pos++
		}
		return d.fail("unterminated value")
	case c == '-' || (c >= '0' && c <= '9'):
		_, err := d.number()
		return err
	case d.literal("true"), d.literal("false"), d.literal("null"):
		return nil
	}
	return d.fail("unexpected character %q", d.data[d.pos])
}

// skipString moves past the string at d.pos without decoding it.
func (d *decoder) skipString() error {
	for i := d.pos + 1; i < len(d.data); i++ {
		switch c := d.data[i]; {
		case c == '"':
			d.pos = i + 1
			return nil
		case c == '\\':
			i++
		case c < 0x20:
			d.pos = i
			return d.fail("control character in a string")
		}
	}
	d.pos = len(d.data)
	return d.fail("unterminated string")
}
