package providers

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
)

// Version is a semantic version, MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD].
// Versions order by precedence: numerically by major, minor and patch, then
// a prerelease before the release it precedes, prereleases compared
// identifier by identifier; build metadata does not take part.
type Version struct {
	Major, Minor, Patch uint64
	// Pre is the prerelease ("beta.1"), without its "-"; "" for a release.
	Pre string
	// Build is the build metadata, without its "+".
	Build string
}

// ParseVersion parses a semantic version. A leading "v" is accepted
// ("v1.2.3"); anything else that is not MAJOR.MINOR.PATCH with optional
// prerelease and build parts is an error that says what is wrong.
func ParseVersion(s string) (Version, error) {
	bad := func(reason string) (Version, error) {
		return Version{}, fmt.Errorf("invalid version %q: %s (want a semantic version such as 1.2.3 or 1.2.3-beta.1)", s, reason)
	}
	rest := strings.TrimPrefix(s, "v")
	if rest == "" {
		return bad("it is empty")
	}
	var v Version
	if i := strings.IndexByte(rest, '+'); i >= 0 {
		rest, v.Build = rest[:i], rest[i+1:]
		if err := checkIdentifiers(v.Build, false); err != nil {
			return bad("build metadata " + err.Error())
		}
	}
	if i := strings.IndexByte(rest, '-'); i >= 0 {
		rest, v.Pre = rest[:i], rest[i+1:]
		if err := checkIdentifiers(v.Pre, true); err != nil {
			return bad("prerelease " + err.Error())
		}
	}
	parts := strings.Split(rest, ".")
	if len(parts) != 3 {
		return bad(fmt.Sprintf("want three dot-separated numbers, found %d parts", len(parts)))
	}
	nums := [3]*uint64{&v.Major, &v.Minor, &v.Patch}
	for i, p := range parts {
		if err := checkNumeric(p); err != nil {
			return bad([]string{"major", "minor", "patch"}[i] + " " + err.Error())
		}
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return bad([]string{"major", "minor", "patch"}[i] + " is out of range")
		}
		*nums[i] = n
	}
	return v, nil
}

func checkNumeric(p string) error {
	if p == "" {
		return fmt.Errorf("is empty")
	}
	for _, r := range p {
		if r < '0' || r > '9' {
			return fmt.Errorf("%q is not a number", p)
		}
	}
	if len(p) > 1 && p[0] == '0' {
		return fmt.Errorf("%q has a leading zero", p)
	}
	return nil
}

// checkIdentifiers checks dot-separated identifiers of [0-9A-Za-z-];
// numeric prerelease identifiers must not have leading zeros.
func checkIdentifiers(s string, pre bool) error {
	if s == "" {
		return fmt.Errorf("is empty")
	}
	for _, id := range strings.Split(s, ".") {
		if id == "" {
			return fmt.Errorf("%q has an empty identifier", s)
		}
		numeric := true
		for _, r := range id {
			switch {
			case r >= '0' && r <= '9':
			case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '-':
				numeric = false
			default:
				return fmt.Errorf("%q contains %q", s, r)
			}
		}
		if pre && numeric && len(id) > 1 && id[0] == '0' {
			return fmt.Errorf("%q has a numeric identifier with a leading zero", s)
		}
	}
	return nil
}

// String formats v as a semantic version (without a leading "v").
func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	if v.Build != "" {
		s += "+" + v.Build
	}
	return s
}

// IsPrerelease reports whether v is a prerelease.
func (v Version) IsPrerelease() bool { return v.Pre != "" }

// Compare returns -1, 0 or +1 as v precedes, equals (in precedence) or
// follows w.
func (v Version) Compare(w Version) int {
	if c := cmp.Compare(v.Major, w.Major); c != 0 {
		return c
	}
	if c := cmp.Compare(v.Minor, w.Minor); c != 0 {
		return c
	}
	if c := cmp.Compare(v.Patch, w.Patch); c != 0 {
		return c
	}
	switch {
	case v.Pre == w.Pre:
		return 0
	case v.Pre == "":
		return 1 // a release follows its prereleases
	case w.Pre == "":
		return -1
	}
	return comparePre(v.Pre, w.Pre)
}

// comparePre compares prereleases identifier by identifier: numeric ones
// numerically and before alphanumeric ones, those lexically; a shorter list
// precedes a longer one it prefixes.
func comparePre(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, y := as[i], bs[i]
		xn, xerr := strconv.ParseUint(x, 10, 64)
		yn, yerr := strconv.ParseUint(y, 10, 64)
		var c int
		switch {
		case xerr == nil && yerr == nil:
			c = cmp.Compare(xn, yn)
		case xerr == nil:
			c = -1
		case yerr == nil:
			c = 1
		default:
			c = strings.Compare(x, y)
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(as), len(bs))
}
