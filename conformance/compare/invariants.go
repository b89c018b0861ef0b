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
//     run, old copies of replacements included, the dependent goes first
//     (for a delete-before-replace, every dependent the engine knew of
//     when it decided: see deleteOrder).
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
// run, the dependent went first — the old copies of replacements
// included. A delete-before-replace deletes during the program, before
// the engine has seen the registrations that come after, so its delete
// answers only for the dependents the engine knew of when it decided it
// (see knownBefore). A dependent registered
// later, or not at all, may go after it.
func deleteOrder(run *drive.Run) []string {
	deleted := map[string]int{}
	dbr := map[string]bool{}
	for i, e := range run.Ledger {
		if e.Op == spec.OpDelete && !e.Failed && !e.Missing {
			deleted[e.ID] = i
			dbr[e.ID] = deletedFirst(run, e.ID)
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
			xPos, ok := deleted[x.ID]
			if !ok || x.ID == d.ID || xPos > dPos || !dep.dependsOn(opRecord{x, before}) {
				continue
			}
			if dbr[x.ID] && !knownBefore(run, before, d, x, dbr) {
				continue
			}
			out = append(out, fmt.Sprintf("deleted %s before %s, which depended on it", x.ID, d.ID))
		}
	}
	return out
}

// knownBefore reports whether the engine had d's registration (its Check,
// or at the latest the Diff of its object) before it decided x's
// delete-before-replace. The decision follows the answer to the last call
// a cascade that deletes x makes before x's delete starts: the check of a
// replacement's new inputs (a Check after a Diff with known inputs) of x
// or of anything x depended on in before, transitively, that was deleted
// before its replacement was created too, and the diffs with unknown
// inputs of their dependents.
func knownBefore(run *drive.Run, before []drive.Record, d, x *drive.Record, dbr map[string]bool) bool {
	deciders := map[string]bool{x.ID: true}
	for _, r := range closure(before, x.URN, Dependencies) {
		if dbr[r.ID] {
			deciders[r.ID] = true
		}
	}
	dependents := map[string]bool{}
	for _, r := range before {
		if deciders[r.ID] {
			for _, dep := range closure(before, r.URN, func(r *drive.Record) []string { return dependentsOf(before, r) }) {
				dependents[dep.ID] = true
			}
		}
	}
	known, decided := -1, -1
	replacing := map[string]bool{} // URNs whose replacement a decider's diff asked for
	for i, c := range run.Calls {
		switch {
		case c.Op == spec.OpDelete && c.ID == x.ID:
			return known >= 0 && known < decided
		case known < 0 && !c.End && (c.Op == "check" && c.URN == d.URN || c.Op == "diff" && !c.Unknowns && c.ID == d.ID):
			known = i
		}
		switch {
		case c.Op == "diff" && !c.Unknowns && deciders[c.ID]:
			replacing[c.URN] = true
		case c.End && c.Op == "check" && replacing[c.URN]:
			decided = i // a replacement's check: its cascade may follow
		case c.End && c.Op == "diff" && c.Unknowns && dependents[c.ID]:
			decided = i
		}
	}
	return false
}

// deletedFirst reports whether the delete of object id in run came before
// its replacement was created: a delete-before-replace's, deciding during
// the program. Its object was diffed (by its own registration, or with
// unknowns by a cascade), and no create of the URN diffed came between.
func deletedFirst(run *drive.Run, id string) bool {
	urn := ""
	for _, c := range run.Calls {
		switch {
		case c.Op == "diff" && c.ID == id:
			urn = c.URN
		case c.Op == spec.OpCreate && c.URN == urn:
			urn = ""
		case c.Op == spec.OpDelete && c.ID == id:
			return urn != ""
		}
	}
	return false
}

// closure returns the records reachable from the record of urn in st by
// next (URNs), the record itself included.
func closure(st []drive.Record, urn string, next func(*drive.Record) []string) []*drive.Record {
	seen := map[string]bool{urn: true}
	queue := []string{urn}
	var out []*drive.Record
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for i := range st {
			r := &st[i]
			if r.URN != u {
				continue
			}
			out = append(out, r)
			for _, n := range next(r) {
				if !seen[n] {
					seen[n] = true
					queue = append(queue, n)
				}
			}
		}
	}
	return out
}

// dependentsOf returns the URNs of the records of st that depend on r.
func dependentsOf(st []drive.Record, r *drive.Record) []string {
	var out []string
	for i := range st {
		if slices.Contains(Dependencies(&st[i]), r.URN) {
			out = append(out, st[i].URN)
		}
	}
	return out
}

func isProvider(r *drive.Record) bool {
	return strings.HasPrefix(r.Type, "pulumi:providers:")
}
