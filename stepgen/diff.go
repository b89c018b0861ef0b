package stepgen

import (
	"fmt"
	"slices"

	"github.com/groundwork-iac/groundwork/resource"
)

// InputsDiff compares old and new inputs directly: the fallback when a
// provider cannot tell, and the whole diff for components and the
// inputs-only mode.
func InputsDiff(olds, news resource.PropertyMap) resource.DiffResult {
	d := olds.Diff(news)
	if d == nil || !d.AnyChanges() {
		return resource.DiffResult{Changes: resource.DiffNone}
	}
	return resource.DiffResult{
		Changes:      resource.DiffSome,
		ChangedKeys:  d.ChangedKeys(),
		DetailedDiff: resource.DetailedDiffFromObjectDiff(d, true),
	}
}

// ChangedKeys returns the top-level keys a diff that reports changes but
// names none has changed: from its detailed diff when it has one, else by
// comparing the old and new inputs. The generator fills them in itself
// when a Diff answer lacks them; a host may call it on the goroutine that
// made the Diff instead (the engine does), to spare the generator's
// goroutine the comparison.
func ChangedKeys(d resource.DiffResult, olds, news resource.PropertyMap) []resource.PropertyKey {
	if len(d.DetailedDiff) > 0 {
		seen := map[resource.PropertyKey]bool{}
		var keys []resource.PropertyKey
		for path := range d.DetailedDiff {
			p, err := resource.ParsePropertyPath(path)
			if err != nil || len(p) == 0 || p[0].IsIndex {
				continue
			}
			k := resource.PropertyKey(p[0].Key)
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		return keys
	}
	return olds.ChangedKeys(news)
}

// applyIgnoreChanges gives each ignored path of the new inputs the value it
// had in the old inputs (or removes it if it had none), so that changes
// there are never seen.
func applyIgnoreChanges(olds, news resource.PropertyMap, paths []string) (resource.PropertyMap, error) {
	out := news.Copy()
	for _, ps := range paths {
		p, err := resource.ParsePropertyPath(ps)
		if err != nil {
			return nil, fmt.Errorf("ignoreChanges: %w", err)
		}
		if p.HasWildcards() {
			out = ignoreWildcard(olds, out, p)
			continue
		}
		out = ignorePath(olds, out, p)
	}
	return out, nil
}

// ignorePath gives the value at the concrete path p in news the value it
// has in olds, or removes it if olds has none.
func ignorePath(olds, news resource.PropertyMap, p resource.PropertyPath) resource.PropertyMap {
	v, ok := olds.GetPath(p)
	if !ok {
		if next, ok := news.DeletePath(p); ok {
			return next
		}
		return news
	}
	// Get wraps what it finds beneath a secret as a secret, and Set keeps
	// the secrets it steps through: where both sides hold the value
	// beneath a secret, it goes back bare, or it would be secret twice and
	// differ from the old value.
	if v.IsSecret() && beneathSecret(olds, p) && beneathSecret(news, p) {
		v = v.SecretElement()
	}
	if next, ok := news.SetPath(p, v); ok {
		return next
	}
	return news
}

// beneathSecret reports whether the value at p in m lies inside a secret.
func beneathSecret(m resource.PropertyMap, p resource.PropertyPath) bool {
	if len(p) < 2 {
		return false
	}
	parent, ok := m.GetPath(p[:len(p)-1])
	return ok && parent.IsSecret()
}

// ignoreWildcard expands a wildcard path against both maps and ignores each
// concrete path it matches.
func ignoreWildcard(olds, news resource.PropertyMap, p resource.PropertyPath) resource.PropertyMap {
	var concrete []resource.PropertyPath
	collectPaths(resource.NewObject(olds), nil, p, &concrete)
	collectPaths(resource.NewObject(news), nil, p, &concrete)
	for _, c := range concrete {
		news = ignorePath(olds, news, c)
	}
	return news
}

// collectPaths appends every concrete path in v that matches the pattern.
func collectPaths(v resource.PropertyValue, prefix, pattern resource.PropertyPath, out *[]resource.PropertyPath) {
	if len(pattern) == 0 {
		*out = append(*out, slices.Clone(prefix))
		return
	}
	if v.IsSecret() {
		v = v.SecretElement()
	}
	el := pattern[0]
	switch {
	case el.IsWildcard && v.IsObject():
		for _, k := range v.ObjectValue().StableKeys() {
			collectPaths(v.ObjectValue()[k], prefix.Append(resource.PathKey(string(k))), pattern[1:], out)
		}
	case el.IsWildcard && v.IsArray():
		for i, e := range v.ArrayValue() {
			collectPaths(e, prefix.Append(resource.PathIndex(i)), pattern[1:], out)
		}
	case !el.IsIndex && v.IsObject():
		if e, ok := v.ObjectValue()[resource.PropertyKey(el.Key)]; ok {
			collectPaths(e, prefix.Append(el), pattern[1:], out)
		} else if len(pattern) == 1 {
			*out = append(*out, prefix.Append(el))
		}
	case el.IsIndex && v.IsArray():
		if a := v.ArrayValue(); el.Index >= 0 && el.Index < len(a) {
			collectPaths(a[el.Index], prefix.Append(el), pattern[1:], out)
		}
	}
}

// applyReplaceOnChanges turns an update into a replacement when a changed
// property matches one of the resource's replaceOnChanges paths.
func applyReplaceOnChanges(d resource.DiffResult, olds, news resource.PropertyMap, paths []string) (resource.DiffResult, error) {
	patterns := make([]resource.PropertyPath, 0, len(paths))
	for _, ps := range paths {
		p, err := resource.ParsePropertyPath(ps)
		if err != nil {
			return d, fmt.Errorf("replaceOnChanges: %w", err)
		}
		patterns = append(patterns, p)
	}
	detailed := d.DetailedDiff
	if len(detailed) == 0 {
		if od := olds.Diff(news); od != nil {
			detailed = resource.DetailedDiffFromObjectDiff(od, true)
		}
	}
	out := d
	out.DetailedDiff = make(map[string]resource.PropertyDiff, len(detailed))
	for path, pd := range detailed {
		cp, err := resource.ParsePropertyPath(path)
		if err == nil && matchesAny(patterns, cp) {
			pd.Kind = pd.Kind.AsReplace()
			if len(cp) > 0 && !cp[0].IsIndex && !slices.Contains(out.ReplaceKeys, resource.PropertyKey(cp[0].Key)) {
				out.ReplaceKeys = append(out.ReplaceKeys, resource.PropertyKey(cp[0].Key))
			}
		}
		out.DetailedDiff[path] = pd
	}
	return out, nil
}

// matchesAny reports whether a changed path falls under (or contains) one
// of the patterns: a change to "a.b" matches the pattern "a", and a change
// to "a" matches "a.b".
func matchesAny(patterns []resource.PropertyPath, changed resource.PropertyPath) bool {
	for _, p := range patterns {
		if p.Contains(changed) || changed.Contains(p) {
			return true
		}
	}
	return false
}
