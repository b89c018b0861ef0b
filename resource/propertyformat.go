package resource

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// String renders v readably for logs and errors. A secret prints as
// "[secret]" and never shows its plaintext.
func (v PropertyValue) String() string {
	var b strings.Builder
	v.write(&b)
	return b.String()
}

func (v PropertyValue) write(b *strings.Builder) {
	switch v.Kind() {
	case KindNull:
		b.WriteString("null")
	case KindBool:
		b.WriteString(strconv.FormatBool(v.BoolValue()))
	case KindNumber:
		b.WriteString(strconv.FormatFloat(v.num, 'g', -1, 64))
	case KindString:
		b.WriteString(strconv.Quote(v.str))
	case KindArray:
		b.WriteByte('[')
		for i, e := range v.ArrayValue() {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b)
		}
		b.WriteByte(']')
	case KindObject:
		v.ObjectValue().write(b)
	case KindAsset:
		fmt.Fprintf(b, "asset(%s)", v.AssetValue().describe())
	case KindArchive:
		fmt.Fprintf(b, "archive(%s)", v.ArchiveValue().describe())
	case KindResourceReference:
		r := v.ref.(*ResourceReference)
		b.WriteString("ref(" + string(r.URN))
		if r.IDUnknown {
			b.WriteString(", id=[unknown]")
		} else if r.ID != "" {
			b.WriteString(", id=" + string(r.ID))
		}
		b.WriteByte(')')
	case KindUnknown:
		b.WriteString("[unknown]")
	case KindSecret:
		b.WriteString("[secret]")
	case KindOutput:
		o := v.ref.(*Output)
		switch {
		case o.Secret:
			b.WriteString("[secret]")
		case !o.Known:
			b.WriteString("[unknown]")
		default:
			o.Element.write(b)
		}
	}
}

// String renders m readably with sorted keys; secrets are masked.
func (m PropertyMap) String() string {
	var b strings.Builder
	m.write(&b)
	return b.String()
}

func (m PropertyMap) write(b *strings.Builder) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		b.WriteString(": ")
		m[PropertyKey(k)].write(b)
	}
	b.WriteByte('}')
}

// GoString is String, so that %#v never prints a secret either.
func (v PropertyValue) GoString() string { return v.String() }

// Format implements fmt.Formatter so that every verb (%v, %+v, %#v, %s, %q)
// goes through the masking String.
func (v PropertyValue) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		fmt.Fprint(f, strconv.Quote(v.String()))
		return
	}
	fmt.Fprint(f, v.String())
}

// String renders the output as its property value does: masked when
// secret, "[unknown]" when not known.
func (o Output) String() string { return NewOutput(o).String() }

// GoString is String, so that %#v never prints a secret output's element.
func (o Output) GoString() string { return o.String() }

// Format implements fmt.Formatter so that printing an Output directly, with
// any verb, never shows a secret element.
func (o Output) Format(f fmt.State, verb rune) { NewOutput(o).Format(f, verb) }
