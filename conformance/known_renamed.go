package conformance

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/conformance/compare"
	"github.com/groundwork-iac/groundwork/conformance/drive"
	"github.com/groundwork-iac/groundwork/conformance/spec"
	"github.com/groundwork-iac/groundwork/conformance/world"
	"github.com/groundwork-iac/groundwork/resource"
)

// The recognisers of differences that follow from the reference engine
// rewriting references to renamed resources (see known.go).

// writtenUnder returns the URN groundwork last created or updated object
// id under, up to and including the current run, or "".
func (c *runContext) writtenUnder(id string) string {
	urn := ""
	for k := 0; k <= c.i && k < len(c.gwTrace.Runs); k++ {
		for _, e := range c.gwTrace.Runs[k].Ledger {
			if e.ID == id && !e.Failed && (e.Op == spec.OpCreate || e.Op == spec.OpUpdate) {
				urn = e.URN
			}
		}
	}
	return urn
}

// recordUnderWrittenURN reports whether d, a record one engine holds and
// the other does not, is one object both hold under different URNs:
// groundwork under the URN it wrote the object under, the reference
// engine under a URN it rewrote the record to, the records otherwise the
// same.
func (c *runContext) recordUnderWrittenURN(d compare.Difference) bool {
	if d.Field != "" || d.ID == "" {
		return false
	}
	find := func(st []drive.Record) []drive.Record {
		var out []drive.Record
		for _, r := range st {
			if r.ID == d.ID {
				out = append(out, r)
			}
		}
		return out
	}
	ref, gw, raw := find(c.ref.State), find(compare.NormalizeURNs(c.gw.State)), find(c.gw.State)
	if len(ref) != 1 || len(gw) != 1 || len(raw) != 1 || ref[0].URN == gw[0].URN {
		return false
	}
	// Groundwork's record keeps the name the object was written under;
	// the reference engine's was renamed.
	w := resource.URN(c.writtenUnder(d.ID))
	if w == "" || w.Name() != resource.URN(raw[0].URN).Name() || w.Name() == resource.URN(ref[0].URN).Name() {
		return false
	}
	a, b := ref[0], gw[0]
	a.URN, b.URN = "", ""
	ja, jb := recordString(a), recordString(b)
	return ja == jb
}

func recordString(r drive.Record) string {
	var b strings.Builder
	b.WriteString(r.URN + "|" + r.Type + "|" + r.ID + "|" + r.Parent + "|" + r.Provider + "|" + r.DeletedWith)
	for _, k := range slices.Sorted(maps.Keys(r.Inputs)) {
		b.WriteString("|i:" + k + "=" + r.Inputs[k])
	}
	for _, k := range slices.Sorted(maps.Keys(r.Outputs)) {
		b.WriteString("|o:" + k + "=" + r.Outputs[k])
	}
	b.WriteString("|" + strings.Join(compare.Dependencies(&r), ","))
	for _, f := range []bool{r.Custom, r.Delete, r.Protect, r.RetainOnDelete, r.PendingReplacement, r.External} {
		if f {
			b.WriteString("|t")
		} else {
			b.WriteString("|f")
		}
	}
	return b.String()
}

// renamedKept describes a run in which a protected resource that stays
// depends on a resource since renamed and replaced. Groundwork keeps the
// old copies the protected resource's record names (by their old URN) and
// what they depend on; the reference engine, whose rewritten record names
// the replacement, keeps the replacement and what it depends on instead.
type renamedKept struct {
	// gw are the IDs groundwork kept that the reference engine deleted (or
	// tried to), ref those the reference engine kept that groundwork
	// deleted (or tried to).
	gw, ref map[string]bool
	// gwRecords and refRecords are the same as record keys (URN and ID,
	// URNs as compare.NormalizeURNs gives them), components included.
	gwRecords, refRecords map[string]bool
	// renamed maps each kept copy's URN to its replacement's.
	renamed map[string]string
	// protected are the IDs of the protected records naming a kept copy.
	protected map[string]bool
}

// renamedKeptOf finds the run's renamedKept, or nil: the run failed in both
// engines because a protected resource was left out (or met by a destroy).
func (c *runContext) renamedKeptOf() *renamedKept {
	if !strings.Contains(c.gw.Err, "is protected and cannot be deleted") || !strings.Contains(c.ref.Err, "because it is protected") {
		return nil
	}
	rk := &renamedKept{gw: map[string]bool{}, ref: map[string]bool{}, gwRecords: map[string]bool{}, refRecords: map[string]bool{},
		renamed: map[string]string{}, protected: map[string]bool{}}
	var copies, replacements []string // URNs
	for _, x := range c.gw.State {
		if !x.Delete || !deletes(c.ref, x.ID) {
			continue
		}
		for _, y := range append(slices.Clone(c.gw.Before), c.gw.State...) {
			if !y.Delete && y.ID != x.ID && slices.Contains(y.Aliases, x.URN) {
				for _, p := range c.gw.State {
					if p.Protect && !p.Delete && slices.Contains(compare.Dependencies(&p), x.URN) {
						rk.protected[p.ID] = true
						rk.renamed[x.URN] = y.URN
					}
				}
			}
		}
		if _, ok := rk.renamed[x.URN]; ok {
			copies, replacements = append(copies, x.URN), append(replacements, rk.renamed[x.URN])
		}
	}
	if len(copies) == 0 {
		return nil
	}
	gwState := compare.NormalizeURNs(c.gw.State)
	for _, r := range reachable(c.gw.State, copies) {
		if deletes(c.ref, r.ID) || !r.Custom && !holds(c.ref.State, r.URN) {
			rk.gw[r.ID] = r.ID != ""
			rk.gwRecords[recordKey(r.URN, r.ID)] = true
		}
	}
	for _, r := range reachable(c.ref.State, replacements) {
		if deletes(c.gw, r.ID) || !r.Custom && !holds(gwState, r.URN) {
			rk.ref[r.ID] = r.ID != ""
			rk.refRecords[recordKey(r.URN, r.ID)] = true
		}
	}
	// Groundwork's records as the comparer sees them.
	norm := normalizedURNs(c.gw.State)
	for k := range maps.Clone(rk.gwRecords) {
		urn, id, _ := strings.Cut(k, "|")
		rk.gwRecords[recordKey(norm[urn], id)] = true
	}
	return rk
}

func recordKey(urn, id string) string { return urn + "|" + id }

// holds reports whether st records urn.
func holds(st []drive.Record, urn string) bool {
	return slices.ContainsFunc(st, func(r drive.Record) bool { return r.URN == urn })
}

// normalizedURNs maps each URN of st to the URN compare.NormalizeURNs
// gives its record.
func normalizedURNs(st []drive.Record) map[string]string {
	tagged := slices.Clone(st)
	for i := range tagged {
		tagged[i].ID = fmt.Sprint("#", i)
	}
	out := make(map[string]string, len(st))
	for _, r := range compare.NormalizeURNs(tagged) {
		var i int
		fmt.Sscan(strings.TrimPrefix(r.ID, "#"), &i)
		out[st[i].URN] = r.URN
	}
	return out
}

// deletes reports whether run deleted object id, or tried to.
func deletes(run *drive.Run, id string) bool {
	return slices.ContainsFunc(run.Ledger, func(e world.Entry) bool { return e.Op == spec.OpDelete && e.ID == id })
}

// reachable returns the records of st under the URNs from (or known by
// them), and every record they depend on, transitively.
func reachable(st []drive.Record, from []string) []drive.Record {
	var out []drive.Record
	seen := map[string]bool{}
	queue := slices.Clone(from)
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if seen[u] {
			continue
		}
		seen[u] = true
		for _, r := range st {
			if r.URN == u || slices.Contains(r.Aliases, u) {
				out = append(out, r)
				queue = append(queue, compare.Dependencies(&r)...)
			}
		}
	}
	return out
}

// renamedDependencyKept reports whether d follows from the run's
// renamedKept: operations that differ only in the deletes of what one
// engine kept and the other did not, records of those, and a protected
// record naming a kept copy's URN in groundwork and its replacement's in
// the reference.
func (c *runContext) renamedDependencyKept(d compare.Difference) bool {
	rk := c.renamedKeptOf()
	if rk == nil {
		return false
	}
	switch {
	case d.Kind == compare.KindOps:
		var ref, gw []string
		for _, e := range c.ref.Ledger {
			if e.URN == d.URN && !(e.Op == spec.OpDelete && rk.gw[e.ID]) {
				ref = append(ref, e.String())
			}
		}
		for _, e := range c.gw.Ledger {
			if e.URN == d.URN && !(e.Op == spec.OpDelete && rk.ref[e.ID]) {
				gw = append(gw, e.String())
			}
		}
		return slices.Equal(ref, gw)
	case d.Kind == compare.KindState && d.Field == "":
		return d.ID != "" && (rk.gw[d.ID] || rk.ref[d.ID]) || rk.gwRecords[recordKey(d.URN, d.ID)] || rk.refRecords[recordKey(d.URN, d.ID)]
	case d.Kind == compare.KindFailed:
		// The delete of something one engine kept failed in the other.
		failed := func(run *drive.Run, ids map[string]bool) bool {
			return slices.ContainsFunc(run.Ledger, func(e world.Entry) bool {
				return e.URN == d.URN && e.Failed && e.Op == spec.OpDelete && ids[e.ID]
			})
		}
		return failed(c.ref, rk.gw) || failed(c.gw, rk.ref)
	case d.Kind == compare.KindState && (d.Field == "dependencies" || d.Field == "propertyDependencies"):
		return rk.protected[d.ID] && c.dependsOnlyOtherwise(d.ID, rk.renamed)
	}
	return false
}

// dependsOnlyOtherwise reports whether the protected record id names a
// replacement's URN in the reference where it names the kept copy's in
// groundwork, and the same URNs otherwise.
func (c *runContext) dependsOnlyOtherwise(id string, renamed map[string]string) bool {
	var ref, gw []string
	for _, r := range c.ref.State {
		if r.ID == id && !r.Delete {
			ref = compare.Dependencies(&r)
		}
	}
	for _, r := range c.gw.State {
		if r.ID == id && !r.Delete {
			gw = compare.Dependencies(&r)
		}
	}
	for k, u := range gw {
		if to, ok := renamed[u]; ok {
			gw[k] = to
		}
	}
	slices.Sort(ref)
	slices.Sort(gw)
	return len(ref) > 0 && slices.Equal(ref, gw)
}

// refSnapshotMixedURN reports whether the reference engine's operation
// stopped at its own snapshot check, on a reference to a URN no record
// holds that mixes a renamed parent's new type with a child's old name or
// place: a record groundwork holds was known by that name and type under
// another parent type, and no record holds the URN itself.
func (c *runContext) refSnapshotMixedURN() bool {
	const check = "failed to verify snapshot: "
	i := strings.Index(c.ref.Err, check)
	if i < 0 || c.gw.Invalid != "" {
		return false
	}
	rest := c.ref.Err[i+len(check):]
	j := strings.Index(rest, "refers to missing dependency ")
	if j < 0 {
		return false
	}
	missing := resource.URN(strings.Fields(rest[j+len("refers to missing dependency "):])[0])
	if !missing.IsValid() {
		return false
	}
	if holds(c.gw.State, string(missing)) || holds(compare.NormalizeURNs(c.gw.State), string(missing)) {
		return false
	}
	for _, r := range c.gw.State {
		for _, a := range r.Aliases {
			old := resource.URN(a)
			if old.IsValid() && old.Name() == missing.Name() && old.Type() == missing.Type() &&
				old.QualifiedType() != missing.QualifiedType() {
				return true
			}
		}
	}
	return false
}
