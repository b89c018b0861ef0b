package state

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/groundwork-iac/groundwork/resource"
)

// This file reads the payloads of tagged property values (FORMAT.md,
// "Property values"); valueDecoder finds the tags.

// tagged decodes the payload of a "$" tag.
func (d *valueDecoder) tagged(ctx context.Context, tag string, payload []byte, depth int) (resource.PropertyValue, error) {
	var zero resource.PropertyValue
	bad := func(what string, err error) (resource.PropertyValue, error) {
		if err != nil {
			return zero, fmt.Errorf("property value: malformed %s: %w", what, err)
		}
		return zero, fmt.Errorf("property value: malformed %s", what)
	}
	switch tag {
	case tagObject:
		sub := valueDecoder{data: payload, mgr: d.mgr}
		sub.space()
		if sub.pos >= len(payload) || payload[sub.pos] != '{' {
			return bad(tagObject, nil)
		}
		sub.pos++
		m, err := sub.members(ctx, depth)
		if err == nil {
			sub.space()
			if sub.pos != len(payload) {
				err = sub.fail("unexpected data")
			}
		}
		if err != nil {
			return bad(tagObject, err)
		}
		return resource.NewObject(m), nil
	case tagSecret:
		var ct string
		if err := json.Unmarshal(payload, &ct); err != nil {
			return bad(tagSecret, err)
		}
		v, err := d.unseal(ctx, ct, depth)
		if err != nil {
			return zero, err
		}
		return resource.NewSecret(v), nil
	case tagNumber:
		var s string
		if err := json.Unmarshal(payload, &s); err != nil {
			return bad(tagNumber, err)
		}
		switch s {
		case "NaN":
			return resource.NewNumber(math.NaN()), nil
		case "+Inf":
			return resource.NewNumber(math.Inf(1)), nil
		case "-Inf":
			return resource.NewNumber(math.Inf(-1)), nil
		}
		return bad(tagNumber, nil)
	case tagUnknown:
		if string(payload) != "true" {
			return bad(tagUnknown, nil)
		}
		return resource.NewUnknown(), nil
	case tagAsset:
		var a *resource.Asset
		if err := json.Unmarshal(payload, &a); err != nil || a == nil {
			return bad(tagAsset, err)
		}
		return resource.NewAssetValue(a), nil
	case tagArchive:
		var w *wireArchive
		if err := json.Unmarshal(payload, &w); err != nil || w == nil {
			return bad(tagArchive, err)
		}
		return resource.NewArchiveValue(w.archive()), nil
	case tagRef:
		var r *wireRef
		if err := json.Unmarshal(payload, &r); err != nil || r == nil || r.URN == "" {
			return bad(tagRef, err)
		}
		return resource.NewResourceReference(resource.ResourceReference{
			URN: r.URN, ID: r.ID, IDUnknown: r.IDUnknown, PackageVersion: r.PackageVersion,
		}), nil
	case tagOutput:
		return d.output(ctx, payload, depth)
	}
	return zero, fmt.Errorf("property value: unknown tag %q", tag)
}

func (d *valueDecoder) output(ctx context.Context, payload []byte, depth int) (resource.PropertyValue, error) {
	var w *wireOutput
	if err := json.Unmarshal(payload, &w); err != nil || w == nil {
		return resource.PropertyValue{}, fmt.Errorf("property value: malformed %s: %v", tagOutput, err)
	}
	o := resource.Output{Known: w.Known, Secret: w.Secret, Dependencies: w.Dependencies}
	switch {
	case w.Known && w.Secret:
		v, err := d.unseal(ctx, w.Ciphertext, depth)
		if err != nil {
			return v, err
		}
		o.Element = v
	case w.Known && w.Value != nil:
		sub := valueDecoder{data: w.Value, mgr: d.mgr}
		v, err := sub.document(ctx, depth+1)
		if err != nil {
			return v, err
		}
		o.Element = v
	}
	return resource.NewOutput(o), nil
}

// unseal decrypts a ciphertext and decodes the value inside. Errors never
// quote the plaintext.
func (d *valueDecoder) unseal(ctx context.Context, ct string, depth int) (resource.PropertyValue, error) {
	if d.mgr == nil {
		return resource.PropertyValue{}, ErrNoSecretsManager
	}
	pt, err := d.mgr.Decrypt(ctx, ct)
	if err != nil {
		return resource.PropertyValue{}, fmt.Errorf("decrypting a secret value: %w", err)
	}
	defer clear(pt)
	sub := valueDecoder{data: pt, mgr: d.mgr}
	v, err := sub.document(ctx, depth+1)
	if err != nil {
		return v, fmt.Errorf("a decrypted secret value is malformed (its content is not shown)")
	}
	return v, nil
}

type wireRef struct {
	URN            resource.URN `json:"urn"`
	ID             resource.ID  `json:"id"`
	IDUnknown      bool         `json:"idUnknown"`
	PackageVersion string       `json:"packageVersion"`
}

type wireOutput struct {
	Known        bool            `json:"known"`
	Secret       bool            `json:"secret"`
	Value        json.RawMessage `json:"value"`
	Ciphertext   string          `json:"ciphertext"`
	Dependencies []resource.URN  `json:"dependencies"`
}

// wireArchive mirrors resource.Archive but keeps an empty member map
// distinct from none.
type wireArchive struct {
	Hash   string                 `json:"hash"`
	Assets *map[string]wireMember `json:"assets"`
	Path   string                 `json:"path"`
	URI    string                 `json:"uri"`
}

type wireMember struct {
	Asset   *resource.Asset `json:"asset"`
	Archive *wireArchive    `json:"archive"`
}

func (w *wireArchive) archive() *resource.Archive {
	a := &resource.Archive{Hash: w.Hash, Path: w.Path, URI: w.URI}
	if w.Assets != nil {
		a.Assets = make(map[string]resource.AssetOrArchive, len(*w.Assets))
		for n, m := range *w.Assets {
			var aa resource.AssetOrArchive
			aa.Asset = m.Asset
			if m.Archive != nil {
				aa.Archive = m.Archive.archive()
			}
			a.Assets[n] = aa
		}
	}
	return a
}
