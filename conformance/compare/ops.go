package compare

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/conformance/drive"
	"github.com/groundwork-iac/groundwork/conformance/spec"
	"github.com/groundwork-iac/groundwork/conformance/world"
)

// compareOps compares the physical operations on each URN (as passed to
// the provider), in order.
func compareOps(a, b *drive.Run, ea, eb string) []Difference {
	pa, pb := perURN(a.Ledger), perURN(b.Ledger)
	urns := map[string]bool{}
	for u := range pa {
		urns[u] = true
	}
	for u := range pb {
		urns[u] = true
	}
	var out []Difference
	for _, u := range slices.Sorted(maps.Keys(urns)) {
		if !slices.Equal(pa[u], pb[u]) {
			out = append(out, Difference{Kind: KindOps, URN: u,
				Detail: fmt.Sprintf("%s: %s %s, %s %s", short(u), ea, opList(pa[u]), eb, opList(pb[u]))})
		}
	}
	return out
}

func perURN(ledger []world.Entry) map[string][]string {
	out := map[string][]string{}
	for _, e := range ledger {
		out[e.URN] = append(out[e.URN], opString(e))
	}
	for u, ops := range out {
		out[u] = sortDeleteRuns(ops)
	}
	return out
}

// sortDeleteRuns sorts each run of consecutive deletes by ID: the deletes of
// two copies of one URN (a live record and an old one marked for deletion)
// are independent.
func sortDeleteRuns(ops []string) []string {
	isDelete := func(op string) bool { return strings.HasPrefix(op, spec.OpDelete+" ") }
	for i := 0; i < len(ops); {
		j := i
		for j < len(ops) && isDelete(ops[j]) {
			j++
		}
		if j > i+1 {
			slices.Sort(ops[i:j])
		}
		i = max(j, i+1)
	}
	return ops
}

func opString(e world.Entry) string {
	s := e.Op + " " + e.ID
	if e.Failed {
		s += " (failed)"
	}
	if e.Missing {
		s += " (missing)"
	}
	return s
}

func opList(ops []string) string {
	if len(ops) == 0 {
		return "nothing"
	}
	return "[" + strings.Join(ops, "; ") + "]"
}

// compareOrder compares the relative order of operations on resources
// that depend on each other: the record a delete removes (as the state
// before the run holds it) or the record a create or update leaves (as the
// state after holds it) depends on the other's, through a dependency, a
// property dependency, a parent or a deleted-with target (see dependsOn).
// Operations on independent resources may run in any order.
func compareOrder(a, b *drive.Run, ea, eb string) []Difference {
	posB := positions(b.Ledger)
	keysA := keys(a.Ledger)
	recs := make([]opRecord, len(a.Ledger))
	for i, e := range a.Ledger {
		recs[i] = recordOf(a, e)
	}
	var out []Difference
	for i := range a.Ledger {
		for j := i + 1; j < len(a.Ledger); j++ {
			x, y := a.Ledger[i], a.Ledger[j]
			if x.URN == y.URN || !recs[i].dependsOn(recs[j]) && !recs[j].dependsOn(recs[i]) {
				continue
			}
			pi, ok1 := posB[keysA[i]]
			pj, ok2 := posB[keysA[j]]
			if ok1 && ok2 && pi > pj {
				out = append(out, Difference{Kind: KindOrder, URN: y.URN, Detail: fmt.Sprintf("%s: %s before %s; %s: the other way round",
					ea, entryString(x), entryString(y), eb)})
			}
		}
	}
	return out
}

// opRecord is the record an operation acts on, and the state it is in.
type opRecord struct {
	rec   *drive.Record
	state []drive.Record
}

// recordOf finds the record operation e acts on: for a delete, the one
// the state before the run holds with its ID; for a create or update, the
// one the state after holds with its ID (for a failed create, without one,
// the live record of its URN).
func recordOf(run *drive.Run, e world.Entry) opRecord {
	st := run.State
	if e.Op == spec.OpDelete {
		st = run.Before
	}
	for i := range st {
		r := &st[i]
		if r.ID == e.ID && e.ID != "" || e.ID == "" && r.URN == e.URN && !r.Delete {
			return opRecord{r, st}
		}
	}
	return opRecord{nil, st}
}

// dependsOn reports whether d's record depends on t's: it names t's URN
// as a dependency, and — when t is an old copy marked for deletion — d is
// an old copy too (unless its inputs show it was made from another record
// of t's URN), or t's URN has no live record (a live record's
// dependencies are on the live records of the URNs they name).
func (d opRecord) dependsOn(t opRecord) bool {
	if d.rec == nil || t.rec == nil || !slices.Contains(Dependencies(d.rec), t.rec.URN) {
		return false
	}
	if t.rec.Delete && d.rec.Delete && tookFromAnother(d.rec, t) {
		return false
	}
	return !t.rec.Delete || d.rec.Delete || !hasLive(t.state, t.rec.URN)
}

// tookFromAnother reports whether d's inputs hold the output of another
// record of t's URN and none of t's own: an old copy created against the
// live record of a URN depends on that one, not on the URN's older copy t.
func tookFromAnother(d *drive.Record, t opRecord) bool {
	own := t.rec.Outputs[spec.OutKey]
	other := false
	for _, v := range d.Inputs {
		if own != "" && v == own {
			return false
		}
		for i := range t.state {
			r := &t.state[i]
			if r.URN == t.rec.URN && r.ID != t.rec.ID && r.Outputs[spec.OutKey] != "" && v == r.Outputs[spec.OutKey] {
				other = true
			}
		}
	}
	return other
}

func hasLive(st []drive.Record, urn string) bool {
	for i := range st {
		if st[i].URN == urn && !st[i].Delete {
			return true
		}
	}
	return false
}

func entryString(e world.Entry) string {
	return opString(e) + " of " + short(e.URN)
}

// keys names each entry of a ledger by its contents and occurrence, so
// that the same operation can be found in the other engine's ledger.
func keys(ledger []world.Entry) []string {
	seen := map[string]int{}
	out := make([]string, len(ledger))
	for i, e := range ledger {
		k := e.URN + "|" + opString(e)
		seen[k]++
		out[i] = fmt.Sprintf("%s|%d", k, seen[k])
	}
	return out
}

func positions(ledger []world.Entry) map[string]int {
	out := map[string]int{}
	for i, k := range keys(ledger) {
		out[k] = i
	}
	return out
}

// Dependencies returns the URNs r depends on: dependencies, property
// dependencies, its parent and the resource it is deleted with.
func Dependencies(r *drive.Record) []string {
	out := slices.Clone(r.Dependencies)
	for _, urns := range r.PropertyDependencies {
		out = append(out, urns...)
	}
	if r.Parent != "" {
		out = append(out, r.Parent)
	}
	if r.DeletedWith != "" {
		out = append(out, r.DeletedWith)
	}
	return out
}
