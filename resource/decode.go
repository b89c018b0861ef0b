package resource

import (
	"fmt"
	"math"
	"reflect"
	"strings"
)

// DecodeError reports a property value that cannot be stored in a Go
// value: where it is (a property path from the root of the decoded value,
// empty for the root itself), the Go type it was to become, and why.
type DecodeError struct {
	Path   PropertyPath
	GoType string
	Reason string
}

// Error describes the problem and where it is.
func (e *DecodeError) Error() string {
	where := "the value"
	if len(e.Path) > 0 {
		where = fmt.Sprintf("%q", e.Path.String())
	}
	return fmt.Sprintf("cannot decode %s into Go type %s: %s", where, e.GoType, e.Reason)
}

var (
	propertyValueType = reflect.TypeFor[PropertyValue]()
	propertyMapType   = reflect.TypeFor[PropertyMap]()
	referenceType     = reflect.TypeFor[ResourceReference]()
	assetType         = reflect.TypeFor[Asset]()
	archiveType       = reflect.TypeFor[Archive]()
)

// Decode stores v in the Go value dst points to, the inverse of
// NewPropertyValue: objects fill structs (by StructFields; properties the
// struct lacks are ignored, fields the object lacks keep their value) and
// string-keyed maps, arrays fill slices, numbers fill every numeric kind
// (an integer kind only with a whole number in its range), and null leaves
// the zero value (nil for a pointer). A destination of type PropertyValue
// or PropertyMap takes the value as it is; one of type any takes
// v.Mappable(). Secrets are unwrapped, so treat the result as sensitive if
// v.ContainsSecrets(). An unknown value cannot be decoded. The error is a
// *DecodeError naming the path and the Go type.
func (v PropertyValue) Decode(dst any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &DecodeError{GoType: fmt.Sprintf("%T", dst), Reason: "the destination must be a non-nil pointer"}
	}
	var path PropertyPath
	return decode(v, rv.Elem(), &path)
}

// Decode stores m's properties in the struct or map dst points to, as
// PropertyValue.Decode does for an object.
func (m PropertyMap) Decode(dst any) error {
	return NewObject(m).Decode(dst)
}

func decode(v PropertyValue, dst reflect.Value, path *PropertyPath) error {
	t := dst.Type()
	switch t {
	case propertyValueType:
		dst.Set(reflect.ValueOf(v))
		return nil
	}
	switch v.Kind() {
	case KindSecret:
		return decode(v.SecretElement(), dst, path)
	case KindOutput:
		o := v.OutputValue()
		if !o.Known {
			return decodeErr(t, path, "the value is unknown")
		}
		return decode(o.Element, dst, path)
	case KindUnknown:
		return decodeErr(t, path, "the value is unknown")
	case KindNull:
		dst.SetZero()
		return nil
	}
	switch t {
	case propertyMapType:
		if !v.IsObject() {
			return mismatch(t, v, path, "an object")
		}
		dst.Set(reflect.ValueOf(v.ObjectValue()))
		return nil
	case referenceType:
		if !v.IsResourceReference() {
			return mismatch(t, v, path, "a resource reference")
		}
		dst.Set(reflect.ValueOf(v.ResourceReferenceValue()))
		return nil
	case assetType:
		if !v.IsAsset() {
			return mismatch(t, v, path, "an asset")
		}
		dst.Set(reflect.ValueOf(*v.AssetValue()))
		return nil
	case archiveType:
		if !v.IsArchive() {
			return mismatch(t, v, path, "an archive")
		}
		dst.Set(reflect.ValueOf(*v.ArchiveValue()))
		return nil
	}
	return decodeKind(v, dst, path)
}

// decodeKind decodes by the destination's kind.
func decodeKind(v PropertyValue, dst reflect.Value, path *PropertyPath) error {
	t := dst.Type()
	switch t.Kind() {
	case reflect.Interface:
		if t.NumMethod() > 0 {
			return decodeErr(t, path, "only the empty interface can be decoded into")
		}
		if m := v.Mappable(); m != nil {
			dst.Set(reflect.ValueOf(m))
		}
		return nil
	case reflect.Pointer:
		elem := reflect.New(t.Elem())
		if err := decode(v, elem.Elem(), path); err != nil {
			return err
		}
		dst.Set(elem)
		return nil
	case reflect.Bool:
		if !v.IsBool() {
			return mismatch(t, v, path, "a bool")
		}
		dst.SetBool(v.BoolValue())
		return nil
	case reflect.String:
		if !v.IsString() {
			return mismatch(t, v, path, "a string")
		}
		dst.SetString(v.StringValue())
		return nil
	case reflect.Float32, reflect.Float64:
		if !v.IsNumber() {
			return mismatch(t, v, path, "a number")
		}
		dst.SetFloat(v.NumberValue())
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return decodeInteger(v, dst, path)
	case reflect.Slice, reflect.Array:
		return decodeArray(v, dst, path)
	case reflect.Map:
		return decodeMap(v, dst, path)
	case reflect.Struct:
		return decodeStruct(v, dst, path)
	}
	return decodeErr(t, path, "unsupported type")
}

func decodeInteger(v PropertyValue, dst reflect.Value, path *PropertyPath) error {
	t := dst.Type()
	if !v.IsNumber() {
		return mismatch(t, v, path, "a number")
	}
	n := v.NumberValue()
	if n != math.Trunc(n) || math.IsInf(n, 0) {
		return decodeErr(t, path, fmt.Sprintf("%v is not a whole number", n))
	}
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if n < 0 || n >= math.MaxUint64 || dst.OverflowUint(uint64(n)) {
			return decodeErr(t, path, fmt.Sprintf("%v is out of range", n))
		}
		dst.SetUint(uint64(n))
	default:
		if n < math.MinInt64 || n >= math.MaxInt64 || dst.OverflowInt(int64(n)) {
			return decodeErr(t, path, fmt.Sprintf("%v is out of range", n))
		}
		dst.SetInt(int64(n))
	}
	return nil
}

func decodeArray(v PropertyValue, dst reflect.Value, path *PropertyPath) error {
	t := dst.Type()
	if !v.IsArray() {
		return mismatch(t, v, path, "an array")
	}
	a := v.ArrayValue()
	if t.Kind() == reflect.Array {
		if len(a) != t.Len() {
			return decodeErr(t, path, fmt.Sprintf("want %d elements, found %d", t.Len(), len(a)))
		}
	} else {
		dst.Set(reflect.MakeSlice(t, len(a), len(a)))
	}
	for i, e := range a {
		*path = append(*path, PathIndex(i))
		err := decode(e, dst.Index(i), path)
		*path = (*path)[:len(*path)-1]
		if err != nil {
			return err
		}
	}
	return nil
}

func decodeMap(v PropertyValue, dst reflect.Value, path *PropertyPath) error {
	t := dst.Type()
	if t.Key().Kind() != reflect.String {
		return decodeErr(t, path, "map keys must be strings")
	}
	if !v.IsObject() {
		return mismatch(t, v, path, "an object")
	}
	obj := v.ObjectValue()
	m := reflect.MakeMapWithSize(t, len(obj))
	for k, e := range obj {
		*path = append(*path, PathKey(string(k)))
		elem := reflect.New(t.Elem()).Elem()
		err := decode(e, elem, path)
		*path = (*path)[:len(*path)-1]
		if err != nil {
			return err
		}
		m.SetMapIndex(reflect.ValueOf(string(k)).Convert(t.Key()), elem)
	}
	dst.Set(m)
	return nil
}

func decodeStruct(v PropertyValue, dst reflect.Value, path *PropertyPath) error {
	t := dst.Type()
	if !v.IsObject() {
		return mismatch(t, v, path, "an object")
	}
	fields, err := StructFields(t)
	if err != nil {
		return decodeErr(t, path, err.Error())
	}
	obj := v.ObjectValue()
	for _, f := range fields {
		e, ok := obj[f.Name]
		if !ok {
			continue
		}
		*path = append(*path, PathKey(string(f.Name)))
		err := decode(e, allocField(dst, f.Index), path)
		*path = (*path)[:len(*path)-1]
		if err != nil {
			return err
		}
	}
	return nil
}

// allocField returns the field at index, allocating nil embedded pointers
// on the way.
func allocField(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

func mismatch(t reflect.Type, v PropertyValue, path *PropertyPath, want string) error {
	return decodeErr(t, path, fmt.Sprintf("want %s, found %s", want, kindPhrase(v)))
}

// kindPhrase names a value's kind with its article, for error messages.
func kindPhrase(v PropertyValue) string {
	k := v.Kind().String()
	if strings.ContainsRune("aeiou", rune(k[0])) {
		return "an " + k
	}
	return "a " + k
}

func decodeErr(t reflect.Type, path *PropertyPath, reason string) error {
	return &DecodeError{Path: append(PropertyPath(nil), *path...), GoType: t.String(), Reason: reason}
}
