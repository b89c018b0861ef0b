package format

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/groundwork-iac/groundwork/state"

	"github.com/groundwork-iac/groundwork/resource"
)

// This file reads property values written by valueEncoder (FORMAT.md,
// "Property values"): plain JSON for plain values, and an object with a
// single "$"-key (a tag) for every other kind.

// propertyMap reads a property map (a null reads as a nil map).
func (d *decoder) propertyMap(ctx context.Context) (resource.PropertyMap, error) {
	if d.null() {
		return nil, nil
	}
	v, err := d.value(ctx, 0)
	if err != nil {
		return nil, err
	}
	if !v.IsObject() {
		return nil, d.fail("want an object of properties, found %s", v.Kind())
	}
	return v.ObjectValue(), nil
}

func (d *decoder) value(ctx context.Context, depth int) (resource.PropertyValue, error) {
	var zero resource.PropertyValue
	if depth > maxValueDepth {
		return zero, d.fail("values nest deeper than %d", maxValueDepth)
	}
	switch c := d.peek(); {
	case c == 'n' && d.literal("null"):
		return resource.NewNull(), nil
	case c == 't' && d.literal("true"):
		return resource.NewBool(true), nil
	case c == 'f' && d.literal("false"):
		return resource.NewBool(false), nil
	case c == '"':
		s, err := d.string()
		return resource.NewString(s), err
	case c == '-' || (c >= '0' && c <= '9'):
		f, err := d.number()
		return resource.NewNumber(f), err
	case c == '[':
		var elems []resource.PropertyValue
		err := d.eachElement(func() error {
			v, err := d.value(ctx, depth+1)
			elems = append(elems, v)
			return err
		})
		return resource.NewArray(elems...), err
	case c == '{':
		return d.object(ctx, depth)
	case c == 0:
		return zero, d.fail("unexpected end of input")
	}
	return zero, d.fail("unexpected character %q", d.data[d.pos])
}

// object reads an object value: a tag, or a plain object.
func (d *decoder) object(ctx context.Context, depth int) (resource.PropertyValue, error) {
	start := d.pos
	d.pos++ // '{'
	if d.peek() == '"' && d.pos+1 < len(d.data) && d.data[d.pos+1] == '$' {
		// Perhaps a tag: exactly one member, with a "$" key.
		key, err := d.rawString()
		if err != nil {
			return resource.PropertyValue{}, err
		}
		tag := d.intern(key)
		if !d.consume(':') {
			return resource.PropertyValue{}, d.fail("want ':' after a member name")
		}
		payload, err := d.raw(depth + 1)
		if err != nil {
			return resource.PropertyValue{}, err
		}
		if d.consume('}') {
			v, err := d.sub(payload).Tagged(ctx, tag, depth+1)
			if err != nil {
				return v, fmt.Errorf("a %s value: %w", tag, err)
			}
			return v, nil
		}
	}
	d.pos = start // an ordinary object
	m, err := d.members(ctx, depth)
	return resource.NewObject(m), err
}

// members reads a plain object, never interpreting its keys as tags.
func (d *decoder) members(ctx context.Context, depth int) (resource.PropertyMap, error) {
	m := resource.PropertyMap{}
	err := d.eachMember(func(key string) error {
		k := resource.PropertyKey(d.intern(key))
		v, err := d.value(ctx, depth+1)
		m[k] = v
		return err
	})
	return m, err
}

// tagged reads the payload of a tag; d holds exactly the payload.
func (d *decoder) Tagged(ctx context.Context, tag string, depth int) (resource.PropertyValue, error) {
	var v resource.PropertyValue
	var err error
	switch tag {
	case tagObject:
		if d.peek() != '{' {
			return v, d.fail("want an object")
		}
		var m resource.PropertyMap
		m, err = d.members(ctx, depth)
		v = resource.NewObject(m)
	case tagSecret:
		var ct string
		if ct, err = d.str(); err == nil {
			if v, err = d.unseal(ctx, ct, depth); err == nil {
				v = resource.NewSecret(v)
			}
		}
	case tagNumber:
		var s string
		s, err = d.str()
		switch s {
		case "NaN":
			v = resource.NewNumber(math.NaN())
		case "+Inf":
			v = resource.NewNumber(math.Inf(1))
		case "-Inf":
			v = resource.NewNumber(math.Inf(-1))
		default:
			err = errors.New(`want "NaN", "+Inf" or "-Inf"`)
		}
	case tagUnknown:
		if !d.literal("true") {
			err = errors.New("want true")
		}
		d.scope.unknowns = true
		v = resource.NewUnknown()
	case tagAsset:
		var a *resource.Asset
		a, err = d.asset()
		v = resource.NewAssetValue(a)
	case tagArchive:
		var a *resource.Archive
		a, err = d.archive(depth)
		v = resource.NewArchiveValue(a)
	case tagRef:
		v, err = d.ref()
	case tagOutput:
		v, err = d.output(ctx, depth)
	default:
		return v, errors.New("unknown tag")
	}
	if err == nil {
		err = d.end()
	}
	return v, err
}

func (d *decoder) asset() (*resource.Asset, error) {
	a := &resource.Asset{}
	err := d.eachMember(func(key string) (err error) {
		switch key {
		case "hash":
			a.Hash, err = d.str()
		case "text":
			a.Text, err = d.str()
		case "path":
			a.Path, err = d.str()
		case "uri":
			a.URI, err = d.str()
		default:
			err = d.skip(0)
		}
		return err
	})
	return a, err
}

func (d *decoder) archive(depth int) (*resource.Archive, error) {
	if depth > maxValueDepth {
		return nil, d.fail("archives nest deeper than %d", maxValueDepth)
	}
	a := &resource.Archive{}
	err := d.eachMember(func(key string) (err error) {
		switch key {
		case "hash":
			a.Hash, err = d.str()
		case "path":
			a.Path, err = d.str()
		case "uri":
			a.URI, err = d.str()
		case "assets":
			if d.null() {
				return nil
			}
			a.Assets = map[string]resource.AssetOrArchive{}
			err = d.eachMember(func(name string) error {
				n := string(name)
				m, err := d.archiveMember(depth)
				a.Assets[n] = m
				return err
			})
		default:
			err = d.skip(depth)
		}
		return err
	})
	return a, err
}

// archiveMember reads {"asset": ...} or {"archive": ...}: one, not both.
func (d *decoder) archiveMember(depth int) (resource.AssetOrArchive, error) {
	var m resource.AssetOrArchive
	err := d.eachMember(func(key string) (err error) {
		switch key {
		case "asset":
			m.Asset, err = d.asset()
		case "archive":
			m.Archive, err = d.archive(depth + 1)
		default:
			err = d.skip(depth)
		}
		return err
	})
	if err == nil && m.Asset != nil && m.Archive != nil {
		err = errors.New("an archive member is both an asset and an archive")
	}
	return m, err
}

func (d *decoder) ref() (resource.PropertyValue, error) {
	var r resource.ResourceReference
	err := d.eachMember(func(key string) (err error) {
		var s string
		switch key {
		case "urn":
			s, err = d.name()
			r.URN = resource.URN(s)
		case "id":
			s, err = d.str()
			r.ID = resource.ID(s)
		case "idUnknown":
			r.IDUnknown, err = d.flag()
		case "packageVersion":
			r.PackageVersion, err = d.str()
		default:
			err = d.skip(0)
		}
		return err
	})
	if err == nil && r.URN == "" {
		err = errors.New("a resource reference needs a URN")
	}
	d.scope.unknowns = d.scope.unknowns || r.IDUnknown
	return resource.NewResourceReference(r), err
}

func (d *decoder) output(ctx context.Context, depth int) (resource.PropertyValue, error) {
	var o resource.Output
	var value, ciphertext string
	hasValue := false
	err := d.eachMember(func(key string) (err error) {
		switch key {
		case "known":
			o.Known, err = d.flag()
		case "secret":
			o.Secret, err = d.flag()
		case "value":
			value, err = d.raw(depth + 1)
			hasValue = true
		case "ciphertext":
			ciphertext, err = d.str()
		case "dependencies":
			var deps []string
			deps, err = d.strs(true)
			for _, u := range deps {
				o.Dependencies = append(o.Dependencies, resource.URN(u))
			}
		default:
			err = d.skip(depth)
		}
		return err
	})
	if err != nil {
		return resource.PropertyValue{}, err
	}
	d.scope.unknowns = d.scope.unknowns || !o.Known
	switch {
	case o.Known && o.Secret:
		o.Element, err = d.unseal(ctx, ciphertext, depth)
	case o.Known && hasValue:
		sub := d.sub(value)
		if o.Element, err = sub.value(ctx, depth+1); err == nil {
			err = sub.end()
		}
	}
	return resource.NewOutput(o), err
}

// unseal decrypts a ciphertext and reads the value inside. Errors never
// quote the plaintext.
func (d *decoder) unseal(ctx context.Context, ct string, depth int) (resource.PropertyValue, error) {
	if d.mgr == nil {
		return resource.PropertyValue{}, state.ErrNoSecretsManager
	}
	pt, err := d.mgr.Decrypt(ctx, ct)
	if err != nil {
		return resource.PropertyValue{}, fmt.Errorf("decrypting a secret value: %w", err)
	}
	// The value is read from a string copy of the plaintext and its
	// strings share that copy, which nothing else holds: one copy, kept as
	// the value, and no other left behind once pt is cleared.
	defer clear(pt)
	sub := d.sub(string(pt))
	sub.share = true
	v, err := sub.value(ctx, depth+1)
	if err == nil {
		err = sub.end()
	}
	if err != nil {
		return v, errors.New("a decrypted secret value is malformed (its content is not shown)")
	}
	return v, nil
}
