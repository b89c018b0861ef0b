package resource

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Go structs map to property objects field by field. A field's property
// name comes from its `prop` tag, or else from the field's name with its
// leading capitals lowered ("Path" is "path", "MinUpper" is "minUpper",
// "URLPath" is "urlPath", "ID" is "id"). The tag may add options after a
// comma:
//
//	Path    string            `prop:"path"`             // required
//	Mode    string            `prop:"mode,optional"`    // may be absent
//	Token   string            `prop:"token,secret"`     // always secret
//	Region  string            `prop:",replace"`         // "region"; a change replaces
//	Scratch string            `prop:"-"`                // not a property
//
// Unexported fields are skipped, and the fields of an embedded struct are
// promoted as if they were the outer struct's own (as encoding/json does).

// StructField is how one field of a Go struct maps to a property.
type StructField struct {
	// Name is the property's name.
	Name PropertyKey
	// Index is the field's index sequence, for reflect.Value.FieldByIndex.
	Index []int
	// Type is the field's Go type.
	Type reflect.Type
	// Optional fields may be absent: converting a struct leaves a zero
	// optional field out, and a property absent from a map is not an
	// error for it.
	Optional bool
	// Secret fields are always converted to secret values.
	Secret bool
	// Replace marks an input whose change replaces the resource (for
	// providers that derive their diff from the struct, such as
	// providers.Typed).
	Replace bool
}

// StructFields returns how the fields of the struct type t (or a pointer
// to one) map to properties, in field order. It fails for a type that is
// not a struct, for an unknown tag option, and for two fields that map to
// the same property.
func StructFields(t reflect.Type) ([]StructField, error) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%s is not a struct", t)
	}
	var out []StructField
	if err := appendFields(t, nil, &out); err != nil {
		return nil, err
	}
	seen := make(map[PropertyKey]bool, len(out))
	for _, f := range out {
		if seen[f.Name] {
			return nil, fmt.Errorf("%s: two fields map to the property %q", t, f.Name)
		}
		seen[f.Name] = true
	}
	return out, nil
}

func appendFields(t reflect.Type, index []int, out *[]StructField) error {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, hasTag := sf.Tag.Lookup("prop")
		if tag == "-" {
			continue
		}
		idx := append(append([]int(nil), index...), i)
		if sf.Anonymous && (!hasTag || tag == "") {
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				if err := appendFields(et, idx, out); err != nil {
					return err
				}
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		f := StructField{Name: PropertyKey(propertyName(sf.Name)), Index: idx, Type: sf.Type}
		name, opts, _ := strings.Cut(tag, ",")
		if name != "" {
			f.Name = PropertyKey(name)
		}
		for opt := range strings.SplitSeq(opts, ",") {
			switch opt {
			case "":
			case "optional":
				f.Optional = true
			case "secret":
				f.Secret = true
			case "replace":
				f.Replace = true
			default:
				return fmt.Errorf("%s.%s: unknown prop tag option %q (use optional, secret or replace)", t, sf.Name, opt)
			}
		}
		*out = append(*out, f)
	}
	return nil
}

// propertyName lowers the leading capitals of a Go field name: the whole
// run when it ends the name or is followed by something other than a
// lower-case letter ("ID", "SHA256"), all but its last letter when a word
// follows ("URLPath" is "urlPath").
func propertyName(s string) string {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if !unicode.IsUpper(r) {
			break
		}
		n += size
	}
	if n == 0 {
		return s
	}
	if n < len(s) && n > 1 {
		r, _ := utf8.DecodeRuneInString(s[n:])
		if unicode.IsLower(r) {
			_, size := utf8.DecodeLastRuneInString(s[:n])
			n -= size
		}
	}
	return strings.ToLower(s[:n]) + s[n:]
}

// convertStruct converts a struct to an object by its StructFields.
func convertStruct(rv reflect.Value, path *PropertyPath) (PropertyValue, error) {
	fields, err := StructFields(rv.Type())
	if err != nil {
		return PropertyValue{}, convErr(rv.Interface(), path, err.Error())
	}
	out := make(PropertyMap, len(fields))
	for _, f := range fields {
		fv, ok := fieldByIndex(rv, f.Index)
		if !ok || (f.Optional && fv.IsZero()) {
			continue
		}
		*path = append(*path, PathKey(string(f.Name)))
		pv, err := convert(fv.Interface(), path)
		*path = (*path)[:len(*path)-1]
		if err != nil {
			return PropertyValue{}, err
		}
		if f.Secret && !pv.IsSecret() {
			pv = NewSecret(pv)
		}
		out[f.Name] = pv
	}
	return NewObject(out), nil
}

// fieldByIndex is reflect.Value.FieldByIndex that reports, rather than
// panics on, a nil embedded pointer on the way.
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}
