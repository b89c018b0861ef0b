package format

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/groundwork-iac/groundwork/state"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// This file encodes property values as JSON (see FORMAT.md, "Property
// values"). Plain values are plain JSON; every other kind is an object with
// exactly one member whose key begins with "$" (a tag). A user object that
// happens to have that shape is wrapped in a "$object" tag, so reading is
// never ambiguous.

// The tags of non-plain property values.
const (
	tagSecret  = "$secret"
	tagObject  = "$object"
	tagNumber  = "$number"
	tagUnknown = "$unknown"
	tagAsset   = "$asset"
	tagArchive = "$archive"
	tagRef     = "$ref"
	tagOutput  = "$output"
)

// valueEncoder appends property values to a buffer. keys is scratch space
// for sorting object keys, shared by nested objects stack-wise.
type valueEncoder struct {
	mgr  secrets.Manager
	keys []resource.PropertyKey
	// unsorted skips sorting object keys: journal entries are read only by
	// replay, so they need no stable order, while snapshots get one.
	unsorted bool
	// unknowns is set once an unknown value (or an unknown output, or a
	// reference whose ID is unknown) has been encoded.
	unknowns bool
	// depth is how deeply the value being written nests, counted as
	// resource.MaxDepth counts it: deeper is refused, so that nothing is
	// written that the decoder would refuse to read back (a cycle is
	// refused the same way, never followed forever).
	depth int
}

// errTooDeep refuses a value nested deeper than resource.MaxDepth.
var errTooDeep = fmt.Errorf("a value nests deeper than %d levels (or contains itself), more than the state can read back; it was not written", resource.MaxDepth)

// appendMap writes m as an object, wrapped in a "$object" tag when its
// shape would read as a tag.
func (e *valueEncoder) appendMap(ctx context.Context, b []byte, m resource.PropertyMap) ([]byte, error) {
	wrap := len(m) == 1 && tagShaped(m)
	if wrap {
		b = append(b, `{"`+tagObject+`":`...)
	}
	var err error
	if e.unsorted {
		b, err = e.appendMembersUnsorted(ctx, b, m)
	} else {
		b, err = e.appendMembers(ctx, b, m)
	}
	if wrap {
		b = append(b, '}')
	}
	return b, err
}

// tagShaped reports whether the one key of m begins with "$".
func tagShaped(m resource.PropertyMap) bool {
	for k := range m {
		return len(k) > 0 && k[0] == '$'
	}
	return false
}

// appendMembers writes m as a JSON object with sorted keys, without
// escaping its shape.
func (e *valueEncoder) appendMembers(ctx context.Context, b []byte, m resource.PropertyMap) ([]byte, error) {
	start := len(e.keys)
	for k := range m {
		e.keys = append(e.keys, k)
	}
	end := len(e.keys)
	slices.Sort(e.keys[start:end])
	b = append(b, '{')
	var err error
	for i := start; i < end; i++ {
		if i > start {
			b = append(b, ',')
		}
		k := e.keys[i]
		b = appendString(b, string(k))
		b = append(b, ':')
		if b, err = e.appendValue(ctx, b, m[k]); err != nil {
			break
		}
	}
	e.keys = e.keys[:start]
	return append(b, '}'), err
}

// appendMembersUnsorted writes m as a JSON object in map order (journal
// entries need no stable order): no key slice to fill, and no lookup per
// key.
func (e *valueEncoder) appendMembersUnsorted(ctx context.Context, b []byte, m resource.PropertyMap) ([]byte, error) {
	b = append(b, '{')
	comma := false
	var err error
	for k, v := range m {
		if comma {
			b = append(b, ',')
		}
		comma = true
		b = appendString(b, string(k))
		b = append(b, ':')
		if b, err = e.appendValue(ctx, b, v); err != nil {
			break
		}
	}
	return append(b, '}'), err
}

// appendValue writes one value: plain kinds as plain JSON, the others as
// tags (appendTagged).
func (e *valueEncoder) appendValue(ctx context.Context, b []byte, v resource.PropertyValue) ([]byte, error) {
	switch v.Kind() {
	case resource.KindNull:
		return append(b, "null"...), nil
	case resource.KindBool:
		return strconv.AppendBool(b, v.BoolValue()), nil
	case resource.KindNumber:
		return appendNumber(b, v.NumberValue()), nil
	case resource.KindString:
		return appendString(b, v.StringValue()), nil
	}
	if e.depth >= resource.MaxDepth {
		return b, errTooDeep
	}
	e.depth++
	b, err := e.appendNested(ctx, b, v)
	e.depth--
	return b, err
}

// appendNested writes a value that holds others, or is a tag.
func (e *valueEncoder) appendNested(ctx context.Context, b []byte, v resource.PropertyValue) ([]byte, error) {
	switch v.Kind() {
	case resource.KindArray:
		b = append(b, '[')
		for i, x := range v.ArrayValue() {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = e.appendValue(ctx, b, x); err != nil {
				return b, err
			}
		}
		b = append(b, ']')
	case resource.KindObject:
		return e.appendMap(ctx, b, v.ObjectValue())
	default:
		return e.AppendTagged(ctx, b, v)
	}
	return b, nil
}

// AppendTagged writes a value of a kind that is encoded as a tag.
func (e *valueEncoder) AppendTagged(ctx context.Context, b []byte, v resource.PropertyValue) ([]byte, error) {
	var err error
	switch v.Kind() {
	case resource.KindAsset:
		b = append(b, `{"`+tagAsset+`":`...)
		b = appendAsset(b, v.AssetValue())
		b = append(b, '}')
	case resource.KindArchive:
		b = append(b, `{"`+tagArchive+`":`...)
		b = appendArchive(b, v.ArchiveValue())
		b = append(b, '}')
	case resource.KindResourceReference:
		r := v.ResourceReferenceValue()
		e.unknowns = e.unknowns || r.IDUnknown
		b = append(b, `{"`+tagRef+`":`...)
		b = appendRef(b, r)
		b = append(b, '}')
	case resource.KindUnknown:
		e.unknowns = true
		b = append(b, `{"`+tagUnknown+`":true}`...)
	case resource.KindSecret:
		b = append(b, `{"`+tagSecret+`":`...)
		if b, err = e.appendSealed(ctx, b, v.SecretElement()); err != nil {
			return b, err
		}
		b = append(b, '}')
	case resource.KindOutput:
		return e.appendOutput(ctx, b, v.OutputValue())
	default:
		return b, errors.New("cannot encode a property value of kind " + v.Kind().String())
	}
	return b, nil
}

func (e *valueEncoder) appendOutput(ctx context.Context, b []byte, o resource.Output) ([]byte, error) {
	e.unknowns = e.unknowns || !o.Known
	b = append(b, `{"`+tagOutput+`":{"known":`...)
	b = strconv.AppendBool(b, o.Known)
	if o.Secret {
		b = append(b, `,"secret":true`...)
	}
	var err error
	switch {
	case o.Known && o.Secret:
		b = append(b, `,"ciphertext":`...)
		b, err = e.appendSealed(ctx, b, o.Element)
	case o.Known:
		b = append(b, `,"value":`...)
		b, err = e.appendValue(ctx, b, o.Element)
	}
	if err != nil {
		return b, err
	}
	if len(o.Dependencies) > 0 {
		b = append(b, `,"dependencies":`...)
		b = appendURNs(b, o.Dependencies)
	}
	return append(b, "}}"...), nil
}

// appendSealed encrypts the encoding of v and appends the ciphertext as a
// JSON string. The plaintext buffer is wiped afterwards.
func (e *valueEncoder) appendSealed(ctx context.Context, b []byte, v resource.PropertyValue) ([]byte, error) {
	if e.mgr == nil {
		return b, state.ErrNoSecretsManager
	}
	inner := valueEncoder{mgr: e.mgr, keys: e.keys[len(e.keys):], unsorted: e.unsorted, depth: e.depth}
	pt, err := inner.appendValue(ctx, nil, v)
	e.unknowns = e.unknowns || inner.unknowns
	if err == nil {
		var ct string
		ct, err = e.mgr.Encrypt(ctx, pt)
		b = appendString(b, ct)
	}
	clear(pt)
	return b, err
}

func appendNumber(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `{"`+tagNumber+`":"NaN"}`...)
	case math.IsInf(f, 1):
		return append(b, `{"`+tagNumber+`":"+Inf"}`...)
	case math.IsInf(f, -1):
		return append(b, `{"`+tagNumber+`":"-Inf"}`...)
	}
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		return strconv.AppendFloat(b, f, 'e', -1, 64)
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

const hexDigits = "0123456789abcdef"

// plainASCII marks the bytes a JSON string holds as they are.
var plainASCII = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD, as
// encoding/json does.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	i := plainPrefix(s)
	if i == len(s) {
		b = append(b, s...)
		return append(b, '"')
	}
	start := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if plainASCII[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plainPrefix returns the length of the longest prefix of p that a JSON
// string holds as it is and that is ASCII: no quote, backslash, control
// character or byte from 0x80 up. It looks at eight bytes at a time.
func plainPrefix[T string | []byte](p T) int {
	i := 0
	for ; i+8 <= len(p); i += 8 {
		if special8(load64(p[i : i+8])) {
			break
		}
	}
	for ; i < len(p); i++ {
		if c := p[i]; c >= utf8.RuneSelf || !plainASCII[c] {
			break
		}
	}
	return i
}

// load64 reads eight bytes as a little-endian number.
func load64[T string | []byte](p T) uint64 {
	_ = p[7]
	return uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16 | uint64(p[3])<<24 |
		uint64(p[4])<<32 | uint64(p[5])<<40 | uint64(p[6])<<48 | uint64(p[7])<<56
}

const (
	lsb8 = 0x0101010101010101
	msb8 = 0x8080808080808080
)

// special8 reports whether any of the eight bytes in x is a quote, a
// backslash, a control character or 0x80 and up (a SWAR test: a byte that
// is zero after the xor, or below 0x20, sets its top bit).
func special8(x uint64) bool {
	quote := x ^ (lsb8 * '"')
	backslash := x ^ (lsb8 * '\\')
	t := (quote - lsb8) &^ quote
	t |= (backslash - lsb8) &^ backslash
	t |= x - lsb8*0x20 // borrows into the top bit for bytes below 0x20
	return (t|x)&msb8 != 0
}

func appendURNs(b []byte, us []resource.URN) []byte {
	b = append(b, '[')
	for i, u := range us {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, string(u))
	}
	return append(b, ']')
}

// appendField appends `,"name":"value"` when value is not empty.
func appendField(b []byte, name, value string, first *bool) []byte {
	if value == "" {
		return b
	}
	if !*first {
		b = append(b, ',')
	}
	*first = false
	b = appendString(b, name)
	b = append(b, ':')
	return appendString(b, value)
}

func appendAsset(b []byte, a *resource.Asset) []byte {
	if a == nil {
		return append(b, "null"...)
	}
	first := true
	b = append(b, '{')
	b = appendField(b, "hash", a.Hash, &first)
	b = appendField(b, "text", a.Text, &first)
	b = appendField(b, "path", a.Path, &first)
	b = appendField(b, "uri", a.URI, &first)
	return append(b, '}')
}

func appendArchive(b []byte, a *resource.Archive) []byte {
	if a == nil {
		return append(b, "null"...)
	}
	first := true
	b = append(b, '{')
	b = appendField(b, "hash", a.Hash, &first)
	if a.Assets != nil {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, `"assets":{`...)
		names := make([]string, 0, len(a.Assets))
		for n := range a.Assets {
			names = append(names, n)
		}
		slices.Sort(names)
		for i, n := range names {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, n)
			m := a.Assets[n]
			switch {
			case m.Asset != nil:
				b = append(b, `:{"asset":`...)
				b = appendAsset(b, m.Asset)
			case m.Archive != nil:
				b = append(b, `:{"archive":`...)
				b = appendArchive(b, m.Archive)
			default:
				b = append(b, `:{`...)
			}
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	b = appendField(b, "path", a.Path, &first)
	b = appendField(b, "uri", a.URI, &first)
	return append(b, '}')
}

func appendRef(b []byte, r resource.ResourceReference) []byte {
	b = append(b, `{"urn":`...)
	b = appendString(b, string(r.URN))
	if r.ID != "" {
		b = append(b, `,"id":`...)
		b = appendString(b, string(r.ID))
	}
	if r.IDUnknown {
		b = append(b, `,"idUnknown":true`...)
	}
	if r.PackageVersion != "" {
		b = append(b, `,"packageVersion":`...)
		b = appendString(b, r.PackageVersion)
	}
	return append(b, '}')
}
