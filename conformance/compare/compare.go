// Package compare compares what two engines did with one program (two
// drive.Traces, the reference first), run by run: the outcome of each
// operation and which resources failed, the physical operations on each
// resource (so whether a replacement deleted first), the order of
// operations on resources that depend on each other, the invariants each
// engine must keep (nothing leaked, nothing lost, no object deleted twice,
// nothing deleted before what depends on it), and the state left.
//
// Only the first run that differs is reported: later runs start from
// different states, and their differences follow from the first. What may
// legitimately differ is normalized before (package drive) or ignored here:
// timestamps, provider IDs, the order of records in a snapshot and the
// schedule of operations on independent resources.
package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/conformance/drive"
	"github.com/groundwork-iac/groundwork/conformance/spec"
)

// The kinds of difference, most telling first.
const (
	KindInvalid   = "invalid-state" // an engine's state failed its integrity check
	KindOutcome   = "outcome"       // one engine's operation failed, the other's succeeded
	KindFailed    = "failed-steps"  // different resources failed
	KindOps       = "ops"           // different physical operations on a resource
	KindOrder     = "order"         // dependent resources' operations in a different order
	KindInvariant = "invariant"     // an engine broke an invariant the other kept
	KindState     = "state"         // different state left
)

var kindRank = map[string]int{KindInvalid: 0, KindOutcome: 1, KindFailed: 2, KindOps: 3, KindOrder: 4, KindInvariant: 5, KindState: 6}

// Difference is one way the engines differ in one run.
type Difference struct {
	// Run is the operation, as drive.Run.Name.
	Run  string
	Kind string
	// URN is the resource the difference is about, if one: the record
	// (state), the URN passed to the provider (ops), the resource that
	// failed in one engine only (failed-steps).
	URN string
	// Field is the record's field that differs (state; "" when one
	// engine has the record and the other not).
	Field string
	// ID is the record's ID (state).
	ID string
	// Engine is the engine that broke an invariant, or that alone failed
	// a resource.
	Engine string
	Detail string
}

func (d Difference) String() string {
	return fmt.Sprintf("%s: %s: %s", d.Run, d.Kind, d.Detail)
}

// Result is the comparison of two traces.
type Result struct {
	// Differences are the unexplained differences of the first run that
	// has any, most telling first.
	Differences []Difference
	// Run is the index of that run, -1 if none.
	Run int
	// Known are the differences the explainer recognised, in the runs
	// compared.
	Known []Known
}

// Known is a difference an Explainer recognised.
type Known struct {
	Name string
	Difference
}

// An Explainer recognises a difference of run i that is known (deliberate,
// or awaiting a fix): it returns the difference's name, and whether the
// engines' worlds and resource states still agree after it so that the
// comparison may go on with the next run. It returns "" for a difference
// it does not know.
type Explainer func(i int, d Difference) (name string, goOn bool)

// Kinds returns the distinct kinds of r's differences, most telling first.
func (r *Result) Kinds() []string {
	var kinds []string
	for _, d := range r.Differences {
		if !slices.Contains(kinds, d.Kind) {
			kinds = append(kinds, d.Kind)
		}
	}
	return kinds
}

// Primary is the most telling kind of difference, "" if there is none.
func (r *Result) Primary() string {
	if len(r.Differences) == 0 {
		return ""
	}
	return r.Differences[0].Kind
}

// Compare compares gw's trace of p with the reference's, run by run, and
// stops at the first run with a difference explain does not recognise, or
// one after which the engines no longer agree. explain may be nil.
func Compare(p *spec.Program, ref, gw *drive.Trace, explain Explainer) *Result {
	res := &Result{Run: -1}
	n := max(len(ref.Runs), len(gw.Runs))
	for i := 0; i < n; i++ {
		if i >= len(ref.Runs) || i >= len(gw.Runs) {
			res.Run = i
			res.Differences = []Difference{{Run: fmt.Sprintf("run %d", i+1), Kind: KindOutcome,
				Detail: fmt.Sprintf("%s ran %d operations, %s %d", ref.Engine, len(ref.Runs), gw.Engine, len(gw.Runs))}}
			return res
		}
		goOn := true
		var unexplained []Difference
		for _, d := range compareRun(&ref.Runs[i], &gw.Runs[i], ref.Engine, gw.Engine) {
			name, ok := "", false
			if explain != nil {
				name, ok = explain(i, d)
			}
			if name == "" {
				unexplained = append(unexplained, d)
				continue
			}
			res.Known = append(res.Known, Known{Name: name, Difference: d})
			goOn = goOn && ok
		}
		if len(unexplained) > 0 {
			slices.SortStableFunc(unexplained, func(a, b Difference) int { return kindRank[a.Kind] - kindRank[b.Kind] })
			res.Run, res.Differences = i, unexplained
			return res
		}
		if !goOn {
			return res
		}
	}
	return res
}

// KnownNames returns the distinct names of r's known differences, sorted.
func (r *Result) KnownNames() []string {
	var names []string
	for _, k := range r.Known {
		names = append(names, k.Name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func compareRun(a, b *drive.Run, ea, eb string) []Difference {
	var ds []Difference
	add := func(d Difference) {
		d.Run = a.Name
		ds = append(ds, d)
	}
	if a.Invalid != "" || b.Invalid != "" {
		if a.Invalid != "" {
			add(Difference{Kind: KindInvalid, Engine: ea, Detail: ea + ": " + a.Invalid})
		}
		if b.Invalid != "" {
			add(Difference{Kind: KindInvalid, Engine: eb, Detail: eb + ": " + b.Invalid})
		}
		return ds
	}
	if (a.Err == "") != (b.Err == "") {
		add(Difference{Kind: KindOutcome, Detail: fmt.Sprintf("%s %s, %s %s", ea, outcome(a), eb, outcome(b))})
	}
	for _, u := range a.Failed {
		if !slices.Contains(b.Failed, u) {
			add(Difference{Kind: KindFailed, URN: u, Engine: ea, Detail: fmt.Sprintf("%s failed %s, %s did not", ea, short(u), eb)})
		}
	}
	for _, u := range b.Failed {
		if !slices.Contains(a.Failed, u) {
			add(Difference{Kind: KindFailed, URN: u, Engine: eb, Detail: fmt.Sprintf("%s failed %s, %s did not", eb, short(u), ea)})
		}
	}
	ds = append(ds, compareOps(a, b, ea, eb)...)
	ds = append(ds, compareOrder(a, b, ea, eb)...)
	va, vb := Invariants(a), Invariants(b)
	for _, v := range vb {
		if !slices.Contains(va, v) {
			add(Difference{Kind: KindInvariant, Engine: eb, Detail: eb + ": " + v})
		}
	}
	for _, v := range va {
		if !slices.Contains(vb, v) {
			add(Difference{Kind: KindInvariant, Engine: ea, Detail: ea + ": " + v})
		}
	}
	ds = append(ds, compareStates(NormalizeURNs(a.State), NormalizeURNs(b.State), ea, eb)...)
	for i := range ds {
		ds[i].Run = a.Name
	}
	return ds
}

func outcome(r *drive.Run) string {
	if r.Err == "" {
		return "succeeded"
	}
	return "failed (" + firstLine(r.Err) + ")"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func shortList(urns []string) string {
	if len(urns) == 0 {
		return "nothing"
	}
	out := make([]string, len(urns))
	for i, u := range urns {
		out[i] = short(u)
	}
	return strings.Join(out, ", ")
}

// short drops a URN's stack and project.
func short(urn string) string {
	parts := strings.SplitN(urn, "::", 3)
	if len(parts) == 3 {
		return parts[2]
	}
	return urn
}
