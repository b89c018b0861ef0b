package local

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// field is one input as a parser read it: its value when known, whether it
// was given at all (null counts as not given), and whether it is unknown, as
// inputs may be during a preview.
type field[T any] struct {
	v       T
	set     bool
	unknown bool
}

// reader reads typed inputs from a property map and collects what is wrong
// with them as check failures.
type reader struct {
	m        resource.PropertyMap
	failures []providers.CheckFailure
}

func (r *reader) fail(prop, format string, args ...any) {
	r.failures = append(r.failures, providers.CheckFailure{Property: prop, Reason: fmt.Sprintf(format, args...)})
}

// value returns key's value with secrets and known outputs peeled off.
func (r *reader) value(key string) (v resource.PropertyValue, set, unknown bool) {
	raw, ok := r.m[resource.PropertyKey(key)]
	if !ok {
		return v, false, false
	}
	v = raw.Unwrap()
	if v.IsUnknown() {
		return v, true, true
	}
	return v, !v.IsNull(), false
}

// only fails every key that is not one of keys. Keys starting with "__" are
// reserved for the engine and SDKs and pass.
func (r *reader) only(keys ...string) {
	for _, k := range r.m.StableKeys() {
		if !slices.Contains(keys, string(k)) && !strings.HasPrefix(string(k), "__") {
			r.fail(string(k), "unknown property; the valid ones are %s", strings.Join(keys, ", "))
		}
	}
}

func (r *reader) str(key string, required bool) field[string] {
	v, set, unknown := r.value(key)
	switch {
	case unknown:
		return field[string]{set: true, unknown: true}
	case !set:
		if required {
			r.fail(key, "is required")
		}
		return field[string]{}
	case !v.IsString():
		r.fail(key, "must be a string, not %s", v.Kind())
		return field[string]{}
	}
	return field[string]{v: v.StringValue(), set: true}
}

func (r *reader) asset(key string) field[*resource.Asset] {
	v, set, unknown := r.value(key)
	switch {
	case unknown:
		return field[*resource.Asset]{set: true, unknown: true}
	case !set:
		return field[*resource.Asset]{}
	case !v.IsAsset():
		r.fail(key, "must be an asset, not %s", v.Kind())
		return field[*resource.Asset]{}
	}
	return field[*resource.Asset]{v: v.AssetValue(), set: true}
}

// mode reads permissions written as an octal string ("0644" or "644"),
// with def when the key is not given.
func (r *reader) mode(key string, def uint32) field[uint32] {
	s := r.str(key, false)
	switch {
	case s.unknown:
		return field[uint32]{set: true, unknown: true}
	case !s.set:
		return field[uint32]{v: def, set: true}
	}
	m, err := parseMode(s.v)
	if err != nil {
		r.fail(key, "%v", err)
	}
	return field[uint32]{v: m, set: true}
}

func parseMode(s string) (uint32, error) {
	digits := s
	if len(s) == 4 && s[0] == '0' {
		digits = s[1:]
	} else if len(s) == 4 && strings.ContainsRune("1234567", rune(s[0])) {
		return 0, fmt.Errorf("%q sets special bits (setuid, setgid or sticky), which are not supported; use three octal digits such as \"0644\"", s)
	}
	if len(digits) != 3 || strings.Trim(digits, "01234567") != "" {
		return 0, fmt.Errorf("%q is not a permission mode; write three octal digits, optionally after a 0, such as \"0644\"", s)
	}
	m, err := strconv.ParseUint(digits, 8, 32)
	if err != nil {
		return 0, fmt.Errorf("%q is not a permission mode: %w", s, err)
	}
	return uint32(m), nil
}

// formatMode writes permissions the way Check records them.
func formatMode(m uint32) string { return fmt.Sprintf("%04o", m&0o777) }

// keepSecret wraps v as a secret if like is one, so that a value a provider
// rewrites keeps the secretness the user gave it.
func keepSecret(like, v resource.PropertyValue) resource.PropertyValue {
	if like.ContainsSecrets() {
		return resource.NewSecret(v)
	}
	return v
}
