package state

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// maxValueDepth bounds the nesting of property values read from a file, so
// hostile input cannot exhaust the stack. encoding/json uses the same bound.
const maxValueDepth = 10000

// valueDecoder reads property values written by valueEncoder. It is a small
// hand-written JSON reader: one pass, no intermediate tree, and an error (never
// a panic) for any malformed input.
type valueDecoder struct {
	data []byte
	pos  int
	mgr  secrets.Manager // nil when the store has no secrets provider
}

// syntaxError reports malformed JSON in a property value.
type syntaxError struct {
	offset int
	msg    string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("property value at byte %d: %s", e.offset, e.msg)
}

func (d *valueDecoder) fail(format string, args ...any) error {
	return &syntaxError{offset: d.pos, msg: fmt.Sprintf(format, args...)}
}

// decodeMap reads a whole JSON document holding a property map.
func decodeMap(ctx context.Context, data []byte, mgr secrets.Manager) (resource.PropertyMap, error) {
	d := valueDecoder{data: data, mgr: mgr}
	v, err := d.document(ctx, 0)
	if err != nil {
		return nil, err
	}
	if !v.IsObject() {
		return nil, &syntaxError{msg: "want an object of properties, found " + v.Kind().String()}
	}
	return v.ObjectValue(), nil
}

// document reads one value and requires that only white space follows.
func (d *valueDecoder) document(ctx context.Context, depth int) (resource.PropertyValue, error) {
	v, err := d.value(ctx, depth)
	if err != nil {
		return v, err
	}
	d.space()
	if d.pos != len(d.data) {
		return v, d.fail("unexpected data after the value")
	}
	return v, nil
}

func (d *valueDecoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *valueDecoder) literal(lit string) bool {
	if len(d.data)-d.pos >= len(lit) && string(d.data[d.pos:d.pos+len(lit)]) == lit {
		d.pos += len(lit)
		return true
	}
	return false
}

func (d *valueDecoder) value(ctx context.Context, depth int) (resource.PropertyValue, error) {
	if depth > maxValueDepth {
		return resource.PropertyValue{}, d.fail("values nest deeper than %d", maxValueDepth)
	}
	d.space()
	if d.pos >= len(d.data) {
		return resource.PropertyValue{}, d.fail("unexpected end of input")
	}
	switch c := d.data[d.pos]; {
	case c == 'n' && d.literal("null"):
		return resource.NewNull(), nil
	case c == 't' && d.literal("true"):
		return resource.NewBool(true), nil
	case c == 'f' && d.literal("false"):
		return resource.NewBool(false), nil
	case c == '"':
		s, err := d.string()
		return resource.NewString(s), err
	case c == '[':
		return d.array(ctx, depth)
	case c == '{':
		return d.object(ctx, depth)
	case c == '-' || (c >= '0' && c <= '9'):
		f, err := d.number()
		return resource.NewNumber(f), err
	}
	return resource.PropertyValue{}, d.fail("unexpected character %q", d.data[d.pos])
}

func (d *valueDecoder) array(ctx context.Context, depth int) (resource.PropertyValue, error) {
	d.pos++ // '['
	var elems []resource.PropertyValue
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return resource.NewArray(), nil
	}
	for {
		v, err := d.value(ctx, depth+1)
		if err != nil {
			return v, err
		}
		elems = append(elems, v)
		d.space()
		if d.pos >= len(d.data) {
			return v, d.fail("unterminated array")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return resource.NewArray(elems...), nil
		default:
			return v, d.fail("want ',' or ']' in an array")
		}
	}
}

func (d *valueDecoder) object(ctx context.Context, depth int) (resource.PropertyValue, error) {
	start := d.pos
	d.pos++ // '{'
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == '"' && d.pos+1 < len(d.data) && d.data[d.pos+1] == '$' {
		// Perhaps a tag: a single member with a "$" key.
		tag, err := d.string()
		if err != nil {
			return resource.PropertyValue{}, err
		}
		if err := d.colon(); err != nil {
			return resource.PropertyValue{}, err
		}
		d.space()
		from := d.pos
		if err := d.skip(depth + 1); err != nil {
			return resource.PropertyValue{}, err
		}
		to := d.pos
		d.space()
		if d.pos < len(d.data) && d.data[d.pos] == '}' {
			d.pos++
			return d.tagged(ctx, tag, d.data[from:to], depth+1)
		}
		d.pos = start + 1 // an ordinary object whose first key begins with "$"
	}
	m, err := d.members(ctx, depth)
	return resource.NewObject(m), err
}

// members reads the members of an object whose '{' was consumed.
func (d *valueDecoder) members(ctx context.Context, depth int) (resource.PropertyMap, error) {
	m := resource.PropertyMap{}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return m, nil
	}
	for {
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, d.fail("want a property name")
		}
		k, err := d.string()
		if err != nil {
			return nil, err
		}
		if err := d.colon(); err != nil {
			return nil, err
		}
		v, err := d.value(ctx, depth+1)
		if err != nil {
			return nil, err
		}
		m[resource.PropertyKey(k)] = v
		d.space()
		if d.pos >= len(d.data) {
			return nil, d.fail("unterminated object")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return m, nil
		default:
			return nil, d.fail("want ',' or '}' in an object")
		}
	}
}

func (d *valueDecoder) colon() error {
	d.space()
	if d.pos >= len(d.data) || d.data[d.pos] != ':' {
		return d.fail("want ':' after a property name")
	}
	d.pos++
	return nil
}

// skip moves past one value without building it (used to look ahead over a
// tag's payload); the payload is checked when it is decoded.
func (d *valueDecoder) skip(depth int) error {
	d.space()
	if d.pos >= len(d.data) {
		return d.fail("unexpected end of input")
	}
	switch c := d.data[d.pos]; c {
	case '"':
		_, err := d.string()
		return err
	case '{', '[':
		nest := 0
		for d.pos < len(d.data) {
			switch d.data[d.pos] {
			case '"':
				if _, err := d.string(); err != nil {
					return err
				}
				continue
			case '{', '[':
				nest++
				if depth+nest > maxValueDepth {
					return d.fail("values nest deeper than %d", maxValueDepth)
				}
			case '}', ']':
				nest--
				if nest == 0 {
					d.pos++
					return nil
				}
			}
			d.pos++
		}
		return d.fail("unterminated value")
	default:
		for d.pos < len(d.data) {
			switch d.data[d.pos] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return nil
			}
			d.pos++
		}
		return nil
	}
}

func (d *valueDecoder) number() (float64, error) {
	start := d.pos
	i := d.pos
	if d.data[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(d.data) && d.data[i] >= '0' && d.data[i] <= '9' {
			i++
			n++
		}
		return n
	}
	intStart := i
	if n := digits(); n == 0 || (n > 1 && d.data[intStart] == '0') {
		return 0, d.fail("malformed number")
	}
	simple := i-intStart <= 15
	if i < len(d.data) && d.data[i] == '.' {
		i++
		simple = false
		if digits() == 0 {
			return 0, d.fail("malformed number")
		}
	}
	if i < len(d.data) && (d.data[i] == 'e' || d.data[i] == 'E') {
		i++
		simple = false
		if i < len(d.data) && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0, d.fail("malformed number")
		}
	}
	d.pos = i
	if simple { // an integer that a float64 holds exactly
		var n int64
		for _, c := range d.data[intStart:i] {
			n = n*10 + int64(c-'0')
		}
		if d.data[start] == '-' {
			if n == 0 {
				return math.Copysign(0, -1), nil
			}
			n = -n
		}
		return float64(n), nil
	}
	f, err := strconv.ParseFloat(string(d.data[start:i]), 64)
	if err != nil {
		return 0, &syntaxError{offset: start, msg: "number out of range"}
	}
	return f, nil
}

// string reads a JSON string at d.pos. Invalid UTF-8 becomes U+FFFD.
func (d *valueDecoder) string() (string, error) {
	start := d.pos + 1
	i := start
	for i < len(d.data) {
		c := d.data[i]
		switch {
		case c == '"':
			raw := d.data[start:i]
			d.pos = i + 1
			if utf8.Valid(raw) {
				return string(raw), nil
			}
			return string([]rune(string(raw))), nil // replaces invalid bytes
		case c == '\\':
			return d.escapedString(start)
		case c < 0x20:
			d.pos = i
			return "", d.fail("control character in a string")
		}
		i++
	}
	d.pos = i
	return "", d.fail("unterminated string")
}

func (d *valueDecoder) escapedString(start int) (string, error) {
	out := make([]byte, 0, 2*(d.pos-start)+16)
	i := start
	for i < len(d.data) {
		c := d.data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			if !utf8.Valid(out) {
				return string([]rune(string(out))), nil
			}
			return string(out), nil
		case c < 0x20:
			d.pos = i
			return "", d.fail("control character in a string")
		case c != '\\':
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(d.data) {
			break
		}
		esc := d.data[i+1]
		i += 2
		switch esc {
		case '"', '\\', '/':
			out = append(out, esc)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(d.data, i)
			if !ok {
				d.pos = i
				return "", d.fail("malformed \\u escape")
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(0), false
				if i+6 <= len(d.data) && d.data[i] == '\\' && d.data[i+1] == 'u' {
					r2, ok2 = hex4(d.data, i+2)
				}
				if ok2 {
					if comb := utf16.DecodeRune(r, r2); comb != utf8.RuneError {
						r = comb
						i += 6
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			d.pos = i - 1
			return "", d.fail("unknown escape \\%c", esc)
		}
	}
	d.pos = len(d.data)
	return "", d.fail("unterminated string")
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
