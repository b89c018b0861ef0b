package conformance

import (
	"maps"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/conformance/compare"
	"github.com/groundwork-iac/groundwork/conformance/drive"
	"github.com/groundwork-iac/groundwork/conformance/spec"
	"github.com/groundwork-iac/groundwork/conformance/world"
	"github.com/groundwork-iac/groundwork/resource"
)

// A knownDifference is a difference between the engines that the suite
// expects: deliberate — groundwork does the right thing where the
// reference engine does not, and COMPATIBILITY.md lists it under its name
// — or pending: behaviour another change is bringing in line, recognised so
// that a campaign sees past it, and counted like the deliberate ones.
type knownDifference struct {
	name string
	// deliberate marks a difference COMPATIBILITY.md lists.
	deliberate bool
	// goOn says the engines' worlds and resource states agree after it.
	goOn  bool
	match func(c *runContext, d compare.Difference) bool
}

// runContext is what a recogniser sees of the run a difference is in.
type runContext struct {
	p       *spec.Program
	i       int
	ref, gw *drive.Run
	// gwTrace is groundwork's whole trace, for the URNs objects were
	// written under in earlier runs.
	gwTrace *drive.Trace
}

// knownDifferences are recognised in this order; the first that matches a
// difference names it.
var knownDifferences = []knownDifference{
	{
		// COMPATIBILITY.md: "An interrupted delete-before-replace is not
		// deleted again". The reference engine deletes once more, through
		// the provider, the old copy a delete-before-replace already
		// deleted, when a create-before-delete replacement follows.
		name: "double-delete-after-interrupted-dbr", deliberate: true, goOn: true,
		match: func(c *runContext, d compare.Difference) bool {
			switch {
			case d.Kind == compare.KindOps:
				return c.onlyExtraDeletesOfPending(d.URN)
			case d.Kind == compare.KindInvariant && d.Engine == "pulumi":
				for _, e := range c.ref.Ledger {
					if e.Missing && e.Op == spec.OpDelete && c.pendingBefore(e.ID) &&
						strings.Contains(d.Detail, "delete of "+e.ID+",") {
						return true
					}
				}
			}
			return false
		},
	},
	{
		// COMPATIBILITY.md: "A record keeps the URN it was written
		// under". Pulumi's engine rewrites, when it writes a snapshot,
		// the URN of a record whose parent was renamed and of the old
		// copy of a renamed resource; a record no registration takes over
		// later reaches the provider's Delete under the new URN.
		// groundwork keeps the URN the object was recorded under.
		name: "record-keeps-its-urn", deliberate: true, goOn: true,
		match: func(c *runContext, d compare.Difference) bool {
			switch d.Kind {
			case compare.KindOps:
				return c.onlyRenamedDeletes(d.URN)
			case compare.KindFailed:
				return c.failedUnderOtherURN(d)
			case compare.KindState:
				return c.recordUnderWrittenURN(d)
			}
			return false
		},
	},
	{
		// COMPATIBILITY.md: "Every old copy a protected resource may
		// still use is kept". A protected resource that stays depends on
		// a resource since renamed and replaced: the reference engine's
		// rewritten reference names the replacement, so it keeps the
		// replacement and deletes the old copy the protected resource
		// was created against; groundwork keeps that copy and deletes the
		// replacement, which nothing that stays depends on.
		name: "protected-dependency-renamed-kept", deliberate: true, goOn: false,
		match: func(c *runContext, d compare.Difference) bool {
			return c.renamedDependencyKept(d)
		},
	},
	{
		// COMPATIBILITY.md: "A child renamed under a renamed parent
		// leaves a valid state". The reference engine, rewriting a
		// reference to a child renamed while its parent was renamed or
		// retyped, writes a URN that mixes the two, and its own snapshot
		// check stops the update.
		name: "snapshot-check-fails-on-parent-and-child-renames", deliberate: true, goOn: false,
		match: func(c *runContext, d compare.Difference) bool {
			return c.refSnapshotMixedURN()
		},
	},
	{
		// COMPATIBILITY.md: "Every old copy a protected resource may
		// still use is kept". Of the copies marked for deletion under
		// the URN a protected resource that stays depends on, the
		// reference engine keeps one and deletes the others; groundwork
		// keeps them all.
		name: "protected-dependency-copies-kept", deliberate: true, goOn: false,
		match: func(c *runContext, d compare.Difference) bool {
			switch d.Kind {
			case compare.KindOps:
				return c.onlyExtraDeletesOfKeptCopies(d.URN)
			case compare.KindState:
				return d.Field == "" && c.keptCopy(d.URN, d.ID)
			case compare.KindFailed:
				// The reference engine's delete of a kept copy failed.
				return d.Engine == "pulumi" && slices.ContainsFunc(c.ref.Ledger, func(e world.Entry) bool {
					return e.URN == d.URN && e.Op == spec.OpDelete && e.Failed && c.keptCopy(d.URN, e.ID)
				})
			}
			return false
		},
	},
}

// explainer returns the compare.Explainer that recognises the known
// differences in p's traces.
func explainer(p *spec.Program, ref, gw *drive.Trace) compare.Explainer {
	return func(i int, d compare.Difference) (string, bool) {
		c := &runContext{p: p, i: i, ref: &ref.Runs[i], gw: &gw.Runs[i], gwTrace: gw}
		for _, k := range knownDifferences {
			if k.match(c, d) {
				return k.name, k.goOn
			}
		}
		return "", false
	}
}

// pendingBefore reports whether the reference's state before the run held
// the object id as pending replacement (deleted by an interrupted
// delete-before-replace).
func (c *runContext) pendingBefore(id string) bool {
	for _, r := range c.ref.Before {
		if r.ID == id && r.PendingReplacement {
			return true
		}
	}
	return false
}

// onlyExtraDeletesOfPending reports whether the reference's operations on
// urn are groundwork's plus deletes of objects that were already deleted
// (pending replacement).
func (c *runContext) onlyExtraDeletesOfPending(urn string) bool {
	var ref, gw []string
	extra := false
	for _, e := range c.ref.Ledger {
		if e.URN != urn {
			continue
		}
		if e.Op == spec.OpDelete && e.Missing && c.pendingBefore(e.ID) {
			extra = true
			continue
		}
		ref = append(ref, e.String())
	}
	for _, e := range c.gw.Ledger {
		if e.URN == urn {
			gw = append(gw, e.String())
		}
	}
	return extra && strings.Join(ref, "\n") == strings.Join(gw, "\n")
}

// onlyRenamedDeletes reports whether the operations on urn differ only in
// the URN a delete passed: groundwork's delete of an object passed the URN
// its record had before the run, where the reference engine's record, and
// delete, carry the URN that normalizing groundwork's state through its
// aliases gives that record.
func (c *runContext) onlyRenamedDeletes(urn string) bool {
	refURN := map[string]string{} // ID → the URN of the reference's record
	for _, r := range c.ref.Before {
		refURN[r.ID] = r.URN
	}
	normalized := map[string]string{} // ID → groundwork's record's URN, normalized
	for _, r := range compare.NormalizeURNs(c.gw.Before) {
		normalized[r.ID] = r.URN
	}
	renamed := false
	var ref, gw []string
	for _, e := range c.ref.Ledger {
		if e.URN == urn {
			ref = append(ref, e.String())
		}
	}
	for _, e := range c.gw.Ledger {
		if e.Op == spec.OpDelete && e.URN != refURN[e.ID] && normalized[e.ID] == refURN[e.ID] && refURN[e.ID] != "" {
			e.URN, renamed = refURN[e.ID], true
		}
		if e.URN == urn {
			gw = append(gw, e.String())
		}
	}
	if !renamed {
		return false
	}
	slices.Sort(ref)
	slices.Sort(gw)
	return slices.Equal(ref, gw)
}

// failedUnderOtherURN reports whether d, a resource that failed in one
// engine only, is the same resource failing in the other under the URN
// its record has there: the reference engine renamed the record (see
// onlyRenamedDeletes).
func (c *runContext) failedUnderOtherURN(d compare.Difference) bool {
	gwToRef := map[string]string{} // groundwork's URN → the reference's, by ID
	refURN := map[string]string{}
	for _, r := range c.ref.Before {
		refURN[r.ID] = r.URN
	}
	normalized := map[string]string{} // ID → groundwork's record's URN, normalized
	for _, r := range compare.NormalizeURNs(c.gw.Before) {
		normalized[r.ID] = r.URN
	}
	for _, r := range c.gw.Before {
		if to := refURN[r.ID]; r.ID != "" && to != r.URN && normalized[r.ID] == to {
			gwToRef[r.URN] = to
		}
	}
	// A component has no ID: its normalized URN must be the reference's.
	norm := normalizedURNs(c.gw.Before)
	for _, r := range c.gw.Before {
		if to := norm[r.URN]; r.ID == "" && to != r.URN && holds(c.ref.Before, to) {
			gwToRef[r.URN] = to
		}
	}
	if d.Engine == "pulumi" {
		for from, to := range gwToRef {
			if to == d.URN && slices.Contains(c.gw.Failed, from) {
				return true
			}
		}
		return false
	}
	to, ok := gwToRef[d.URN]
	return ok && slices.Contains(c.ref.Failed, to)
}

// keptCopy reports whether groundwork kept, and the reference engine
// deleted (or tried to), the copy id marked for deletion under urn, which a resource
// that stays because of a protected one (itself, or one of its
// dependencies) depends on.
func (c *runContext) keptCopy(urn, id string) bool {
	if !strings.Contains(c.gw.Err, "is protected and cannot be deleted") {
		return false
	}
	kept := false
	for _, r := range c.gw.State {
		if r.URN == urn && r.ID == id && r.Delete {
			kept = true
		}
	}
	deleted := false // or tried to
	for _, e := range c.ref.Ledger {
		if e.Op == spec.OpDelete && e.ID == id {
			deleted = true
		}
	}
	if !kept || !deleted {
		return false
	}
	// A record that stays though the program did not register it (a
	// protected resource, or one a protected resource depends on: a live
	// record, or a copy marked for deletion) and that depends on urn.
	var registered map[string]resource.URN
	if c.i < len(c.p.Versions) {
		registered = c.p.URNs(c.i)
	}
	for _, r := range compare.NormalizeURNs(c.gw.State) {
		stays := r.Delete || !slices.Contains(slices.Collect(maps.Values(registered)), resource.URN(r.URN))
		if r.Custom && stays && slices.Contains(compare.Dependencies(&r), urn) {
			return true
		}
	}
	return false
}

// onlyExtraDeletesOfKeptCopies reports whether the reference's operations
// on urn are groundwork's plus deletes of copies groundwork kept for a
// protected dependent (see keptCopy).
func (c *runContext) onlyExtraDeletesOfKeptCopies(urn string) bool {
	var ref, gw []string
	extra := false
	for _, e := range c.ref.Ledger {
		if e.URN != urn {
			continue
		}
		if e.Op == spec.OpDelete && c.keptCopy(urn, e.ID) {
			extra = true
			continue
		}
		ref = append(ref, e.String())
	}
	for _, e := range c.gw.Ledger {
		if e.URN == urn {
			gw = append(gw, e.String())
		}
	}
	return extra && slices.Equal(ref, gw)
}
