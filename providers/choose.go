package providers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ChooseVersion returns the version a default provider of pkg must be
// registered at to serve token (a resource type or function token) when
// version is asked for: version itself, unless the factory Lookup chooses
// for it declares the tokens it serves (Tokens) and token is not among
// them. Then the registry looks for a factory compatible with version
// that serves token: first among those registered, then a plugin the
// Resolver finds (which it registers); and it returns that factory's exact
// version, which Lookup then chooses.
//
// So a built-in provider serves the tokens it declares; a program that
// asks for another token of the same package, or pins a version only a
// plugin has, gets the plugin. A package with no factory that qualifies is
// left to the usual resolution: the version comes back unchanged.
func (r *Registry) ChooseVersion(ctx context.Context, pkg, version, token string) (string, error) {
	e, err := r.lookup(pkg, version)
	if err != nil || e.serves(token) {
		return version, nil
	}
	alt := r.serving(pkg, version, token)
	if alt == nil {
		if r.resolver == nil {
			return "", r.notServed(e, token, errors.New("no plugin resolver is set"))
		}
		f, got, err := r.resolver(ctx, pkg, version)
		if err == nil && f == nil {
			err = errors.New("the resolver returned no factory and no error")
		}
		if err == nil {
			alt, err = r.addResolved(pkg, got, f)
		}
		if err != nil {
			return "", r.notServed(e, token, err)
		}
	}
	pin := alt.info.Version
	if chosen, err := r.lookup(pkg, pin); err != nil {
		return "", r.notServed(e, token, err)
	} else if chosen != alt {
		return "", r.notServed(e, token, fmt.Errorf("%s serves it, but %s also satisfies version %s and is preferred; pass an explicit provider of a version only %s satisfies", alt.info, chosen.info, pin, alt.info))
	}
	return pin, nil
}

// serving returns the factory compatible with version that serves token:
// the newest the host registered, else the newest plugin; nil if none.
func (r *Registry) serving(pkg, version, token string) *factoryEntry {
	var want *Version
	if version != "" {
		v, err := ParseVersion(version)
		if err != nil {
			return nil
		}
		want = &v
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, resolved := range []bool{false, true} {
		for _, e := range slices.Backward(r.factories[pkg]) {
			if ok, _ := e.qualifies(want); !ok || r.shunned(e) {
				continue
			}
			if e.resolved == resolved && e.serves(token) {
				return e
			}
		}
	}
	return nil
}

// notServed explains why no provider serves token, with the tokens the
// built-in serves that come closest to it (a typo in a type).
func (r *Registry) notServed(e *factoryEntry, token string, cause error) error {
	hint := ""
	if close := closeTokens(e.tokens, token); len(close) > 0 {
		hint = " (did you mean " + strings.Join(close, " or ") + "?)"
	}
	return fmt.Errorf("%s is not served by the built-in provider %s%s, and no plugin serves it: %w", token, e.info, hint, cause)
}

// closeTokens returns the tokens at the fewest edits from token, at most
// three, sorted.
func closeTokens(tokens map[string]bool, token string) []string {
	var best []string
	bestDist := 4
	for t := range tokens {
		switch d := editDistance(strings.ToLower(t), strings.ToLower(token)); {
		case d < bestDist:
			best, bestDist = []string{t}, d
		case d == bestDist:
			best = append(best, t)
		}
	}
	slices.Sort(best)
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
