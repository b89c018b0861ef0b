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
}

// knownDifferences are recognised in this order; the first that matches a
// difference names it.
var knownDifferences = []knownDifference{
	{
		// COMPATIBILITY.md: "An interrupted delete-before-replace is not
		// deleted again". The reference engine deletes once more, through
		// the provider, the old copy a delete-before-replace already
		// deleted, when a create-before-delete replacement follows. When
		// the program injects a failure of that delete, the reference
		// engine's update fails on it.
		name: "double-delete-after-interrupted-dbr", deliberate: true, goOn: true,
		match: func(c *runContext, d compare.Difference) bool {
			switch {
			case d.Kind == compare.KindOps:
				return c.onlyExtraDeletesOfPending(d.URN)
			case d.Kind == compare.KindFailed && d.Engine == "pulumi":
				return c.refFailedOnlyDeletingPending(d.URN)
			case d.Kind == compare.KindOutcome:
				return c.gw.Err == "" && c.refFailedOnlyDeletingPending("")
			case d.Kind == compare.KindState && resource.URN(d.URN).Type() == resource.RootStackType:
				// The failed update kept the stack's outputs of
				// the one before.
				return d.Field == "outputs" && c.gw.Err == "" && c.refFailedOnlyDeletingPending("")
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
		// COMPATIBILITY.md: "A delete-before-replace cascade that deletes
		// an old copy leaves the live resource alone". The reference
		// engine's cascade, deleting an old copy marked for deletion that
		// depended on the resource replaced, marks the copy's URN as
		// deleted; the live resource under that URN, registered, is then
		// created again beside itself, and the reference engine's own
		// snapshot check stops the update on the duplicate.
		name: "cascade-deletes-an-old-copy-not-its-resource", deliberate: true, goOn: false,
		match: func(c *runContext, d compare.Difference) bool {
			return d.Kind == compare.KindInvalid && d.Engine == "pulumi" && c.refDuplicatedAfterCopyDelete()
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
				return d.Field == "" && c.keptFor(d.URN, d.ID)
			case compare.KindFailed:
				// The reference engine's delete of a kept copy failed.
				return d.Engine == "pulumi" && slices.ContainsFunc(c.ref.Ledger, func(e world.Entry) bool {
					return e.URN == d.URN && e.Op == spec.OpDelete && e.Failed && c.keptCopy(d.URN, e.ID)
				})
			}
			return false
		},
	},
	{
		// COMPATIBILITY.md: "Which deletes run beside a failing one
		// depends on the schedule". With fewer steps at once than the
		// deletes of an antichain, which of them have started when an
		// injected delete failure stops the rest is the schedule's
		// choice, in each engine.
		name: "deletes-beside-a-failure-under-bounded-parallelism", goOn: false,
		match: func(c *runContext, d compare.Difference) bool {
			if !c.boundedParallelism() || !failedDelete(c.ref.Ledger) || !failedDelete(c.gw.Ledger) {
				return false
			}
			switch d.Kind {
			case compare.KindState:
				return d.Field == ""
			case compare.KindOps:
				return c.onlyDeletesDiffer(d.URN)
			case compare.KindFailed:
				// The failure that stopped one engine's deletes was
				// of a delete the other had not started, or the
				// other stopped before the refused delete of a
				// protected resource.
				run := c.ref
				if d.Engine != "pulumi" {
					run = c.gw
				}
				return c.onlyDeletesDiffer(d.URN) && (slices.ContainsFunc(run.Ledger, func(e world.Entry) bool {
					return e.URN == d.URN && e.Op == spec.OpDelete && e.Failed
				}) || c.refusedDeleteAlone(run, d.URN))
			}
			return false
		},
	},
}

// explainer returns the compare.Explainer that recognises the known
// differences in p's traces.
func explainer(p *spec.Program, ref, gw *drive.Trace) compare.Explainer {
	return func(i int, d compare.Difference) (string, bool) {
		c := &runContext{p: p, i: i, ref: &ref.Runs[i], gw: &gw.Runs[i]}
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
		if e.Op == spec.OpDelete && (e.Missing || e.Failed) && c.pendingBefore(e.ID) {
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

// refFailedOnlyDeletingPending reports whether every injected failure that
// fired in the reference's run (at least one, on urn unless urn is "") was
// of a delete of an object already deleted (pending replacement before the
// run), and none fired in groundwork's.
func (c *runContext) refFailedOnlyDeletingPending(urn string) bool {
	if slices.ContainsFunc(c.gw.Ledger, func(e world.Entry) bool { return e.Failed }) {
		return false
	}
	found := false
	for _, e := range c.ref.Ledger {
		if !e.Failed {
			continue
		}
		if e.Op != spec.OpDelete || !c.pendingBefore(e.ID) {
			return false
		}
		found = found || urn == "" || e.URN == urn
	}
	return found
}

// keptCopy reports whether groundwork kept, and the reference engine
// deleted (or tried to), the copy id marked for deletion under urn, which a resource
// that stays because of a protected one (itself, or one of its
// dependencies) depends on. A copy of a resource this run renamed is
// recorded under the new URN once the rename settles, while its delete
// went under urn, the old one: a dependency on either counts.
func (c *runContext) keptCopy(urn, id string) bool {
	if !strings.Contains(c.gw.Err, "is protected and cannot be deleted") {
		return false
	}
	kept := false
	keptURN := urn
	for _, r := range c.gw.State {
		if r.ID == id && r.Delete && (r.URN == urn || c.renamedTo(urn, r.URN)) {
			kept, keptURN = true, r.URN
		}
	}
	if !kept || !c.refLetGo(id) {
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
		deps := compare.Dependencies(&r)
		if r.Custom && stays && (slices.Contains(deps, urn) || slices.Contains(deps, keptURN)) {
			return true
		}
	}
	return false
}

// renamedTo reports whether this run's version registers to through an
// alias naming from's name.
func (c *runContext) renamedTo(from, to string) bool {
	if c.i >= len(c.p.Versions) {
		return false
	}
	f, t := resource.URN(from), resource.URN(to)
	return slices.ContainsFunc(c.p.Versions[c.i].Resources, func(r spec.Resource) bool {
		return r.Name == t.Name() && slices.ContainsFunc(r.Aliases, func(a spec.Alias) bool { return a.Name == f.Name() })
	})
}

// refLetGo reports whether the reference engine deleted the object id (or
// tried to), or let it go without a provider call (retain-on-delete).
func (c *runContext) refLetGo(id string) bool {
	if slices.ContainsFunc(c.ref.Ledger, func(e world.Entry) bool { return e.Op == spec.OpDelete && e.ID == id }) {
		return true
	}
	retained := slices.ContainsFunc(c.ref.Before, func(r drive.Record) bool { return r.ID == id && r.RetainOnDelete })
	return retained && !slices.ContainsFunc(c.ref.State, func(r drive.Record) bool { return r.ID == id })
}

// keptFor reports whether groundwork kept, and the reference engine let
// go, the object id under urn: a copy kept for a protected dependent (see
// keptCopy), or a live resource the program no longer registers that such
// a copy depends on — the copy still exists, so what it uses stays.
func (c *runContext) keptFor(urn, id string) bool {
	if c.keptCopy(urn, id) {
		return true
	}
	if c.i >= len(c.p.Versions) || !c.refLetGo(id) ||
		!slices.ContainsFunc(c.gw.State, func(r drive.Record) bool { return r.ID == id && r.URN == urn && !r.Delete }) ||
		slices.Contains(slices.Collect(maps.Values(c.p.URNs(c.i))), resource.URN(urn)) {
		return false
	}
	for _, r := range c.gw.State {
		if r.Delete && slices.Contains(compare.Dependencies(&r), urn) && c.keptCopy(r.URN, r.ID) {
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
		if e.Op == spec.OpDelete && c.keptFor(urn, e.ID) {
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

// refDuplicatedAfterCopyDelete reports whether the reference's state
// failed its check on a duplicate URN under which, in this run, it deleted
// an old copy marked for deletion and then created an object, beside a
// live record it held there before the run; groundwork records one live
// resource under the URN.
func (c *runContext) refDuplicatedAfterCopyDelete() bool {
	const dup = "duplicate resource "
	i := strings.Index(c.ref.Invalid, dup)
	if i < 0 || c.gw.Invalid != "" {
		return false
	}
	urn := strings.Fields(c.ref.Invalid[i+len(dup):])[0]
	copyDeleted, created := false, false
	for _, e := range c.ref.Ledger {
		switch {
		case e.URN == urn && e.Op == spec.OpDelete && !e.Failed && slices.ContainsFunc(c.ref.Before, func(r drive.Record) bool {
			return r.URN == urn && r.ID == e.ID && r.Delete
		}):
			copyDeleted = true
		case e.URN == urn && e.Op == spec.OpCreate && copyDeleted:
			created = true
		}
	}
	live := func(r drive.Record) bool { return r.URN == urn && !r.Delete }
	if !created || !slices.ContainsFunc(c.ref.Before, live) {
		return false
	}
	n := 0
	for _, r := range c.gw.State {
		if live(r) {
			n++
		}
	}
	return n == 1
}

// holds reports whether st records urn.
func holds(st []drive.Record, urn string) bool {
	return slices.ContainsFunc(st, func(r drive.Record) bool { return r.URN == urn })
}

// refSnapshotMixedURN reports whether the reference engine's operation
// stopped at its own snapshot check, on a reference to a URN no record
// holds that mixes a renamed parent's new type with a child's old name or
// place: in this version the child is renamed or moved through an alias
// under a parent that is renamed or retyped through one, groundwork holds
// the child under its new name, and no record holds the URN itself.
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
	if c.i >= len(c.p.Versions) {
		return false
	}
	v := c.p.Versions[c.i].Resources
	// aliased reports whether the version renames, retypes or moves the
	// resource once named name, or renames another to name.
	aliased := func(name string) bool {
		return slices.ContainsFunc(v, func(r spec.Resource) bool {
			return len(r.Aliases) > 0 && (r.Name == name ||
				slices.ContainsFunc(r.Aliases, func(a spec.Alias) bool { return a.Name == name }))
		})
	}
	for _, r := range v {
		moved := slices.ContainsFunc(r.Aliases, func(a spec.Alias) bool { return a.Parent != nil && *a.Parent != "" && aliased(*a.Parent) })
		if len(r.Aliases) == 0 || (!moved && (r.Parent == "" || !aliased(r.Parent))) ||
			(r.Name != missing.Name() && !slices.ContainsFunc(r.Aliases, func(a spec.Alias) bool { return a.Name == missing.Name() })) {
			continue
		}
		// The missing URN has the child's type: its own, or the one it
		// had before an alias retyped it too.
		typed := slices.ContainsFunc(r.Aliases, func(a spec.Alias) bool { return a.Type != "" && a.Type == missing.Type() })
		for _, rec := range c.gw.State {
			if u := resource.URN(rec.URN); u.IsValid() && u.Name() == r.Name && (typed || u.Type() == missing.Type()) {
				return true
			}
		}
	}
	return false
}

// boundedParallelism reports whether the program runs with fewer steps at
// once than the engines' default.
func (c *runContext) boundedParallelism() bool {
	sch := c.p.Schedule
	return sch != nil && sch.Parallelism > 0 && sch.Parallelism < drive.Parallelism
}

// failedDelete reports whether an injected delete failure fired in ledger.
func failedDelete(ledger []world.Entry) bool {
	return slices.ContainsFunc(ledger, func(e world.Entry) bool { return e.Op == spec.OpDelete && e.Failed })
}

// onlyDeletesDiffer reports whether the two engines' operations on urn
// differ only by deletes: at their ends, one engine deleted an object (or
// failed to) that the other had not got to; or, between two copies under
// urn, each engine started the delete of another one first.
func (c *runContext) onlyDeletesDiffer(urn string) bool {
	ops := func(ledger []world.Entry) []world.Entry {
		var out []world.Entry
		for _, e := range ledger {
			if e.URN == urn {
				out = append(out, e)
			}
		}
		return out
	}
	a, b := ops(c.ref.Ledger), ops(c.gw.Ledger)
	if len(a) > len(b) {
		a, b = b, a
	}
	for i, e := range b {
		if i >= len(a) {
			if e.Op != spec.OpDelete {
				return false
			}
			continue
		}
		if f := a[i]; f.Op != e.Op || f.Failed != e.Failed || (f.ID != e.ID && e.Op != spec.OpDelete) {
			return false
		}
	}
	return true
}

// refusedDeleteAlone reports whether run's engine refused to delete urn, a
// protected resource, and neither engine called a provider on it.
func (c *runContext) refusedDeleteAlone(run *drive.Run, urn string) bool {
	touched := func(e world.Entry) bool { return e.URN == urn }
	return strings.Contains(run.Err, urn) && strings.Contains(run.Err, "protected") &&
		!slices.ContainsFunc(c.ref.Ledger, touched) && !slices.ContainsFunc(c.gw.Ledger, touched)
}
