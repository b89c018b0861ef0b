package drive

import (
	"context"
	"slices"
	"testing"

	"github.com/groundwork-iac/groundwork/conformance/spec"
)

type quiet struct{ testing.TB }

func (quiet) Log(...any)          {}
func (quiet) Logf(string, ...any) {}

// TestBothEngines runs one small program through each engine and checks
// what each trace says: the physical operations, the failure, the state.
func TestBothEngines(t *testing.T) {
	p := &spec.Program{Versions: []spec.Version{
		{Resources: []spec.Resource{
			{Name: "a", Props: []spec.Prop{{Key: "v", Value: "1"}}},
			{Name: "g", Type: spec.GroupType},
			{Name: "b", Parent: "g", Props: []spec.Prop{{Key: "rp", From: "a"}}},
		}, Exports: []string{"a"}},
		{Resources: []spec.Resource{
			{Name: "a", Props: []spec.Prop{{Key: "v", Value: "2"}}},
			{Name: "g", Type: spec.GroupType},
			{Name: "b", Parent: "g", Props: []spec.Prop{{Key: "rp", From: "a"}}},
		}, Failures: []spec.Failure{{Op: spec.OpDelete, Name: "b"}}},
	}, Destroy: true}
	want := [][]string{
		{"create world:index:Thing::a a-1", "create world:index:Group$world:index:Thing::b b-1"},
		{"update world:index:Thing::a a-1", "create world:index:Group$world:index:Thing::b b-2",
			"delete world:index:Group$world:index:Thing::b b-1 (failed)"},
		nil, // the destroy deletes a-1, b-2 and b-1 (b before a), in either order
	}
	for _, tr := range []*Trace{Pulumi(quiet{t}, p), Groundwork(context.Background(), p)} {
		if len(tr.Runs) != 3 {
			t.Fatalf("%s: %d runs", tr.Engine, len(tr.Runs))
		}
		for i, r := range tr.Runs {
			var got []string
			for _, e := range r.Ledger {
				got = append(got, e.String())
			}
			if want[i] != nil && !slices.Equal(got, want[i]) {
				t.Errorf("%s %s: ledger %v, want %v", tr.Engine, r.Name, got, want[i])
			}
			if (r.Err != "") != (i == 1) || r.Invalid != "" {
				t.Errorf("%s %s: error %q, invalid %q", tr.Engine, r.Name, r.Err, r.Invalid)
			}
		}
		if n := len(tr.Runs[2].Ledger); n != 3 {
			t.Errorf("%s destroy: %d operations", tr.Engine, n)
		}
		var b1 *Record
		for i, r := range tr.Runs[1].State {
			if r.ID == "b-1" {
				b1 = &tr.Runs[1].State[i]
			}
		}
		if b1 == nil || !b1.Delete {
			t.Errorf("%s: the old copy of b is not recorded for deletion: %v", tr.Engine, tr.Runs[1].State)
		}
		if len(tr.Runs[2].State) != 0 || len(tr.Runs[2].Live) != 0 {
			t.Errorf("%s: the destroy left %v and %v", tr.Engine, tr.Runs[2].State, tr.Runs[2].Live)
		}
	}
}
