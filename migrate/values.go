package migrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// reader turns property values from Pulumi's encoding into groundwork's.
type reader struct {
	ctx context.Context
	// open returns the manager that opens the deployment's ciphertexts; it
	// is called at the first one.
	open func() (secrets.Manager, error)
}

// properties reads a property map. inSecret is set inside the plaintext of
// a secret, where Pulumi writes nested secrets unsealed.
func (r *reader) properties(m map[string]any, inSecret bool) (resource.PropertyMap, error) {
	out := make(resource.PropertyMap, len(m))
	for k, v := range m {
		pv, err := r.value(v, inSecret)
		if err != nil {
			return nil, fmt.Errorf("property %q: %w", k, err)
		}
		out[resource.PropertyKey(k)] = pv
	}
	return out, nil
}

func (r *reader) value(v any, inSecret bool) (resource.PropertyValue, error) {
	switch x := v.(type) {
	case nil:
		return resource.NewNull(), nil
	case bool:
		return resource.NewBool(x), nil
	case float64:
		return resource.NewNumber(x), nil
	case string:
		if x == unknownText {
			return resource.NewUnknown(), nil
		}
		return resource.NewString(x), nil
	case []any:
		elems := make([]resource.PropertyValue, len(x))
		for i, e := range x {
			ev, err := r.value(e, inSecret)
			if err != nil {
				return resource.PropertyValue{}, fmt.Errorf("element %d: %w", i, err)
			}
			elems[i] = ev
		}
		return resource.NewArray(elems...), nil
	case map[string]any:
		sig, tagged := x[sigKey]
		if !tagged {
			m, err := r.properties(x, inSecret)
			return resource.NewObject(m), err
		}
		return r.tagged(sig, x, inSecret)
	}
	return resource.PropertyValue{}, fmt.Errorf("a value of JSON type %T", v)
}

// tagged reads a value carrying a signature.
func (r *reader) tagged(sig any, x map[string]any, inSecret bool) (resource.PropertyValue, error) {
	switch sig {
	case sigSecret:
		return r.secret(x, inSecret)
	case sigAsset:
		a, err := readAsset(x)
		return resource.NewAssetValue(a), err
	case sigArchive:
		a, err := readArchive(x)
		return resource.NewArchiveValue(a), err
	case sigRef:
		return readRef(x)
	case sigFloat:
		hex, _ := x["value"].(string)
		bits, err := strconv.ParseUint(hex, 16, 64)
		if err != nil {
			return resource.PropertyValue{}, fmt.Errorf("a malformed special number %q", hex)
		}
		return resource.NewNumber(math.Float64frombits(bits)), nil
	}
	return resource.PropertyValue{}, fmt.Errorf("an unknown value signature %v", sig)
}

func (r *reader) secret(x map[string]any, inSecret bool) (resource.PropertyValue, error) {
	ct, hasCT := x["ciphertext"].(string)
	pt, hasPT := x["plaintext"].(string)
	if hasCT == hasPT {
		return resource.PropertyValue{}, errors.New("a malformed secret: it needs exactly one of ciphertext and plaintext")
	}
	if hasCT && !inSecret {
		mgr, err := r.open()
		if err != nil {
			return resource.PropertyValue{}, err
		}
		plain, err := mgr.Decrypt(r.ctx, ct)
		if err != nil {
			return resource.PropertyValue{}, fmt.Errorf("decrypting a secret: %w", err)
		}
		pt = string(plain)
		defer clear(plain)
	} else if hasCT {
		// Inside a secret Pulumi leaves nested secrets unsealed.
		pt = ct
	}
	var inner any
	if err := json.Unmarshal([]byte(pt), &inner); err != nil {
		return resource.PropertyValue{}, errors.New("a secret whose plaintext is not JSON")
	}
	v, err := r.value(inner, true)
	if err != nil {
		return resource.PropertyValue{}, fmt.Errorf("inside a secret: %w", err)
	}
	return resource.NewSecret(v), nil
}

func readAsset(x map[string]any) (*resource.Asset, error) {
	a := &resource.Asset{}
	for k, p := range map[string]*string{"hash": &a.Hash, "text": &a.Text, "path": &a.Path, "uri": &a.URI} {
		if v, ok := x[k]; ok {
			s, isString := v.(string)
			if !isString {
				return nil, fmt.Errorf("an asset whose %s is not a string", k)
			}
			*p = s
		}
	}
	return a, nil
}

func readArchive(x map[string]any) (*resource.Archive, error) {
	a := &resource.Archive{}
	for k, p := range map[string]*string{"hash": &a.Hash, "path": &a.Path, "uri": &a.URI} {
		if v, ok := x[k]; ok {
			s, isString := v.(string)
			if !isString {
				return nil, fmt.Errorf("an archive whose %s is not a string", k)
			}
			*p = s
		}
	}
	members, ok := x["assets"].(map[string]any)
	if !ok {
		return a, nil
	}
	a.Assets = make(map[string]resource.AssetOrArchive, len(members))
	for name, m := range members {
		mm, _ := m.(map[string]any)
		var err error
		switch mm[sigKey] {
		case sigAsset:
			var as *resource.Asset
			as, err = readAsset(mm)
			a.Assets[name] = resource.AssetOrArchive{Asset: as}
		case sigArchive:
			var ar *resource.Archive
			ar, err = readArchive(mm)
			a.Assets[name] = resource.AssetOrArchive{Archive: ar}
		default:
			err = errors.New("neither an asset nor an archive")
		}
		if err != nil {
			return nil, fmt.Errorf("archive member %q: %w", name, err)
		}
	}
	return a, nil
}

func readRef(x map[string]any) (resource.PropertyValue, error) {
	urn, ok := x["urn"].(string)
	if !ok {
		return resource.PropertyValue{}, errors.New("a resource reference without a URN")
	}
	ref := resource.ResourceReference{URN: resource.URN(urn)}
	ref.PackageVersion, _ = x["packageVersion"].(string)
	switch id := x["id"].(type) {
	case nil:
		// A component: no ID.
	case string:
		ref.ID = resource.ID(id)
		ref.IDUnknown = id == "" || id == unknownText
	default:
		return resource.PropertyValue{}, errors.New("a resource reference whose id is not a string")
	}
	return resource.NewResourceReference(ref), nil
}

// writer turns property values from groundwork's encoding into Pulumi's.
type writer struct {
	ctx context.Context
	// mgr seals secrets; nil when no passphrase was given.
	mgr secrets.Manager
}

var errNoPassphrase = errors.New("the stack holds secrets: give the Pulumi passphrase to seal them")

func (w *writer) properties(m resource.PropertyMap, inSecret bool) (map[string]any, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		x, err := w.value(v, inSecret)
		if err != nil {
			return nil, fmt.Errorf("property %q: %w", k, err)
		}
		out[string(k)] = x
	}
	return out, nil
}

func (w *writer) value(v resource.PropertyValue, inSecret bool) (any, error) {
	switch v.Kind() {
	case resource.KindNull:
		return nil, nil
	case resource.KindBool:
		return v.BoolValue(), nil
	case resource.KindString:
		return v.StringValue(), nil
	case resource.KindNumber:
		f := v.NumberValue()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return map[string]any{sigKey: sigFloat, "value": fmt.Sprintf("%016x", math.Float64bits(f))}, nil
		}
		return f, nil
	case resource.KindArray:
		elems := v.ArrayValue()
		out := make([]any, len(elems))
		for i, e := range elems {
			x, err := w.value(e, inSecret)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case resource.KindObject:
		return w.properties(v.ObjectValue(), inSecret)
	case resource.KindUnknown:
		return unknownText, nil
	case resource.KindOutput:
		o := v.OutputValue()
		switch {
		case !o.Known:
			return unknownText, nil
		case o.Secret:
			return w.value(resource.NewSecret(o.Element), inSecret)
		}
		return w.value(o.Element, inSecret)
	case resource.KindAsset:
		return writeAsset(v.AssetValue()), nil
	case resource.KindArchive:
		return writeArchive(v.ArchiveValue()), nil
	case resource.KindResourceReference:
		r := v.ResourceReferenceValue()
		out := map[string]any{sigKey: sigRef, "urn": string(r.URN), "packageVersion": r.PackageVersion}
		if r.ID != "" || r.IDUnknown {
			id := string(r.ID)
			if r.IDUnknown {
				id = ""
			}
			out["id"] = id
		}
		return out, nil
	case resource.KindSecret:
		return w.secret(v.SecretElement(), inSecret)
	}
	return nil, fmt.Errorf("a value of kind %s", v.Kind())
}

// secret seals a secret's element; inside another secret it is written
// unsealed, as Pulumi does (the outer one protects it).
func (w *writer) secret(elem resource.PropertyValue, inSecret bool) (any, error) {
	inner, err := w.value(elem, true)
	if err != nil {
		return nil, err
	}
	plain, err := json.Marshal(inner)
	if err != nil {
		return nil, err
	}
	defer clear(plain)
	if inSecret {
		return map[string]any{sigKey: sigSecret, "ciphertext": string(plain)}, nil
	}
	if w.mgr == nil {
		return nil, errNoPassphrase
	}
	ct, err := w.mgr.Encrypt(w.ctx, plain)
	if err != nil {
		return nil, fmt.Errorf("sealing a secret: %w", err)
	}
	return map[string]any{sigKey: sigSecret, "ciphertext": ct}, nil
}

func writeAsset(a *resource.Asset) map[string]any {
	out := map[string]any{sigKey: sigAsset}
	for k, v := range map[string]string{"hash": a.Hash, "text": a.Text, "path": a.Path, "uri": a.URI} {
		if v != "" {
			out[k] = v
		}
	}
	return out
}

func writeArchive(a *resource.Archive) map[string]any {
	out := map[string]any{sigKey: sigArchive}
	for k, v := range map[string]string{"hash": a.Hash, "path": a.Path, "uri": a.URI} {
		if v != "" {
			out[k] = v
		}
	}
	if a.Assets != nil {
		members := make(map[string]any, len(a.Assets))
		for name, m := range a.Assets {
			if m.Asset != nil {
				members[name] = writeAsset(m.Asset)
			} else if m.Archive != nil {
				members[name] = writeArchive(m.Archive)
			}
		}
		out["assets"] = members
	}
	return out
}
