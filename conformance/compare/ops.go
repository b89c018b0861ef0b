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
// state after holds it) depends on the other's URN, through a dependency, a
// property dependency, a parent or a deleted-with target. Operations on
// independent resources may run in any order.
func compareOrder(a, b *drive.Run, ea, eb string) []Difference {
	posB := positions(b.Ledger)
	keysA := keys(a.Ledger)
	deps := make([][]string, len(a.Ledger))
	for i, e := range a.Ledger {
		deps[i] = opDependencies(a, e)
	}
	var out []Difference
	for i := range a.Ledger {
		for j := i + 1; j < len(a.Ledger); j++ {
			x, y := a.Ledger[i], a.Ledger[j]
			if x.URN == y.URN || !slices.Contains(deps[i], y.URN) && !slices.Contains(deps[j], x.URN) {
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

// opDependencies returns what the record an operation acts on depends on.
func opDependencies(run *drive.Run, e world.Entry) []string {
	st := run.State
	if e.Op == spec.OpDelete {
		st = run.Before
	}
	for i := range st {
		r := &st[i]
		if r.ID == e.ID && e.ID != "" || e.ID == "" && r.URN == e.URN && !r.Delete {
			return dependencies(r)
		}
	}
	return nil
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

// dependencies are the URNs r depends on: dependencies, property
// dependencies, its parent and the resource it is deleted with.
func dependencies(r *drive.Record) []string {
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
