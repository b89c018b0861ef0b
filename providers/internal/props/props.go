// Package props holds what the built-in providers share for their inputs:
// reading them as typed values with a Reader (collecting check failures,
// filling in defaults, noting unknowns), diffing the inputs a resource type
// declares, and reporting check failures found outside Check as one error.
//
// What is particular to one provider (a file mode, an environment, random's
// keepers) stays in that provider, on top of the Reader.
package props

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// FailuresError turns check failures found outside Check (inputs that did
// not go through it, such as a read's) into one error naming the resource.
func FailuresError(urn resource.URN, failures []providers.CheckFailure) error {
	parts := make([]string, len(failures))
	for i, f := range failures {
		parts[i] = f.String()
	}
	return fmt.Errorf("invalid inputs for %s: %s", urn, strings.Join(parts, "; "))
}

// Pick returns the entries of m under keys.
func Pick(m resource.PropertyMap, keys []string) resource.PropertyMap {
	out := resource.PropertyMap{}
	for _, k := range keys {
		if v, ok := m[resource.PropertyKey(k)]; ok {
			out[resource.PropertyKey(k)] = v
		}
	}
	return out
}

// Diff compares the inputs under keys of olds and news, with a detailed
// diff. A change to a property named in replaces forces a replacement.
// Unknown new values count as changed.
func Diff(olds, news resource.PropertyMap, keys []string, replaces ...string) resource.DiffResult {
	d := Pick(olds, keys).Diff(Pick(news, keys))
	if !d.AnyChanges() {
		return resource.DiffResult{Changes: resource.DiffNone}
	}
	res := resource.DiffResult{
		Changes:      resource.DiffSome,
		ChangedKeys:  d.ChangedKeys(),
		DetailedDiff: resource.DetailedDiffFromObjectDiff(d, true),
	}
	for path, pd := range res.DetailedDiff {
		if p, err := resource.ParsePropertyPath(path); err == nil && len(p) > 0 && slices.Contains(replaces, p[0].Key) {
			pd.Kind = pd.Kind.AsReplace()
			res.DetailedDiff[path] = pd
		}
	}
	for _, k := range res.ChangedKeys {
		if slices.Contains(replaces, string(k)) {
			res.ReplaceKeys = append(res.ReplaceKeys, k)
		}
	}
	return res
}

// ErrUnknownInputs is a Create's or Update's error when the inputs hold
// values not known yet outside a preview: the engine sends unknowns only
// to a preview's Check and Diff.
var ErrUnknownInputs = errors.New("the inputs have unknown values outside a preview")
