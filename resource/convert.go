package resource

import (
	"fmt"
	"math"
	"reflect"
	"strings"
)

// UnknownPlaceholder is what Mappable puts where a value is unknown (an
// unknown, or an output that is not known). It is a distinct type so that
// it can never be confused with a real string or number; NewPropertyValue
// turns it back into NewUnknown(), so Mappable and NewPropertyValue
// round-trip.
type UnknownPlaceholder struct{}

// String returns "[unknown]".
func (UnknownPlaceholder) String() string { return "[unknown]" }

// ConversionError reports a plain Go value that cannot become a property
// value: where it is (a property path from the root of the converted value,
// empty for the root itself), its Go type, and why.
type ConversionError struct {
	Path   PropertyPath
	GoType string
	Reason string
}

// Error describes the problem and where it is.
func (e *ConversionError) Error() string {
	where := "at the root"
	if len(e.Path) > 0 {
		where = fmt.Sprintf("at %q", e.Path.String())
	}
	return fmt.Sprintf("cannot convert Go value of type %s %s to a property value: %s", e.GoType, where, e.Reason)
}

// NewPropertyValue converts a plain Go value to a property value. It accepts
// nil, bool, every int, uint and float kind, string, []any, map[string]any,
// []string, map[string]string, PropertyValue, PropertyMap, *Asset, *Archive,
// ResourceReference (or a pointer to one), UnknownPlaceholder, and through
// reflection any other slice, array or string-keyed map of those, any
// named type whose underlying kind is one of the above (e.g. URN, ID),
// pointers to any of them, and structs, which become objects as
// StructFields describes. A nil pointer or nil slice or map becomes null.
// Integers whose magnitude cannot be held exactly by a float64 are
// rejected rather than silently rounded. The error is a *ConversionError
// naming the Go type and the path of the offending element.
func NewPropertyValue(v any) (PropertyValue, error) {
	var path PropertyPath
	return convert(v, &path)
}

// NewPropertyMapFromMap converts a map of plain Go values to a PropertyMap,
// as NewPropertyValue does for each value. A nil map gives an empty map.
func NewPropertyMapFromMap(m map[string]any) (PropertyMap, error) {
	var path PropertyPath
	return convertMap(m, &path)
}

// NewPropertyMapFromStrings converts a map of strings to a PropertyMap of
// string values. It cannot fail.
func NewPropertyMapFromStrings(m map[string]string) PropertyMap {
	out := make(PropertyMap, len(m))
	for k, s := range m {
		out[PropertyKey(k)] = NewString(s)
	}
	return out
}

func convertMap(m map[string]any, path *PropertyPath) (PropertyMap, error) {
	out := make(PropertyMap, len(m))
	for k, e := range m {
		*path = append(*path, PathKey(k))
		pv, err := convert(e, path)
		*path = (*path)[:len(*path)-1]
		if err != nil {
			return nil, err
		}
		out[PropertyKey(k)] = pv
	}
	return out, nil
}

func convert(v any, path *PropertyPath) (PropertyValue, error) {
	switch x := v.(type) {
	case nil:
		return NewNull(), nil
	case PropertyValue:
		return x, nil
	case PropertyMap:
		return NewObject(x), nil
	case bool:
		return NewBool(x), nil
	case string:
		return NewString(x), nil
	case float64:
		return NewNumber(x), nil
	case float32:
		return NewNumber(float64(x)), nil
	case int:
		return convertInt(int64(x), v, path)
	case int64:
		return convertInt(x, v, path)
	case int32:
		return NewNumber(float64(x)), nil
	case int16:
		return NewNumber(float64(x)), nil
	case int8:
		return NewNumber(float64(x)), nil
	case uint:
		return convertUint(uint64(x), v, path)
	case uint64:
		return convertUint(x, v, path)
	case uintptr:
		return convertUint(uint64(x), v, path)
	case uint32:
		return NewNumber(float64(x)), nil
	case uint16:
		return NewNumber(float64(x)), nil
	case uint8:
		return NewNumber(float64(x)), nil
	case []any:
		out := make([]PropertyValue, len(x))
		for i, e := range x {
			*path = append(*path, PathIndex(i))
			pv, err := convert(e, path)
			*path = (*path)[:len(*path)-1]
			if err != nil {
				return PropertyValue{}, err
			}
			out[i] = pv
		}
		return NewArray(out...), nil
	case []string:
		out := make([]PropertyValue, len(x))
		for i, s := range x {
			out[i] = NewString(s)
		}
		return NewArray(out...), nil
	case map[string]any:
		m, err := convertMap(x, path)
		if err != nil {
			return PropertyValue{}, err
		}
		return NewObject(m), nil
	case map[string]string:
		return NewObject(NewPropertyMapFromStrings(x)), nil
	case []PropertyValue:
		return NewArray(x...), nil
	case *Asset:
		if x == nil {
			return NewNull(), nil
		}
		return NewAssetValue(x), nil
	case *Archive:
		if x == nil {
			return NewNull(), nil
		}
		return NewArchiveValue(x), nil
	case ResourceReference:
		return NewResourceReference(x), nil
	case *ResourceReference:
		if x == nil {
			return NewNull(), nil
		}
		return NewResourceReference(*x), nil
	case UnknownPlaceholder:
		return NewUnknown(), nil
	case Asset:
		return NewAssetValue(&x), nil
	case Archive:
		return NewArchiveValue(&x), nil
	}
	return convertReflect(reflect.ValueOf(v), path)
}

// convertReflect handles named basic types, other slices and arrays, and
// string-keyed maps of other element types.
func convertReflect(rv reflect.Value, path *PropertyPath) (PropertyValue, error) {
	switch rv.Kind() {
	case reflect.Bool:
		return NewBool(rv.Bool()), nil
	case reflect.String:
		return NewString(rv.String()), nil
	case reflect.Float32, reflect.Float64:
		return NewNumber(rv.Float()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return convertInt(rv.Int(), rv.Interface(), path)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return convertUint(rv.Uint(), rv.Interface(), path)
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return NewNull(), nil
		}
		out := make([]PropertyValue, rv.Len())
		for i := range out {
			*path = append(*path, PathIndex(i))
			pv, err := convert(rv.Index(i).Interface(), path)
			*path = (*path)[:len(*path)-1]
			if err != nil {
				return PropertyValue{}, err
			}
			out[i] = pv
		}
		return NewArray(out...), nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return PropertyValue{}, convErr(rv.Interface(), path, "map keys must be strings")
		}
		if rv.IsNil() {
			return NewNull(), nil
		}
		out := make(PropertyMap, rv.Len())
		iter := rv.MapRange()
		for iter.Next() {
			k := iter.Key().String()
			*path = append(*path, PathKey(k))
			pv, err := convert(iter.Value().Interface(), path)
			*path = (*path)[:len(*path)-1]
			if err != nil {
				return PropertyValue{}, err
			}
			out[PropertyKey(k)] = pv
		}
		return NewObject(out), nil
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return NewNull(), nil
		}
		return convert(rv.Elem().Interface(), path)
	case reflect.Struct:
		return convertStruct(rv, path)
	}
	return PropertyValue{}, convErr(rv.Interface(), path, "unsupported type")
}

// maxExactInt is 2^53: every integer of smaller magnitude is exact in a
// float64.
const maxExactInt = 1 << 53

func convertInt(i int64, orig any, path *PropertyPath) (PropertyValue, error) {
	f := float64(i)
	if (i > maxExactInt || i < -maxExactInt) && (f >= math.MaxInt64 || int64(f) != i) {
		return PropertyValue{}, convErr(orig, path, fmt.Sprintf("%d cannot be represented exactly as a number (float64)", i))
	}
	return NewNumber(f), nil
}

func convertUint(u uint64, orig any, path *PropertyPath) (PropertyValue, error) {
	f := float64(u)
	if u > maxExactInt && (f >= math.MaxUint64 || uint64(f) != u) {
		return PropertyValue{}, convErr(orig, path, fmt.Sprintf("%d cannot be represented exactly as a number (float64)", u))
	}
	return NewNumber(f), nil
}

func convErr(v any, path *PropertyPath, reason string) error {
	return &ConversionError{
		Path:   append(PropertyPath(nil), *path...),
		GoType: strings.TrimSpace(fmt.Sprintf("%T", v)),
		Reason: reason,
	}
}

// Mappable converts v back to plain Go values:
//
//   - null → nil; bool → bool; number → float64; string → string
//   - array → []any; object → map[string]any
//   - asset → *Asset; archive → *Archive
//   - resource reference → ResourceReference
//   - unknown, or an output that is not known → UnknownPlaceholder{}
//   - secret → the plain value it wraps (converted); known output → its
//     element (converted). Secretness and dependencies are dropped, so
//     treat the result as sensitive if v.ContainsSecrets().
func (v PropertyValue) Mappable() any {
	switch v.Kind() {
	case KindNull:
		return nil
	case KindBool:
		return v.BoolValue()
	case KindNumber:
		return v.num
	case KindString:
		return v.str
	case KindArray:
		a := v.ArrayValue()
		out := make([]any, len(a))
		for i, e := range a {
			out[i] = e.Mappable()
		}
		return out
	case KindObject:
		return v.ObjectValue().Mappable()
	case KindAsset:
		return v.AssetValue()
	case KindArchive:
		return v.ArchiveValue()
	case KindResourceReference:
		return v.ResourceReferenceValue()
	case KindUnknown:
		return UnknownPlaceholder{}
	case KindSecret:
		return v.SecretElement().Mappable()
	case KindOutput:
		o := v.ref.(*Output)
		if !o.Known {
			return UnknownPlaceholder{}
		}
		return o.Element.Mappable()
	}
	return nil
}

// Mappable converts m to a map of plain Go values as PropertyValue.Mappable
// does for each value. A nil map gives an empty map.
func (m PropertyMap) Mappable() map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[string(k)] = v.Mappable()
	}
	return out
}
