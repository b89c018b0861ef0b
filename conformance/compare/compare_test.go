package compare

import (
	"slices"
	"testing"

	"github.com/groundwork-iac/groundwork/conformance/drive"
	"github.com/groundwork-iac/groundwork/conformance/spec"
	"github.com/groundwork-iac/groundwork/conformance/world"
)

const (
	urnA = "urn:pulumi:stk::proj::world:index:Thing::a"
	urnB = "urn:pulumi:stk::proj::world:index:Thing::b"
	urnC = "urn:pulumi:stk::proj::world:index:Thing::c"
)

// run is one update: b depends on a, c is independent; a is replaced
// (create-before-delete), then b updated, c updated.
func run() drive.Run {
	before := []drive.Record{
		{URN: urnA, Custom: true, ID: "a-1"},
		{URN: urnB, Custom: true, ID: "b-1", Dependencies: []string{urnA}},
		{URN: urnC, Custom: true, ID: "c-1"},
	}
	after := []drive.Record{
		{URN: urnA, Custom: true, ID: "a-2"},
		{URN: urnB, Custom: true, ID: "b-1", Dependencies: []string{urnA}},
		{URN: urnC, Custom: true, ID: "c-1"},
	}
	return drive.Run{
		Name: "up 2", Before: before, State: after,
		Ledger: []world.Entry{
			{Op: spec.OpCreate, URN: urnA, ID: "a-2"},
			{Op: spec.OpUpdate, URN: urnB, ID: "b-1"},
			{Op: spec.OpUpdate, URN: urnC, ID: "c-1"},
			{Op: spec.OpDelete, URN: urnA, ID: "a-1"},
		},
		Live: map[string]world.Object{"a-2": {ID: "a-2"}, "b-1": {ID: "b-1"}, "c-1": {ID: "c-1"}},
	}
}

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(r *drive.Run)
		kinds []string
	}{
		{"same", func(*drive.Run) {}, nil},
		{"independent operations in another order", func(r *drive.Run) {
			r.Ledger[1], r.Ledger[2] = r.Ledger[2], r.Ledger[1]
		}, nil},
		{"the deletes of two copies of one URN in another order", func(r *drive.Run) {
			r.Ledger = append(r.Ledger[:3], world.Entry{Op: spec.OpDelete, URN: urnA, ID: "a-0"}, r.Ledger[3])
		}, nil},
		{"outcome", func(r *drive.Run) { r.Err = "boom" }, []string{KindOutcome}},
		{"failed steps", func(r *drive.Run) { r.Failed = []string{urnC} }, []string{KindFailed}},
		{"a missing operation", func(r *drive.Run) { r.Ledger = r.Ledger[:3] }, []string{KindOps}},
		{"a dependent updated before its dependency is created", func(r *drive.Run) {
			r.Ledger[0], r.Ledger[1] = r.Ledger[1], r.Ledger[0]
		}, []string{KindOrder}},
		{"delete first", func(r *drive.Run) {
			r.Ledger = append([]world.Entry{r.Ledger[3]}, r.Ledger[:3]...)
		}, []string{KindOps, KindOrder}},
		{"a field of the state", func(r *drive.Run) { r.State[2].Protect = true }, []string{KindState}},
		{"a leaked object", func(r *drive.Run) { r.Live["a-1"] = world.Object{ID: "a-1"} }, []string{KindInvariant}},
		{"a lost object", func(r *drive.Run) { delete(r.Live, "c-1") }, []string{KindInvariant}},
		{"an invalid state", func(r *drive.Run) { r.Invalid = "duplicate URN" }, []string{KindInvalid}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref, gw := run(), run()
			if tc.name == "the deletes of two copies of one URN in another order" {
				ref.Ledger = append(ref.Ledger, world.Entry{Op: spec.OpDelete, URN: urnA, ID: "a-0"})
				ref.Before = append(ref.Before, drive.Record{URN: urnA, Custom: true, Delete: true, ID: "a-0"})
				gw.Before = ref.Before
			}
			tc.edit(&gw)
			res := Compare(&spec.Program{}, &drive.Trace{Engine: "pulumi", Runs: []drive.Run{ref}},
				&drive.Trace{Engine: "groundwork", Runs: []drive.Run{gw}}, nil)
			if got := res.Kinds(); !slices.Equal(got, tc.kinds) {
				t.Errorf("kinds %v, want %v: %v", got, tc.kinds, res.Differences)
			}
		})
	}
}

// TestExplainer checks that a recognised difference is counted, not
// reported, and that the comparison goes on only when the explainer says
// so.
func TestExplainer(t *testing.T) {
	ref := drive.Trace{Engine: "pulumi", Runs: []drive.Run{run(), run()}}
	gw := drive.Trace{Engine: "groundwork", Runs: []drive.Run{run(), run()}}
	gw.Runs[0].Err, gw.Runs[1].State[0].Protect = "boom", true
	for _, goOn := range []bool{true, false} {
		explain := func(i int, d Difference) (string, bool) {
			if d.Kind == KindOutcome {
				return "known", goOn
			}
			return "", false
		}
		res := Compare(&spec.Program{}, &ref, &gw, explain)
		if len(res.Known) != 1 || res.Known[0].Name != "known" {
			t.Errorf("goOn %v: known %v", goOn, res.Known)
		}
		if want := goOn; (len(res.Differences) > 0) != want {
			t.Errorf("goOn %v: differences %v", goOn, res.Differences)
		}
	}
}

// TestDeleteOrderOfCopies: an old copy naming a URN that has a live
// record and an older copy depends on the older copy, unless its inputs
// show it was made from the live record.
func TestDeleteOrderOfCopies(t *testing.T) {
	for _, tc := range []struct {
		name   string
		from   string // the "out" b's copy took
		broken bool
	}{
		{"made from the older copy", "a-1.x", true},
		{"made from the live record", "a-2.x", false},
		{"no input to tell by", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := drive.Record{URN: urnB, Custom: true, Delete: true, ID: "b-1", Dependencies: []string{urnA}}
			if tc.from != "" {
				b.Inputs = map[string]string{"p": tc.from}
			}
			run := drive.Run{
				Name: "destroy",
				Before: []drive.Record{
					{URN: urnA, Custom: true, ID: "a-2", Protect: true, Outputs: map[string]string{spec.OutKey: "a-2.x"}},
					{URN: urnA, Custom: true, Delete: true, ID: "a-1", Outputs: map[string]string{spec.OutKey: "a-1.x"}},
					b,
				},
				// The older copy of a goes first.
				Ledger: []world.Entry{{Op: spec.OpDelete, URN: urnA, ID: "a-1"}, {Op: spec.OpDelete, URN: urnB, ID: "b-1"}},
			}
			if got := deleteOrder(&run); (len(got) > 0) != tc.broken {
				t.Errorf("deleteOrder = %v, want broken %v", got, tc.broken)
			}
		})
	}
}

// TestDeleteOrderOfADeleteBeforeReplace: a delete-before-replace of a
// answers for its dependent b when the engine had b's registration (its
// Check) before it decided the cascade: before the answer to the last of
// a's replacement check (a Check after its Diff) and the cascade's diffs
// of dependents: the old b must go first. A b registered after that, or
// never, may go after.
func TestDeleteOrderOfADeleteBeforeReplace(t *testing.T) {
	for _, tc := range []struct {
		name   string
		calls  []world.Call
		broken bool
	}{
		{"b checked before a's diff", calls(check(urnB), check(urnA), diff(urnA), check(urnA), del(urnA, "a-1")), true},
		{"b checked before the cascade's diff answered", calls(check(urnA), diff(urnA), check(urnA), unknown(urnB), check(urnB), ended(unknown(urnB)), del(urnA, "a-1")), true},
		{"b checked after the cascade's diff answered", calls(check(urnA), diff(urnA), check(urnA), unknown(urnB), ended(unknown(urnB)), check(urnB), del(urnA, "a-1")), false},
		{"b checked after a's delete began", calls(check(urnA), diff(urnA), check(urnA), del(urnA, "a-1"), check(urnB)), false},
		{"b never registered", calls(check(urnA), diff(urnA), check(urnA), del(urnA, "a-1")), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := drive.Run{
				Name: "up 2",
				Before: []drive.Record{
					{URN: urnA, Custom: true, ID: "a-1"},
					{URN: urnB, Custom: true, ID: "b-1", Dependencies: []string{urnA}},
				},
				// a is deleted and created again (delete-before-replace);
				// the old b, replaced, is deleted after it.
				Ledger: []world.Entry{
					{Op: spec.OpDelete, URN: urnA, ID: "a-1"}, {Op: spec.OpCreate, URN: urnA, ID: "a-2"},
					{Op: spec.OpCreate, URN: urnB, ID: "b-2"}, {Op: spec.OpDelete, URN: urnB, ID: "b-1"},
				},
				Calls: tc.calls,
			}
			if got := deleteOrder(&run); (len(got) > 0) != tc.broken {
				t.Errorf("deleteOrder = %v, want broken %v", got, tc.broken)
			}
		})
	}
}

// calls is the calls of a run: each call given is made and answered at
// once, unless ended says when it answers.
func calls(cs ...[]world.Call) []world.Call {
	var out []world.Call
	for _, c := range cs {
		out = append(out, c...)
	}
	return out
}

func check(urn string) []world.Call {
	return []world.Call{{Op: "check", URN: urn}, {Op: "check", URN: urn, End: true}}
}

func diff(urn string) []world.Call {
	id := idOf(urn)
	return []world.Call{{Op: "diff", URN: urn, ID: id}, {Op: "diff", URN: urn, ID: id, End: true}}
}

// unknown is a diff with unknown inputs, made and not answered yet.
func unknown(urn string) []world.Call {
	return []world.Call{{Op: "diff", URN: urn, ID: idOf(urn), Unknowns: true}}
}

// idOf is the ID of the first object of a test URN.
func idOf(urn string) string { return map[string]string{urnA: "a-1", urnB: "b-1"}[urn] }

// ended is the answer to the call cs made.
func ended(cs []world.Call) []world.Call {
	c := cs[0]
	c.End = true
	return []world.Call{c}
}

func del(urn, id string) []world.Call {
	return []world.Call{{Op: spec.OpDelete, URN: urn, ID: id}}
}
