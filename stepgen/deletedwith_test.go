package stepgen_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// TestDeletedWithGroups: a resource deleted with another (deletedWith) that
// is deleted too leaves the state only with it. Its delete follows the
// other's in the other's chain, calls no provider and records nothing; the
// other's step lists its record in With, for the journal entry that records
// the other's delete. A chain of such resources goes with the last one; what
// depends on any member of the group must be gone before the group goes.
func TestDeletedWithGroups(t *testing.T) {
	with := func(target string) func(*resource.State) {
		return func(s *resource.State) { s.DeletedWith = urn(target) }
	}
	oldCopy := func(s *resource.State) { s.Delete, s.ID = true, s.ID+"-old" }
	tests := []struct {
		name   string
		old    []*resource.State
		cfg    stepgen.Config
		layers [][]string
		// with maps the resource whose step carries With to the names
		// listed, in order.
		with map[string][]string
		// needs maps the first step of each chain to what the chain
		// needs.
		needs map[string][]string
		// deleted are the provider deletes Apply makes, chain by chain.
		deleted []string
	}{
		{
			name:    "a table goes with its database",
			old:     []*resource.State{recorded("db", nil), recorded("table", nil, with("db"), dependsOn(urn("db")))},
			layers:  [][]string{{"delete db", "delete table"}},
			with:    map[string][]string{"db": {"table"}},
			deleted: []string{"db"},
		},
		{
			name: "several tables go with one database",
			old: []*resource.State{
				recorded("db", nil), recorded("t1", nil, with("db")), recorded("t2", nil, with("db")),
			},
			layers:  [][]string{{"delete db", "delete t1", "delete t2"}},
			with:    map[string][]string{"db": {"t1", "t2"}},
			deleted: []string{"db"},
		},
		{
			name: "a chain goes with its last resource",
			old: []*resource.State{
				recorded("c", nil), recorded("b", nil, with("c")), recorded("a", nil, with("b")),
			},
			layers:  [][]string{{"delete c", "delete b", "delete a"}},
			with:    map[string][]string{"c": {"b", "a"}},
			deleted: []string{"c"},
		},
		{
			name: "what depends on a member is deleted first and needed by the group",
			old: []*resource.State{
				recorded("db", nil), recorded("table", nil, with("db")),
				recorded("view", nil, inputFrom("of", urn("table"))),
			},
			layers:  [][]string{{"delete view"}, {"delete db", "delete table"}},
			with:    map[string][]string{"db": {"table"}},
			needs:   map[string][]string{"db": {"view"}},
			deleted: []string{"view", "db"},
		},
		{
			name: "what only a member depends on is deleted after the group",
			old: []*resource.State{
				recorded("base", nil), recorded("db", nil), recorded("table", nil, with("db"), dependsOn(urn("base"))),
			},
			layers:  [][]string{{"delete db", "delete table"}, {"delete base"}},
			with:    map[string][]string{"db": {"table"}},
			needs:   map[string][]string{"base": {"table"}},
			deleted: []string{"db", "base"},
		},
		{
			name: "a group that something outside it both depends on and is depended on by is dissolved",
			old: []*resource.State{
				recorded("db", nil), recorded("schema", nil, dependsOn(urn("db"))),
				recorded("table", nil, with("db"), dependsOn(urn("schema"))),
			},
			layers:  [][]string{{"delete table"}, {"delete schema"}, {"delete db"}},
			needs:   map[string][]string{"schema": {"table"}, "db": {"table", "schema"}},
			deleted: []string{"table", "schema", "db"},
		},
		{
			name:    "a target that stays: deleted through its provider",
			old:     []*resource.State{recorded("db", nil), recorded("table", nil, with("db"))},
			cfg:     stepgen.Config{Targets: map[resource.URN]bool{urn("table"): true}},
			layers:  [][]string{{"delete table"}},
			deleted: []string{"table"},
		},
		{
			name:    "the old copy of a replaced target takes the table dropped with it",
			old:     []*resource.State{recorded("db", nil, oldCopy), recorded("table", nil, with("db"))},
			layers:  [][]string{{"delete-replaced db", "delete table"}},
			with:    map[string][]string{"db": {"table"}},
			deleted: []string{"db"},
		},
		{
			name:    "old copies go together",
			old:     []*resource.State{recorded("db", nil, oldCopy), recorded("table", nil, with("db"), oldCopy)},
			layers:  [][]string{{"delete-replaced db", "delete-replaced table"}},
			with:    map[string][]string{"db": {"table"}},
			deleted: []string{"db"},
		},
		{
			name: "two doomed copies of the target: which holds the table is unknown, so it is deleted through its provider",
			old: []*resource.State{
				recorded("db", nil, oldCopy), recorded("db", nil), recorded("table", nil, with("db")),
			},
			layers:  [][]string{{"delete table"}, {"delete-replaced db", "delete db"}},
			needs:   map[string][]string{"db": {"table"}},
			deleted: []string{"table", "db", "db"},
		},
		{
			name: "a retained target: the table leaves with its record, nothing is deleted",
			old: []*resource.State{
				recorded("db", nil, func(s *resource.State) { s.RetainOnDelete = true }), recorded("table", nil, with("db")),
			},
			layers: [][]string{{"delete db", "delete table"}},
			with:   map[string][]string{"db": {"table"}},
		},
		{
			name: "a cycle of targets (an invalid state) neither hangs nor takes anything along",
			old: []*resource.State{
				recorded("a", nil, with("b")), recorded("b", nil, with("a")), recorded("x", nil, with("a")),
			},
			layers:  [][]string{{"delete x"}},
			deleted: []string{"x"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var deleted []string
			prov := &providers.Func{DeleteF: func(_ context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
				mu.Lock()
				defer mu.Unlock()
				deleted = append(deleted, req.URN.Name())
				return providers.DeleteResponse{}, nil
			}}
			cfg := tt.cfg
			cfg.Old = tt.old
			h := newHost(t, cfg, prov)
			layers, err := h.deletes()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.layers, antichainNames(layers)); diff != "" {
				t.Errorf("antichains (-want +got):\n%s", diff)
			}
			gotWith := map[string][]string{}
			gotNeeds := map[string][]string{}
			byID := stepsByID(layers)
			for _, layer := range layers {
				for _, ch := range chainsOf(layer) {
					first := ch[0]
					// A dependency recorded twice may be needed twice
					// (see TestDeletesOrder); copies of a URN share a
					// name here.
					for _, id := range first.Needs {
						if n, u := first.URN().Name(), byID[id].URN().Name(); !slices.Contains(gotNeeds[n], u) {
							gotNeeds[n] = append(gotNeeds[n], u)
						}
					}
					checkGroup(t, ch)
					for _, s := range first.With() {
						gotWith[first.URN().Name()] = append(gotWith[first.URN().Name()], s.URN.Name())
					}
					for _, s := range ch {
						if o := h.applyOne(s); o.Err != nil {
							t.Fatalf("%s %s: %v", s.Op, s.URN().Name(), o.Err)
						}
					}
				}
			}
			if diff := cmp.Diff(tt.with, gotWith, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("records leaving with another (-want +got):\n%s", diff)
			}
			sorted := cmpopts.SortSlices(func(a, b string) bool { return a < b })
			if diff := cmp.Diff(tt.needs, gotNeeds, sorted, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("needs (-want +got):\n%s", diff)
			}
			slices.Sort(deleted)
			want := slices.Clone(tt.deleted)
			slices.Sort(want)
			if diff := cmp.Diff(want, deleted, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("provider deletes (-want +got):\n%s", diff)
			}
		})
	}
}

// checkGroup checks the steps of one delete chain: the first removes its
// record (and those in its With); every later one is a resource that goes
// with it, listed in With, calling no provider and recording nothing.
func checkGroup(t *testing.T, ch []*stepgen.Step) {
	t.Helper()
	first := ch[0]
	if got := result(first); got != "old→nil" {
		t.Errorf("%s %s records %s, want its record removed", first.Op, first.URN().Name(), got)
	}
	listed := first.With()
	if len(listed) != len(ch)-1 {
		t.Errorf("%s lists %d records in With, and its chain has %d more steps", first.URN().Name(), len(listed), len(ch)-1)
		return
	}
	for i, s := range ch[1:] {
		if s.Old != listed[i] {
			t.Errorf("step %d of %s's chain deletes %s, but With lists %s there", i+1, first.URN().Name(), s.URN().Name(), listed[i].URN.Name())
		}
		if s.Applied() || s.JournalOp() != "" || result(s) != "nil→nil" || s.With() != nil {
			t.Errorf("%s %s, going with %s: applied %v, journal op %q, result %s; want no provider call and no record of its own",
				s.Op, s.URN().Name(), first.URN().Name(), s.Applied(), s.JournalOp(), result(s))
		}
	}
}
