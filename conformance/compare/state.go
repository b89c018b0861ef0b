package compare

import (
	"fmt"
	"maps"
	"slices"

	"github.com/groundwork-iac/groundwork/conformance/drive"
)

// compareStates compares two normalized states record by record, matched
// by URN, deletion mark and ID.
func compareStates(a, b []drive.Record, ea, eb string) []Difference {
	ma, mb := byKey(a), byKey(b)
	keys := map[string]bool{}
	for k := range ma {
		keys[k] = true
	}
	for k := range mb {
		keys[k] = true
	}
	var out []Difference
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		ra, rb := ma[k], mb[k]
		if len(ra) != len(rb) {
			r := append(append([]drive.Record(nil), ra...), rb...)[0]
			out = append(out, Difference{Kind: KindState, URN: r.URN, ID: r.ID,
				Detail: fmt.Sprintf("%s: %s records it %d times, %s %d times", k, ea, len(ra), eb, len(rb))})
			continue
		}
		for i := range ra {
			for _, f := range fieldDiffs(&ra[i], &rb[i]) {
				out = append(out, Difference{Kind: KindState, URN: ra[i].URN, ID: ra[i].ID, Field: f.name,
					Detail: fmt.Sprintf("%s: %s %s / %s (%s / %s)", k, f.name, f.a, f.b, ea, eb)})
			}
		}
	}
	return out
}

func byKey(st []drive.Record) map[string][]drive.Record {
	out := map[string][]drive.Record{}
	for _, r := range st {
		out[r.Key()] = append(out[r.Key()], r)
	}
	return out
}

type fieldDiff struct{ name, a, b string }

// fieldDiffs lists the fields of two records of one resource that differ.
func fieldDiffs(a, b *drive.Record) []fieldDiff {
	var out []fieldDiff
	diff := func(name string, x, y any) {
		out = append(out, fieldDiff{name, fmt.Sprint(x), fmt.Sprint(y)})
	}
	if a.Type != b.Type {
		diff("type", a.Type, b.Type)
	}
	if a.Custom != b.Custom {
		diff("custom", a.Custom, b.Custom)
	}
	if !maps.Equal(a.Inputs, b.Inputs) {
		diff("inputs", a.Inputs, b.Inputs)
	}
	if !maps.Equal(a.Outputs, b.Outputs) {
		diff("outputs", a.Outputs, b.Outputs)
	}
	if a.Parent != b.Parent {
		diff("parent", short(a.Parent), short(b.Parent))
	}
	if a.Protect != b.Protect {
		diff("protect", a.Protect, b.Protect)
	}
	if a.RetainOnDelete != b.RetainOnDelete {
		diff("retainOnDelete", a.RetainOnDelete, b.RetainOnDelete)
	}
	if a.PendingReplacement != b.PendingReplacement {
		diff("pendingReplacement", a.PendingReplacement, b.PendingReplacement)
	}
	if a.External != b.External {
		diff("external", a.External, b.External)
	}
	if !slices.Equal(a.Dependencies, b.Dependencies) {
		diff("dependencies", shortList(a.Dependencies), shortList(b.Dependencies))
	}
	if !maps.EqualFunc(a.PropertyDependencies, b.PropertyDependencies, slices.Equal) {
		diff("propertyDependencies", a.PropertyDependencies, b.PropertyDependencies)
	}
	if a.Provider != b.Provider {
		diff("provider", short(a.Provider), short(b.Provider))
	}
	if a.DeletedWith != b.DeletedWith {
		diff("deletedWith", short(a.DeletedWith), short(b.DeletedWith))
	}
	if a.InitErrors != b.InitErrors {
		diff("initErrors", a.InitErrors, b.InitErrors)
	}
	return out
}
