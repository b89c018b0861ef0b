package local

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/groundwork-iac/groundwork/providers/internal/props"
	"github.com/groundwork-iac/groundwork/resource"
)

// reader is a props.Reader with the inputs particular to local files.
type reader struct{ *props.Reader }

// mode reads permissions written as an octal string ("0644" or "644"),
// with def when the key is not given.
func (r reader) mode(key string, def uint32) props.Field[uint32] {
	s := r.Str(key)
	switch {
	case s.Unknown:
		return props.Field[uint32]{Set: true, Unknown: true}
	case !s.Set:
		return props.Field[uint32]{Value: def, Set: true}
	}
	m, err := parseMode(s.Value)
	if err != nil {
		r.Fail(key, "%v", err)
	}
	return props.Field[uint32]{Value: m, Set: true}
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
