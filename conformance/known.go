package conformance

import (
	"strings"

	"github.com/groundwork-iac/groundwork/conformance/compare"
	"github.com/groundwork-iac/groundwork/conformance/drive"
	"github.com/groundwork-iac/groundwork/conformance/spec"
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
		// Pending (issue #19, item 6): after a failed update, the stack
		// keeps its old outputs.
		name: "pending: stack outputs after a failed update", goOn: true,
		match: func(c *runContext, d compare.Difference) bool {
			return d.Kind == compare.KindState && d.Field == "outputs" &&
				strings.Contains(d.URN, "::pulumi:pulumi:Stack::") && c.ref.Err != "" && c.gw.Err != ""
		},
	},
	{
		// Pending: a registration the step generator refuses (a
		// protected resource's replacement) fails the operation with an
		// error naming the resource, but shows no failed step.
		name: "pending: a refused registration is not a failed step", goOn: true,
		match: func(c *runContext, d compare.Difference) bool {
			return d.Kind == compare.KindFailed && d.Engine == "pulumi" && c.gw.Err != "" &&
				strings.Contains(c.gw.Err, d.URN)
		},
	},
	{
		// Pending (issue #19, item 4): a protected resource left out of
		// the program, or a destroy of a stack holding one, deletes what
		// it safely can and then fails naming the protected resource.
		name: "pending: a protected resource blocks every delete", goOn: false,
		match: func(c *runContext, _ compare.Difference) bool {
			return strings.Contains(c.gw.Err, "is protected and cannot be deleted")
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
