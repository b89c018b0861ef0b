package compare

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/conformance/drive"
	"github.com/groundwork-iac/groundwork/conformance/spec"
)

// Invariants lists what run broke of the promises every engine keeps:
//
//   - no leaked object: an object that exists after the run is recorded,
//     unless its record left the state by retain-on-delete (objects leaked
//     in earlier runs are not counted again);
//   - no lost object: every custom resource recorded as existing (not a
//     provider, not pending replacement) exists;
//   - no object is deleted twice, and none updated after its delete;
//   - nothing is deleted before what depends on it: when an object and one
//     that depended on it (in the state before) are both deleted in the
//     run, the dependent goes first.
func Invariants(run *drive.Run) []string {
	var out []string
	out = append(out, leaks(run)...)
	out = append(out, losses(run)...)
	for _, e := range run.Ledger {
		if e.Missing {
			out = append(out, fmt.Sprintf("%s of %s, which no longer exists", e.Op, e.ID))
		}
	}
	out = append(out, deleteOrder(run)...)
	slices.Sort(out)
	return slices.Compact(out)
}

func recordedIDs(st []drive.Record) map[string]*drive.Record {
	out := map[string]*drive.Record{}
	for i := range st {
		r := &st[i]
		if r.Custom && r.ID != "" && !r.PendingReplacement && !isProvider(r) {
			out[r.ID] = r
		}
	}
	return out
}

func leaks(run *drive.Run) []string {
	after, before := recordedIDs(run.State), recordedIDs(run.Before)
	created := map[string]bool{}
	for _, e := range run.Ledger {
		if e.Op == spec.OpCreate && !e.Failed {
			created[e.ID] = true
		}
	}
	var out []string
	for _, id := range slices.Sorted(maps.Keys(run.Live)) {
		if after[id] != nil {
			continue
		}
		if old := before[id]; old != nil && !old.RetainOnDelete || old == nil && created[id] {
			out = append(out, fmt.Sprintf("leaked %s: it exists and is not recorded", id))
		}
	}
	return out
}

func losses(run *drive.Run) []string {
	var out []string
	for id, r := range recordedIDs(run.State) {
		if _, ok := run.Live[id]; !ok {
			out = append(out, fmt.Sprintf("lost %s: %s is recorded and does not exist", id, r.Key()))
		}
	}
	return out
}

// deleteOrder checks that of an object and its dependent, both deleted in
// run, the dependent went first. A delete-before-replace's delete is left
// out: it deletes only the dependents that its replacement replaces too.
func deleteOrder(run *drive.Run) []string {
	deleted := map[string]int{}
	for i, e := range run.Ledger {
		if e.Op == spec.OpDelete && !e.Failed && !e.Missing && !recreated(run, i) {
			deleted[e.ID] = i
		}
	}
	before := NormalizeURNs(run.Before) // references by old URNs, resolved
	var out []string
	for i := range before {
		d := &before[i]
		dPos, ok := deleted[d.ID]
		if !ok || !d.Custom {
			continue
		}
		dep := opRecord{d, before}
		for j := range before {
			x := &before[j]
			if xPos, ok := deleted[x.ID]; ok && x.ID != d.ID && xPos < dPos && dep.dependsOn(opRecord{x, before}) {
				out = append(out, fmt.Sprintf("deleted %s before %s, which depended on it", x.ID, d.ID))
			}
		}
	}
	return out
}

func isProvider(r *drive.Record) bool {
	return strings.HasPrefix(r.Type, "pulumi:providers:")
}

// recreated reports whether the URN deleted by ledger entry i is created
// again later in the run: the delete was a delete-before-replace's.
func recreated(run *drive.Run, i int) bool {
	for _, e := range run.Ledger[i+1:] {
		if e.Op == spec.OpCreate && !e.Failed && e.URN == run.Ledger[i].URN {
			return true
		}
	}
	return false
}
