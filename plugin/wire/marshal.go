package wire

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/groundwork-iac/groundwork/resource"
)

// Error is a value that cannot be converted, and where it is.
type Error struct {
	// Path locates the value from the top of what was converted, in
	// property path syntax ("a.b[0]"); "" for the top itself.
	Path   string
	Reason string
}

// Error gives the path and the reason.
func (e *Error) Error() string {
	if e.Path == "" {
		return "wire: " + e.Reason
	}
	return "wire: property " + e.Path + ": " + e.Reason
}

// errorf returns an *Error at the current position.
func errorf(format string, args ...any) error {
	return &Error{Reason: fmt.Sprintf(format, args...)}
}

// atKey and atIndex prefix err's path with a map key or array index as the
// error unwinds out of a nested value.
func atKey(key string, err error) error {
	if isSimpleKey(key) {
		return prefix(key, err)
	}
	return prefix("["+strconv.Quote(key)+"]", err)
}

func atIndex(i int, err error) error { return prefix("["+strconv.Itoa(i)+"]", err) }

func prefix(seg string, err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	if e.Path != "" && e.Path[0] != '[' {
		seg += "."
	}
	return &Error{Path: seg + e.Path, Reason: e.Reason}
}

func isSimpleKey(k string) bool {
	if k == "" {
		return false
	}
	for i, r := range k {
		letter := r == '_' || r == '$' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// MarshalProperties converts m to its wire form. A nil map gives an empty
// struct.
func MarshalProperties(m resource.PropertyMap, opts Options) (*structpb.Struct, error) {
	fields := make(map[string]*structpb.Value, len(m))
	for _, k := range m.StableKeys() {
		v := m[k]
		if opts.SkipNulls && v.IsNull() {
			continue
		}
		if !utf8.ValidString(string(k)) {
			return nil, errorf("key %q is not valid UTF-8", string(k))
		}
		if string(k) == SignatureKey {
			return nil, errorf("an object may not have the reserved key %s", SignatureKey)
		}
		w, ok, err := marshal(v, opts)
		if err != nil {
			return nil, atKey(string(k), err)
		}
		if ok {
			fields[string(k)] = w
		}
	}
	return &structpb.Struct{Fields: fields}, nil
}

// MarshalValue converts v to its wire form. A value the options drop (an
// unknown without KeepUnknowns) gives null.
func MarshalValue(v resource.PropertyValue, opts Options) (*structpb.Value, error) {
	w, ok, err := marshal(v, opts)
	if err != nil {
		return nil, err
	}
	if !ok {
		return structpb.NewNullValue(), nil
	}
	return w, nil
}

// marshal converts v; ok is false when the options drop it.
func marshal(v resource.PropertyValue, opts Options) (_ *structpb.Value, ok bool, _ error) {
	switch v.Kind() {
	case resource.KindNull:
		return structpb.NewNullValue(), true, nil
	case resource.KindBool:
		return structpb.NewBoolValue(v.BoolValue()), true, nil
	case resource.KindNumber:
		return structpb.NewNumberValue(v.NumberValue()), true, nil
	case resource.KindString:
		if !utf8.ValidString(v.StringValue()) {
			return nil, false, errorf("string is not valid UTF-8")
		}
		return structpb.NewStringValue(v.StringValue()), true, nil
	case resource.KindArray:
		elems := v.ArrayValue()
		list := make([]*structpb.Value, len(elems))
		for i, e := range elems {
			w, err := MarshalValue(e, opts)
			if err != nil {
				return nil, false, atIndex(i, err)
			}
			list[i] = w
		}
		return structpb.NewListValue(&structpb.ListValue{Values: list}), true, nil
	case resource.KindObject:
		s, err := MarshalProperties(v.ObjectValue(), opts)
		if err != nil {
			return nil, false, err
		}
		return structpb.NewStructValue(s), true, nil
	case resource.KindAsset:
		w, err := marshalAsset(v.AssetValue())
		return w, err == nil, err
	case resource.KindArchive:
		w, err := marshalArchive(v.ArchiveValue())
		return w, err == nil, err
	case resource.KindResourceReference:
		return marshalReference(v.ResourceReferenceValue(), opts)
	case resource.KindUnknown:
		if !opts.KeepUnknowns {
			return nil, false, nil
		}
		return structpb.NewStringValue(UnknownStringValue), true, nil
	case resource.KindSecret:
		return marshalSecret(v.SecretElement(), opts)
	case resource.KindOutput:
		return marshalOutput(v.OutputValue(), opts)
	}
	return nil, false, errorf("unsupported kind %v", v.Kind())
}

func signed(sig string, fields map[string]*structpb.Value) *structpb.Value {
	fields[SignatureKey] = structpb.NewStringValue(sig)
	return structpb.NewStructValue(&structpb.Struct{Fields: fields})
}

// putString sets fields[key] to s unless s is empty.
func putString(fields map[string]*structpb.Value, key, s string) error {
	if s == "" {
		return nil
	}
	if !utf8.ValidString(s) {
		return errorf("%s is not valid UTF-8", key)
	}
	fields[key] = structpb.NewStringValue(s)
	return nil
}

func marshalSecret(elem resource.PropertyValue, opts Options) (*structpb.Value, bool, error) {
	w, ok, err := marshal(elem, opts)
	if err != nil || !ok || !opts.KeepSecrets {
		return w, ok, err
	}
	return signed(SecretSig, map[string]*structpb.Value{"value": w}), true, nil
}

func marshalAsset(a *resource.Asset) (*structpb.Value, error) {
	if a == nil {
		return nil, errorf("asset is nil")
	}
	fields := map[string]*structpb.Value{}
	for _, f := range [...]struct{ key, val string }{{"hash", a.Hash}, {"text", a.Text}, {"path", a.Path}, {"uri", a.URI}} {
		if err := putString(fields, f.key, f.val); err != nil {
			return nil, errorf("asset: %s", err.(*Error).Reason)
		}
	}
	return signed(AssetSig, fields), nil
}

func marshalArchive(a *resource.Archive) (*structpb.Value, error) {
	if a == nil {
		return nil, errorf("archive is nil")
	}
	fields := map[string]*structpb.Value{}
	for _, f := range [...]struct{ key, val string }{{"hash", a.Hash}, {"path", a.Path}, {"uri", a.URI}} {
		if err := putString(fields, f.key, f.val); err != nil {
			return nil, errorf("archive: %s", err.(*Error).Reason)
		}
	}
	if a.Assets != nil {
		members := make(map[string]*structpb.Value, len(a.Assets))
		for name, m := range a.Assets {
			if !utf8.ValidString(name) {
				return nil, errorf("archive member name %q is not valid UTF-8", name)
			}
			var (
				w   *structpb.Value
				err error
			)
			switch {
			case m.Asset != nil && m.Archive == nil:
				w, err = marshalAsset(m.Asset)
			case m.Archive != nil && m.Asset == nil:
				w, err = marshalArchive(m.Archive)
			default:
				err = errorf("archive member must be exactly one of an asset and an archive")
			}
			if err != nil {
				return nil, atKey("assets", atKey(name, err))
			}
			members[name] = w
		}
		fields["assets"] = structpb.NewStructValue(&structpb.Struct{Fields: members})
	}
	return signed(ArchiveSig, fields), nil
}

// isCustom reports whether r refers to a custom resource (one with an ID).
func isCustom(r resource.ResourceReference) bool { return r.ID != "" || r.IDUnknown }

func marshalReference(r resource.ResourceReference, opts Options) (*structpb.Value, bool, error) {
	if !opts.KeepResources {
		switch {
		case r.IDUnknown:
			return marshal(resource.NewUnknown(), opts)
		case r.ID != "":
			return marshal(resource.NewString(string(r.ID)), opts)
		}
		return marshal(resource.NewString(string(r.URN)), opts)
	}
	fields := map[string]*structpb.Value{"urn": structpb.NewStringValue(string(r.URN))}
	if !utf8.ValidString(string(r.URN)) {
		return nil, false, errorf("resource reference: urn is not valid UTF-8")
	}
	if isCustom(r) {
		id := string(r.ID)
		if r.IDUnknown {
			id = "" // an empty ID on the wire is an unknown one
		}
		if !utf8.ValidString(id) {
			return nil, false, errorf("resource reference: id is not valid UTF-8")
		}
		fields["id"] = structpb.NewStringValue(id)
	}
	if err := putString(fields, "packageVersion", r.PackageVersion); err != nil {
		return nil, false, errorf("resource reference: %s", err.(*Error).Reason)
	}
	return signed(ResourceReferenceSig, fields), true, nil
}

func marshalOutput(o resource.Output, opts Options) (*structpb.Value, bool, error) {
	known := o.Known && !o.Element.IsUnknown()
	if !opts.KeepOutputValues {
		elem := o.Element
		if !known {
			elem = resource.NewUnknown()
		}
		if o.Secret {
			elem = resource.NewSecret(elem)
		}
		return marshal(elem, opts)
	}
	fields := map[string]*structpb.Value{}
	if known {
		w, err := MarshalValue(o.Element, opts)
		if err != nil {
			return nil, false, atKey("value", err)
		}
		fields["value"] = w
	}
	if o.Secret {
		fields["secret"] = structpb.NewBoolValue(true)
	}
	if len(o.Dependencies) > 0 {
		deps := make([]*structpb.Value, len(o.Dependencies))
		for i, d := range o.Dependencies {
			if !utf8.ValidString(string(d)) {
				return nil, false, errorf("output value: dependency %d is not valid UTF-8", i)
			}
			deps[i] = structpb.NewStringValue(string(d))
		}
		fields["dependencies"] = structpb.NewListValue(&structpb.ListValue{Values: deps})
	}
	return signed(OutputValueSig, fields), true, nil
}

// describeKind names a wire value's kind for error messages.
func describeKind(v *structpb.Value) string {
	switch v.GetKind().(type) {
	case *structpb.Value_BoolValue:
		return "a bool"
	case *structpb.Value_NumberValue:
		return "a number"
	case *structpb.Value_StringValue:
		return "a string"
	case *structpb.Value_ListValue:
		return "an array"
	case *structpb.Value_StructValue:
		return "an object"
	}
	return "null"
}
