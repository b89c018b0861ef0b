package format

import (
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The decoder's scalars: JSON numbers, and strings with their escapes and
// their UTF-8 checked. The structure around them (objects, arrays, the
// typed fields of the formats) is read in jsonread.go.

// number reads a JSON number.
func (d *decoder) number() (float64, error) {
	start, i := d.pos, d.pos
	if i < len(d.data) && d.data[i] == '-' {
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
	f, err := strconv.ParseFloat(d.data[start:i], 64)
	if err != nil {
		return 0, &syntaxError{offset: start, msg: "number out of range"}
	}
	return f, nil
}

// string reads the JSON string at d.pos.
func (d *decoder) string() (string, error) {
	b, err := d.rawString()
	return d.text(b), err
}

// rawString reads the JSON string at d.pos. The result is a substring of
// the input when the string has no escapes and is valid UTF-8; invalid
// UTF-8 becomes U+FFFD.
func (d *decoder) rawString() (string, error) {
	start := d.pos + 1
	// The common case: plain ASCII up to the closing quote.
	i := start + plainPrefix(d.data[min(start, len(d.data)):])
	if i < len(d.data) && d.data[i] == '"' {
		d.pos = i + 1
		return d.data[start:i], nil
	}
	ascii := true
	for ; i < len(d.data); i++ {
		switch c := d.data[i]; {
		case c == '"':
			d.pos = i + 1
			raw := d.data[start:i]
			if ascii || utf8.ValidString(raw) {
				return raw, nil
			}
			return string([]rune(raw)), nil
		case c >= utf8.RuneSelf:
			ascii = false
		case c == '\\':
			return d.escapedString(start)
		case c < 0x20:
			d.pos = i
			return "", d.fail("control character in a string")
		}
	}
	d.pos = len(d.data)
	return "", d.fail("unterminated string")
}

func (d *decoder) escapedString(start int) (string, error) {
	out := make([]byte, 0, 64)
	for i := start; i < len(d.data); {
		c := d.data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			if utf8.Valid(out) {
				return string(out), nil
			}
			return string([]rune(string(out))), nil
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
				if comb := utf16.DecodeRune(r, r2); ok2 && comb != utf8.RuneError {
					r, i = comb, i+6
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

func hex4(b string, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(b[i : i+4]) {
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
