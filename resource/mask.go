package resource

// maskedSecret stands in for every secret MaskSecrets masks.
var maskedSecret = NewSecret(NewString(Masked))

// MaskSecrets returns m with the value of every secret replaced by
// Masked, still marked secret, however deeply it is nested (in arrays,
// objects and outputs; a secret output is masked whole). A map without
// secrets is returned as it is; otherwise m is not changed. It is how
// secret values are shown where their plaintext must not go (events,
// messages).
func (m PropertyMap) MaskSecrets() PropertyMap {
	if !m.ContainsSecrets() {
		return m
	}
	out := make(PropertyMap, len(m))
	for k, v := range m {
		out[k] = v.MaskSecrets()
	}
	return out
}

// MaskSecrets returns v with every secret it holds masked, as
// PropertyMap.MaskSecrets does.
func (v PropertyValue) MaskSecrets() PropertyValue {
	switch {
	case !v.ContainsSecrets():
		return v
	case v.IsSecret():
		return maskedSecret
	case v.IsArray():
		a := v.ArrayValue()
		out := make([]PropertyValue, len(a))
		for i, e := range a {
			out[i] = e.MaskSecrets()
		}
		return NewArray(out...)
	case v.IsObject():
		return NewObject(v.ObjectValue().MaskSecrets())
	case v.IsOutput():
		o := v.OutputValue()
		if o.Secret {
			return maskedSecret
		}
		o.Element = o.Element.MaskSecrets()
		return NewOutput(o)
	}
	return v
}
