package wire

import (
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/groundwork-iac/groundwork/resource"
)

// UnmarshalProperties converts a wire struct to a property map. A nil
// struct gives an empty map.
func UnmarshalProperties(s *structpb.Struct, opts Options) (resource.PropertyMap, error) {
	m := make(resource.PropertyMap, len(s.GetFields()))
	for k, w := range s.GetFields() {
		v, ok, err := unmarshal(w, opts)
		if err != nil {
			return nil, atKey(k, err)
		}
		if ok {
			m[resource.PropertyKey(k)] = v
		}
	}
	return m, nil
}

// UnmarshalValue converts a wire value to a property value. A value the
// options drop (an unknown without KeepUnknowns) gives null.
func UnmarshalValue(w *structpb.Value, opts Options) (resource.PropertyValue, error) {
	v, _, err := unmarshal(w, opts)
	return v, err
}

// unmarshal converts w; ok is false when the options drop it.
func unmarshal(w *structpb.Value, opts Options) (_ resource.PropertyValue, ok bool, _ error) {
	switch k := w.GetKind().(type) {
	case nil, *structpb.Value_NullValue:
		return resource.NewNull(), true, nil
	case *structpb.Value_BoolValue:
		return resource.NewBool(k.BoolValue), true, nil
	case *structpb.Value_NumberValue:
		return resource.NewNumber(k.NumberValue), true, nil
	case *structpb.Value_StringValue:
		if IsUnknownSentinel(k.StringValue) {
			return unknown(opts)
		}
		return resource.NewString(k.StringValue), true, nil
	case *structpb.Value_ListValue:
		list := k.ListValue.GetValues()
		elems := make([]resource.PropertyValue, len(list))
		for i, e := range list {
			v, err := UnmarshalValue(e, opts)
			if err != nil {
				return resource.PropertyValue{}, false, atIndex(i, err)
			}
			elems[i] = v
		}
		return resource.NewArray(elems...), true, nil
	case *structpb.Value_StructValue:
		return unmarshalObject(k.StructValue, opts)
	}
	return resource.PropertyValue{}, false, errorf("unsupported wire value %T", w.GetKind())
}

func unknown(opts Options) (resource.PropertyValue, bool, error) {
	if !opts.KeepUnknowns {
		return resource.PropertyValue{}, false, nil
	}
	return resource.NewUnknown(), true, nil
}

func unmarshalObject(s *structpb.Struct, opts Options) (resource.PropertyValue, bool, error) {
	sigv, signed := s.GetFields()[SignatureKey]
	if !signed {
		m, err := UnmarshalProperties(s, opts)
		if err != nil {
			return resource.PropertyValue{}, false, err
		}
		return resource.NewObject(m), true, nil
	}
	sig, isString := sigv.GetKind().(*structpb.Value_StringValue)
	if !isString {
		return resource.PropertyValue{}, false, errorf("the signature key %s holds %s, want a signature string", SignatureKey, describeKind(sigv))
	}
	switch sig.StringValue {
	case SecretSig:
		return unmarshalSecret(s, opts)
	case AssetSig:
		a, err := unmarshalAsset(s)
		if err != nil {
			return resource.PropertyValue{}, false, err
		}
		return resource.NewAssetValue(a), true, nil
	case ArchiveSig:
		a, err := unmarshalArchive(s)
		if err != nil {
			return resource.PropertyValue{}, false, err
		}
		return resource.NewArchiveValue(a), true, nil
	case ResourceReferenceSig:
		return unmarshalReference(s, opts)
	case OutputValueSig:
		return unmarshalOutput(s, opts)
	}
	return resource.PropertyValue{}, false, errorf("unrecognized signature %q", sig.StringValue)
}

func unmarshalSecret(s *structpb.Struct, opts Options) (resource.PropertyValue, bool, error) {
	elem, ok, err := unmarshal(s.GetFields()["value"], opts)
	if err != nil {
		return resource.PropertyValue{}, false, atKey("value", err)
	}
	if !ok || !opts.KeepSecrets {
		return elem, ok, nil
	}
	return resource.NewSecret(elem), true, nil
}

// stringField returns the string s holds at key ("" when absent), and
// whether it is present; a present non-string is an error.
func stringField(s *structpb.Struct, what, key string) (string, bool, error) {
	w, ok := s.GetFields()[key]
	if !ok {
		return "", false, nil
	}
	str, isString := w.GetKind().(*structpb.Value_StringValue)
	if !isString {
		return "", true, errorf("malformed %s: %s is %s, want a string", what, key, describeKind(w))
	}
	return str.StringValue, true, nil
}

func stringFields(s *structpb.Struct, what string, keys ...string) ([]string, error) {
	out := make([]string, len(keys))
	for i, k := range keys {
		str, _, err := stringField(s, what, k)
		if err != nil {
			return nil, err
		}
		out[i] = str
	}
	return out, nil
}

func unmarshalAsset(s *structpb.Struct) (*resource.Asset, error) {
	f, err := stringFields(s, "asset", "hash", "text", "path", "uri")
	if err != nil {
		return nil, err
	}
	return &resource.Asset{Hash: f[0], Text: f[1], Path: f[2], URI: f[3]}, nil
}

func unmarshalArchive(s *structpb.Struct) (*resource.Archive, error) {
	f, err := stringFields(s, "archive", "hash", "path", "uri")
	if err != nil {
		return nil, err
	}
	a := &resource.Archive{Hash: f[0], Path: f[1], URI: f[2]}
	w, ok := s.GetFields()["assets"]
	if !ok {
		return a, nil
	}
	members, isStruct := w.GetKind().(*structpb.Value_StructValue)
	if !isStruct {
		return nil, errorf("malformed archive: assets is %s, want an object", describeKind(w))
	}
	a.Assets = make(map[string]resource.AssetOrArchive, len(members.StructValue.GetFields()))
	for name, mw := range members.StructValue.GetFields() {
		m, err := unmarshalMember(mw)
		if err != nil {
			return nil, atKey("assets", atKey(name, err))
		}
		a.Assets[name] = m
	}
	return a, nil
}

func unmarshalMember(w *structpb.Value) (resource.AssetOrArchive, error) {
	ms, isStruct := w.GetKind().(*structpb.Value_StructValue)
	var sig string
	if isStruct {
		sig, _, _ = stringField(ms.StructValue, "", SignatureKey)
	}
	switch sig {
	case AssetSig:
		a, err := unmarshalAsset(ms.StructValue)
		return resource.AssetOrArchive{Asset: a}, err
	case ArchiveSig:
		a, err := unmarshalArchive(ms.StructValue)
		return resource.AssetOrArchive{Archive: a}, err
	}
	return resource.AssetOrArchive{}, errorf("malformed archive member: %s, want an asset or an archive", describeKind(w))
}

func unmarshalReference(s *structpb.Struct, opts Options) (resource.PropertyValue, bool, error) {
	urn, hasURN, err := stringField(s, "resource reference", "urn")
	if err != nil {
		return resource.PropertyValue{}, false, err
	}
	if !hasURN {
		return resource.PropertyValue{}, false, errorf("malformed resource reference: no urn")
	}
	id, custom, err := stringField(s, "resource reference", "id")
	if err != nil {
		return resource.PropertyValue{}, false, err
	}
	version, _, err := stringField(s, "resource reference", "packageVersion")
	if err != nil {
		return resource.PropertyValue{}, false, err
	}
	r := resource.ResourceReference{URN: resource.URN(urn), PackageVersion: version}
	if custom {
		if id == "" || IsUnknownSentinel(id) {
			r.IDUnknown = true
		} else {
			r.ID = resource.ID(id)
		}
	}
	if opts.KeepResources {
		return resource.NewResourceReference(r), true, nil
	}
	switch {
	case r.IDUnknown:
		return unknown(opts)
	case custom:
		return resource.NewString(id), true, nil
	}
	return resource.NewString(urn), true, nil
}

func unmarshalOutput(s *structpb.Struct, opts Options) (resource.PropertyValue, bool, error) {
	var o resource.Output
	if w, ok := s.GetFields()["value"]; ok && !isSentinel(w) {
		elem, err := UnmarshalValue(w, opts)
		if err != nil {
			return resource.PropertyValue{}, false, atKey("value", err)
		}
		o.Element, o.Known = elem, !elem.IsUnknown()
	}
	if w, ok := s.GetFields()["secret"]; ok {
		b, isBool := w.GetKind().(*structpb.Value_BoolValue)
		if !isBool {
			return resource.PropertyValue{}, false, errorf("malformed output value: secret is %s, want a bool", describeKind(w))
		}
		o.Secret = b.BoolValue
	}
	if w, ok := s.GetFields()["dependencies"]; ok {
		list, isList := w.GetKind().(*structpb.Value_ListValue)
		if !isList {
			return resource.PropertyValue{}, false, errorf("malformed output value: dependencies is %s, want an array", describeKind(w))
		}
		for i, d := range list.ListValue.GetValues() {
			str, isString := d.GetKind().(*structpb.Value_StringValue)
			if !isString {
				return resource.PropertyValue{}, false, errorf("malformed output value: dependency %d is %s, want a URN string", i, describeKind(d))
			}
			o.Dependencies = append(o.Dependencies, resource.URN(str.StringValue))
		}
	}
	if opts.KeepOutputValues {
		return resource.NewOutput(o), true, nil
	}
	if !o.Known {
		v, ok, err := unknown(opts)
		if ok && o.Secret && opts.KeepSecrets {
			v = resource.NewSecret(v)
		}
		return v, ok, err
	}
	if o.Secret && opts.KeepSecrets {
		return resource.NewSecret(o.Element), true, nil
	}
	return o.Element, true, nil
}

// isSentinel reports whether w is an unknown sentinel string.
func isSentinel(w *structpb.Value) bool {
	str, ok := w.GetKind().(*structpb.Value_StringValue)
	return ok && IsUnknownSentinel(str.StringValue)
}
