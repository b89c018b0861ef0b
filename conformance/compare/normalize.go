package compare

import (
	"maps"
	"slices"

	"github.com/groundwork-iac/groundwork/conformance/drive"
	"github.com/groundwork-iac/groundwork/resource"
)

// NormalizeURNs returns st with its references to renamed resources as the
// reference engine writes them: every URN a record was known by (its
// aliases) becomes its URN, in the record itself and in every parent,
// dependency, property dependency, provider and deleted-with reference, and
// a child of a renamed parent takes the URN its parent's new type gives it.
// Pulumi's engine rewrites its snapshot so when it writes it; groundwork
// keeps the old names and resolves them through the aliases it records.
// Both mean the same resources; what each engine then does with them is
// compared in the runs that follow.
func NormalizeURNs(st []drive.Record) []drive.Record {
	renamed := map[string]string{}
	for _, r := range st {
		for _, a := range r.Aliases {
			if a != r.URN {
				renamed[a] = r.URN
			}
		}
	}
	// A child's URN carries its parent's type: follow renamed parents
	// down, to a fixpoint (records are not in parent order here).
	for changed := true; changed; {
		changed = false
		for _, r := range st {
			p, ok := renamed[r.Parent]
			if !ok || p == "" || resource.URN(p).Type() == resource.RootStackType {
				continue
			}
			urn := resource.URN(r.URN)
			if to := string(urn.Reparent(resource.URN(p).QualifiedType())); to != r.URN && renamed[r.URN] != to {
				renamed[r.URN], changed = to, true
			}
		}
	}
	if len(renamed) == 0 {
		return st
	}
	fix := func(u string) string {
		if to, ok := renamed[u]; ok {
			return to
		}
		return u
	}
	out := make([]drive.Record, len(st))
	for i, r := range st {
		r.URN, r.Parent, r.DeletedWith = fix(r.URN), fix(r.Parent), fix(r.DeletedWith)
		if r.Provider != "" {
			r.Provider = fix(r.Provider)
		}
		deps := make([]string, len(r.Dependencies))
		for j, d := range r.Dependencies {
			deps[j] = fix(d)
		}
		r.Dependencies = sortedSet(deps)
		if r.PropertyDependencies != nil {
			pd := make(map[string][]string, len(r.PropertyDependencies))
			for _, k := range slices.Sorted(maps.Keys(r.PropertyDependencies)) {
				var us []string
				for _, u := range r.PropertyDependencies[k] {
					us = append(us, fix(u))
				}
				pd[k] = sortedSet(us)
			}
			r.PropertyDependencies = pd
		}
		r.Aliases = nil
		out[i] = r
	}
	slices.SortStableFunc(out, func(a, b drive.Record) int {
		switch {
		case a.URN != b.URN:
			return cmpString(a.URN, b.URN)
		case a.Delete != b.Delete:
			if !a.Delete {
				return -1
			}
			return 1
		default:
			return cmpString(a.ID, b.ID)
		}
	})
	return out
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func sortedSet(urns []string) []string {
	if len(urns) == 0 {
		return nil
	}
	out := slices.Clone(urns)
	slices.Sort(out)
	return slices.Compact(out)
}
