package stepgen_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// TestDeletesOrder: what the program no longer declares is deleted in
// antichains of the reverse dependency graph: dependents before what they
// depend on, independent resources together, each as late as what it
// depends on allows. Each chain needs the dependents that must be gone
// first.
func TestDeletesOrder(t *testing.T) {
	tests := []struct {
		name      string
		old       []*resource.State
		wantOrder [][]string
		// wantNeeds maps a resource name to the names its delete needs.
		wantNeeds map[string][]string
	}{
		{
			name: "a chain: c needs b needs a",
			old: []*resource.State{
				recorded("a", nil),
				recorded("b", nil, dependsOn(urn("a"))),
				recorded("c", nil, inputFrom("b", urn("b"))),
			},
			wantOrder: [][]string{{"delete c"}, {"delete b"}, {"delete a"}},
			wantNeeds: map[string][]string{"b": {"c"}, "a": {"b"}},
		},
		{
			name: "a diamond",
			old: []*resource.State{
				recorded("a", nil),
				recorded("b", nil, dependsOn(urn("a"))),
				recorded("c", nil, dependsOn(urn("a"))),
				recorded("d", nil, dependsOn(urn("b"), urn("c"))),
			},
			wantOrder: [][]string{{"delete d"}, {"delete b", "delete c"}, {"delete a"}},
			wantNeeds: map[string][]string{"b": {"d"}, "c": {"d"}, "a": {"b", "c"}},
		},
		{
			// As the reference engine schedules them: each resource as
			// late as what it depends on allows, so when a delete fails
			// the same deletes have run before it.
			name: "a resource that depends on nothing goes last, beside the deepest dependency",
			old: []*resource.State{
				recorded("a", nil),
				recorded("b", nil, dependsOn(urn("a"))),
				recorded("c", nil, dependsOn(urn("b"))),
				recorded("d", nil),
			},
			wantOrder: [][]string{{"delete c"}, {"delete b"}, {"delete a", "delete d"}},
			wantNeeds: map[string][]string{"b": {"c"}, "a": {"b"}},
		},
		{
			name:      "independent resources together",
			old:       []*resource.State{recorded("a", nil), recorded("b", nil), recorded("c", nil)},
			wantOrder: [][]string{{"delete a", "delete b", "delete c"}},
		},
		{
			name: "parents, deleted-with targets and providers are dependencies too",
			old: []*resource.State{
				{Type: providers.ProviderType("test"), URN: provURN, Custom: true, ID: "prov-1"},
				{Type: group, URN: groupURN("g")},
				recorded("a", nil, func(s *resource.State) {
					s.URN, s.Parent = resource.NewURN(testStack, testProject, group, thing, "a"), groupURN("g")
				}),
				recorded("b", nil, func(s *resource.State) { s.DeletedWith = urn("c") }),
				recorded("c", nil),
			},
			// b goes with c: its delete follows c's in c's chain, and
			// nothing else depends on either.
			wantOrder: [][]string{{"delete a", "delete c", "delete b"}, {"delete explicit", "delete g"}},
			wantNeeds: map[string][]string{"g": {"a"}, "explicit": {"a", "b", "c"}},
		},
		{
			name: "a reference by a renamed resource's old URN",
			old: []*resource.State{
				recorded("ax", nil, knownAs(urn("a"))),
				recorded("b", nil, dependsOn(urn("a"))),
				recorded("c", nil, inputFrom("v", urn("a"))),
				recorded("d", nil, func(s *resource.State) { s.DeletedWith = urn("a") }),
			},
			// d goes with ax (named by its old URN): its delete follows
			// ax's in ax's chain.
			wantOrder: [][]string{{"delete b", "delete c"}, {"delete ax", "delete d"}},
			wantNeeds: map[string][]string{"ax": {"b", "c"}},
		},
		{
			// As the reference engine reads a dependency on a component:
			// it stands for the component's descendants recorded before
			// the dependent (a, b), not for those recorded after (e).
			name: "a dependency on a component stands for its descendants recorded before the dependent",
			old: []*resource.State{
				{Type: group, URN: groupURN("g")},
				recorded("a", nil, childOf(groupURN("g"))),
				{Type: group, URN: resource.NewURN(testStack, testProject, group, group, "h"), Parent: groupURN("g")},
				recorded("b", nil, childOf(resource.NewURN(testStack, testProject, group, group, "h"))),
				recorded("d", nil, dependsOn(groupURN("g"))),
				recorded("e", nil, childOf(groupURN("g"))),
			},
			wantOrder: [][]string{{"delete d"}, {"delete b"}, {"delete a", "delete h", "delete e"}, {"delete g"}},
			wantNeeds: map[string][]string{"a": {"d"}, "b": {"d"}, "h": {"b", "d"}, "g": {"a", "d", "e", "h"}},
		},
		{
			name: "a dependency on a renamed component by its old URN",
			old: []*resource.State{
				{Type: group, URN: groupURN("g2"), Aliases: []resource.URN{groupURN("g")}},
				recorded("a", nil, childOf(groupURN("g"))),
				recorded("d", nil, dependsOn(groupURN("g"))),
			},
			wantOrder: [][]string{{"delete d"}, {"delete a"}, {"delete g2"}},
			wantNeeds: map[string][]string{"a": {"d"}, "g2": {"a", "d"}},
		},
		{
			// The reference engine's snapshot holds a copy left marked
			// for deletion after every resource registered in the run
			// that left it.
			name: "a component's child left marked for deletion by an earlier run is not waited for",
			old: []*resource.State{
				{Type: group, URN: groupURN("g")},
				recorded("a", nil, childOf(groupURN("g")), func(s *resource.State) { s.Delete = true }),
				recorded("d", nil, dependsOn(groupURN("g"))),
			},
			wantOrder: [][]string{{"delete-replaced a", "delete d"}, {"delete g"}},
			wantNeeds: map[string][]string{"g": {"a", "d"}},
		},
		{
			name: "a record holding the URN wins over an alias",
			old: []*resource.State{
				recorded("a", nil),
				recorded("ax", nil, knownAs(urn("a"))),
				recorded("b", nil, dependsOn(urn("a"))),
			},
			wantOrder: [][]string{{"delete b"}, {"delete a", "delete ax"}},
			wantNeeds: map[string][]string{"a": {"b"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t, stepgen.Config{Old: tt.old}, nil)
			layers, err := h.deletes()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantOrder, antichainNames(layers)); diff != "" {
				t.Errorf("antichains (-want +got):\n%s", diff)
			}
			// A dependency recorded twice (as a dependency and as a
			// property dependency) may be needed twice; that is harmless.
			needs := map[string][]string{}
			byID := stepsByID(layers)
			for _, layer := range layers {
				for _, ch := range chainsOf(layer) {
					s := ch[0] // the others follow it (deleted with it)
					name := s.URN().Name()
					for _, id := range s.Needs {
						if u := byID[id].URN().Name(); !slices.Contains(needs[name], u) {
							needs[name] = append(needs[name], u)
						}
					}
				}
			}
			sorted := cmpopts.SortSlices(func(a, b string) bool { return a < b })
			if diff := cmp.Diff(tt.wantNeeds, needs, sorted, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("needs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDeleteSteps: how each kind of recorded resource is deleted: which
// journal operation the step represents (none means no provider call) and
// whether Apply calls the provider.
func TestDeleteSteps(t *testing.T) {
	tests := []struct {
		name        string
		old         []*resource.State
		cfg         stepgen.Config
		deleted     string // the resource whose step is inspected
		wantOp      stepgen.Op
		wantJournal resource.OperationKind
	}{
		{
			name:        "custom resource",
			old:         []*resource.State{recorded("a", nil)},
			deleted:     "a",
			wantOp:      stepgen.OpDelete,
			wantJournal: resource.OperationDeleting,
		},
		{
			name:    "retainOnDelete: forgotten, not deleted",
			old:     []*resource.State{recorded("a", nil, func(s *resource.State) { s.RetainOnDelete = true })},
			deleted: "a",
			wantOp:  stepgen.OpDelete,
		},
		{
			name:    "external: forgotten, not deleted",
			old:     []*resource.State{recorded("a", nil, func(s *resource.State) { s.External = true })},
			deleted: "a",
			wantOp:  stepgen.OpDiscard,
		},
		{
			name:    "component: no provider",
			old:     []*resource.State{{Type: group, URN: groupURN("g")}},
			deleted: "g",
			wantOp:  stepgen.OpDelete,
		},
		{
			name:        "deletedWith a resource that stays: deleted",
			old:         []*resource.State{recorded("b", nil, func(s *resource.State) { s.DeletedWith = urn("a") })},
			deleted:     "b",
			wantOp:      stepgen.OpDelete,
			wantJournal: resource.OperationDeleting,
		},
		{
			name:    "leftover of an interrupted delete-before-replace: already gone",
			old:     []*resource.State{recorded("a", nil, func(s *resource.State) { s.PendingReplacement = true })},
			deleted: "a",
			wantOp:  stepgen.OpDelete,
		},
		{
			name:        "old copy of an earlier replacement",
			old:         []*resource.State{recorded("a", nil, func(s *resource.State) { s.Delete = true })},
			deleted:     "a",
			wantOp:      stepgen.OpDeleteReplaced,
			wantJournal: resource.OperationDeleting,
		},
		{
			name:    "preview: no provider call",
			old:     []*resource.State{recorded("a", nil)},
			cfg:     stepgen.Config{Preview: true},
			deleted: "a",
			wantOp:  stepgen.OpDelete,
			// The step still represents a delete; Apply skips the call.
			wantJournal: resource.OperationDeleting,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var deleted []providers.DeleteRequest
			prov := &providers.Func{DeleteF: func(_ context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
				deleted = append(deleted, req)
				return providers.DeleteResponse{}, nil
			}}
			cfg := tt.cfg
			cfg.Old = tt.old
			h := newHost(t, cfg, prov)
			layers, err := h.deletes()
			if err != nil {
				t.Fatal(err)
			}
			var step *stepgen.Step
			for _, layer := range layers {
				for _, s := range layer {
					if s.URN().Name() == tt.deleted {
						step = s
					}
				}
			}
			if step == nil {
				t.Fatalf("no delete of %s among %v", tt.deleted, antichainNames(layers))
			}
			if step.Op != tt.wantOp || step.JournalOp() != tt.wantJournal || step.Applied() != (tt.wantJournal != "") {
				t.Errorf("step %s journals %q (applied %v), want %s journaling %q", step.Op, step.JournalOp(), step.Applied(), tt.wantOp, tt.wantJournal)
			}
			if result(step) != "old→nil" || step.New != nil || step.Reg != nil {
				t.Errorf("result %s, new %v, reg %v; want the record removed, no registration", result(step), step.New, step.Reg)
			}
			o := h.applyOne(step)
			if o.Err != nil {
				t.Fatal(o.Err)
			}
			if got := outcomeResult(o); got != "old→nil" {
				t.Errorf("applied, it records %s; want the record removed", got)
			}
			wantCall := tt.wantJournal != "" && !tt.cfg.Preview
			if got := len(deleted) == 1; got != wantCall {
				t.Errorf("provider Delete called %d times, want a call: %v", len(deleted), wantCall)
			}
			if wantCall {
				s := step.Old
				want := providers.DeleteRequest{URN: s.URN, ID: s.ID, Inputs: s.Inputs, Outputs: s.Outputs, Timeout: s.CustomTimeouts.Delete}
				if diff := cmp.Diff(want, deleted[0]); diff != "" {
					t.Errorf("delete request (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestDeleteFailure: a provider's delete error is the step's error.
func TestDeleteFailure(t *testing.T) {
	prov := &providers.Func{DeleteF: func(context.Context, providers.DeleteRequest) (providers.DeleteResponse, error) {
		return providers.DeleteResponse{}, errBoom
	}}
	h := newHost(t, stepgen.Config{Old: []*resource.State{recorded("a", nil)}}, prov)
	layers, _ := h.deletes()
	o := h.applyOne(layers[0][0])
	if !errors.Is(o.Err, errBoom) {
		t.Errorf("Apply = %v, want the provider's error", o.Err)
	}
	if old, new := o.Record(); old != nil || new != nil {
		t.Errorf("the failed delete records %v → %v, want nothing", old, new)
	}
}

// TestDeletesProtected: a protected resource is never deleted, and neither
// is anything it depends on, directly or not, through the records of the
// last snapshot; everything else that goes is deleted, and the protected
// resource's delete is refused (Refused), as the reference engine does.
func TestDeletesProtected(t *testing.T) {
	protect := func(s *resource.State) { s.Protect = true }
	// written stamps a record as created and last written by update n.
	written := func(n int) func(*resource.State) {
		return func(s *resource.State) {
			s.Created = fixedNow.Add(time.Duration(n) * time.Hour)
			s.Modified = s.Created
		}
	}
	child := func(parent string) func(*resource.State) {
		return func(s *resource.State) {
			s.URN, s.Parent = resource.NewURN(testStack, testProject, group, thing, s.URN.Name()), groupURN(parent)
		}
	}
	tests := []struct {
		name string
		old  []*resource.State
		// register are registered again, with changed inputs when the
		// provider replaces them (replace).
		register []string
		replace  []string
		want     [][]string
		refused  []string
	}{
		{
			name: "the others go",
			old:  []*resource.State{recorded("a", nil), recorded("b", nil, protect)},
			want: [][]string{{"delete a"}}, refused: []string{"b"},
		},
		{
			name: "what it depends on stays, what depends on it goes",
			old: []*resource.State{
				recorded("base", nil),
				recorded("mid", nil, inputFrom("v", urn("base"))),
				recorded("p", nil, protect, dependsOn(urn("mid"))),
				recorded("user", nil, dependsOn(urn("p"))),
				recorded("free", nil),
			},
			// Scheduled as in the reference engine, in the graph that
			// holds p, mid and base too: user, (p,) (mid,) then free
			// beside base.
			want: [][]string{{"delete user"}, {"delete free"}}, refused: []string{"p"},
		},
		{
			name: "its parent, its provider and its deleted-with target stay",
			old: []*resource.State{
				{Type: providers.ProviderType("test"), URN: provURN, Custom: true, ID: "prov-1"},
				{Type: group, URN: groupURN("g")},
				recorded("t", nil),
				recorded("p", nil, protect, child("g"), func(s *resource.State) { s.DeletedWith = urn("t") }),
			},
			refused: []string{"p"},
		},
		{
			name: "its children go",
			old: []*resource.State{
				{Type: group, URN: groupURN("g"), Protect: true},
				recorded("c", nil, child("g")),
			},
			want: [][]string{{"delete c"}}, refused: []string{"g"},
		},
		{
			name: "a resource deleted with it is deleted through its provider",
			old: []*resource.State{
				recorded("db", nil, protect),
				recorded("table", nil, func(s *resource.State) { s.DeletedWith = urn("db") }),
			},
			want: [][]string{{"delete table"}}, refused: []string{"db"},
		},
		{
			// q, registered again, no longer depends on r: r goes, as
			// in the reference engine (which deletes it in the antichain
			// of p's refused delete).
			name: "not through the old record of a resource registered again",
			old: []*resource.State{
				recorded("r", nil),
				recorded("q", nil, dependsOn(urn("r"))),
				recorded("p", nil, protect, dependsOn(urn("q"))),
			},
			register: []string{"q"},
			want:     [][]string{{"delete r"}}, refused: []string{"p"},
		},
		{
			// p is q's child: the reference engine schedules deletes
			// by the direct dependencies among what goes, so r, which
			// only q's old record leads to, goes beside p's refused
			// delete.
			name: "not through the old record of a parent registered again",
			old: []*resource.State{
				recorded("r", nil),
				recorded("q", nil, dependsOn(urn("r"))),
				recorded("p", nil, protect, func(s *resource.State) {
					s.URN, s.Parent = resource.NewURN(testStack, testProject, thing, thing, "p"), urn("q")
				}),
			},
			register: []string{"q"},
			want:     [][]string{{"delete r"}}, refused: []string{"p"},
		},
		{
			// The reference engine follows q's old record, and skips
			// r's delete: it comes after p's refused one (r sits
			// below p in the graph of what goes, as s does).
			name: "through the old record of a resource registered again, what is scheduled after it stays",
			old: []*resource.State{
				recorded("r", nil),
				recorded("q", nil, dependsOn(urn("r"))),
				recorded("s", nil, dependsOn(urn("q"))),
				recorded("p", nil, protect, dependsOn(urn("s"))),
			},
			register: []string{"q"},
			refused:  []string{"p"},
		},
		{
			// The same walk reaches the protected component g, q's
			// parent in the last snapshot: the reference engine never
			// gets to its refused delete.
			name: "a protected resource reached through the old record of one registered again has no refusal of its own",
			old: []*resource.State{
				{Type: group, URN: groupURN("g"), Protect: true},
				recorded("q", nil, func(s *resource.State) { s.Parent = groupURN("g") }),
				recorded("s", nil, dependsOn(urn("q"))),
				recorded("p", nil, protect, dependsOn(urn("s"))),
			},
			register: []string{"q"},
			refused:  []string{"p"},
		},
		{
			name: "the old copy of a dependency replaced in this run stays",
			old: []*resource.State{
				recorded("a", nil),
				recorded("p", nil, protect, inputFrom("v", urn("a"))),
			},
			register: []string{"a"}, replace: []string{"a"},
			refused: []string{"p"},
		},
		{
			name: "every copy marked for deletion under its dependency's URN stays",
			old: []*resource.State{
				recorded("a", nil),
				recorded("a", nil, func(s *resource.State) { s.Delete, s.ID = true, "id-a-old" }),
				recorded("p", nil, protect, inputFrom("v", urn("a"))),
			},
			register: []string{"a"}, replace: []string{"a"},
			refused: []string{"p"},
		},
		{
			name: "a copy left marked by an earlier run goes when a live record holds the URN",
			old: []*resource.State{
				recorded("a", nil),
				recorded("a", nil, func(s *resource.State) { s.Delete, s.ID = true, "id-a-old" }),
				recorded("p", nil, protect, dependsOn(urn("a"))),
			},
			register: []string{"a"},
			want:     [][]string{{"delete-replaced a"}}, refused: []string{"p"},
		},
		{
			// An update replaced q and created p against q's new copy,
			// then failed before deleting the old one. The reference
			// engine's snapshot holds that old copy after p, so p does
			// not depend on it: p's refused delete is scheduled beside
			// r's, and r, which only q's last record leads to, goes.
			name: "not through a copy left marked for deletion before the record that names its URN was written",
			old: []*resource.State{
				recorded("q", nil, written(1), func(s *resource.State) { s.Delete, s.ID = true, "id-q-old" }),
				recorded("r", nil, written(2)),
				recorded("q", nil, written(2), dependsOn(urn("r"))),
				recorded("p", nil, written(2), protect, inputFrom("v", urn("q"))),
			},
			register: []string{"q"},
			want:     [][]string{{"delete-replaced q", "delete r"}}, refused: []string{"p"},
		},
		{
			// s was recorded before q's replacement: in the reference
			// engine's schedule it depends on q's old copy, so its
			// refused delete comes before the deletes of that copy and
			// of r, and r, which q's last record leads to from s,
			// stays.
			name: "through a copy left marked for deletion after the record that names its URN was written, what is scheduled after it stays",
			old: []*resource.State{
				recorded("q", nil, written(1), func(s *resource.State) { s.Delete, s.ID = true, "id-q-old" }),
				recorded("r", nil, written(2)),
				recorded("q", nil, written(2), dependsOn(urn("r"))),
				// Recorded after q's new copy, as a store may
				// order it, but written before.
				recorded("s", nil, written(1), protect, dependsOn(urn("q"))),
			},
			register: []string{"q"},
			want:     [][]string{{"delete-replaced q"}}, refused: []string{"s"},
		},
		{
			// The copy p was created against keeps the URN it had; the
			// replacement, which p never used, goes (the reference
			// engine, having renamed p's reference, does the reverse).
			name: "the old copy of a dependency renamed and replaced in an earlier run stays; its replacement goes",
			old: []*resource.State{
				recorded("ax", nil, knownAs(urn("a"))),
				recorded("a", nil, func(s *resource.State) { s.Delete, s.ID = true, "id-a-old" }),
				recorded("p", nil, protect, inputFrom("v", urn("a"))),
			},
			want: [][]string{{"delete ax"}}, refused: []string{"p"},
		},
		{
			name: "a protected resource another one depends on stays without a refusal of its own",
			old: []*resource.State{
				recorded("a", nil, protect),
				recorded("b", nil, protect, dependsOn(urn("a"))),
				recorded("c", nil, protect),
			},
			refused: []string{"b", "c"},
		},
		{
			name: "a record pending replacement leaves without a refusal",
			old: []*resource.State{
				recorded("a", nil, protect, func(s *resource.State) { s.PendingReplacement = true }),
			},
			want: [][]string{{"delete a"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			results := map[string]resource.DiffResult{}
			for _, n := range tt.replace {
				results[n] = replaceKeys("v")
			}
			prov := &providers.Func{DiffF: diffBy(results), DeleteF: failOnDelete(t)}
			h := newHost(t, stepgen.Config{Old: tt.old}, prov)
			for _, n := range tt.register {
				in := map[string]any{}
				if slices.Contains(tt.replace, n) {
					in["v"] = "new"
				}
				// Registered again without its old dependencies.
				h.mustRegister(goal(n, in))
			}
			layers, err := h.deletes()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, antichainNames(layers), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("antichains (-want +got):\n%s", diff)
			}
			var refused []string
			for _, s := range h.gen.Refused() {
				refused = append(refused, s.URN().Name())
				var pe *stepgen.ProtectedError
				if s.Op != stepgen.OpDelete || !errors.As(s.Refused(), &pe) || pe.URN != s.URN() || pe.Action != "delete" {
					t.Errorf("refused %s %s: %v, want a ProtectedError for its delete", s.Op, s.URN().Name(), s.Refused())
				}
				// Applying it calls no provider (DeleteF fails the
				// test) and returns the refusal.
				o := h.applyOne(s)
				if !errors.As(o.Err, &pe) || s.JournalOp() != "" || !s.Local() {
					t.Errorf("applying the refused delete of %s: %v (journal op %q, local %t)", s.URN().Name(), o.Err, s.JournalOp(), s.Local())
				}
				if old, new := o.Record(); old != nil || new != nil {
					t.Errorf("the refused delete of %s records %v → %v", s.URN().Name(), old, new)
				}
			}
			if diff := cmp.Diff(tt.refused, refused, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("refused (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRefusedDeleteEndsWithoutAnAction: a host that ends the refused
// delete of a protected resource as it ends every step, with Done, gets
// no action back, and the generator stays settled: the refusal was never
// outstanding.
func TestRefusedDeleteEndsWithoutAnAction(t *testing.T) {
	p := recorded("p", nil, func(s *resource.State) { s.Protect = true })
	h := newHost(t, stepgen.Config{Old: []*resource.State{p}}, &providers.Func{DeleteF: failOnDelete(t)})
	if _, err := h.deletes(); err != nil {
		t.Fatal(err)
	}
	refused := h.gen.Refused()
	if len(refused) != 1 || !h.gen.Settled() {
		t.Fatalf("refused %d deletes, settled %t; want the one of p, settled", len(refused), h.gen.Settled())
	}
	o := h.applyOne(refused[0])
	if o.Err == nil {
		t.Fatal("the refused delete succeeded")
	}
	if acts := h.gen.Done(o); len(acts.Steps)+len(acts.Calls)+len(acts.Replies) != 0 {
		t.Errorf("Done of the refused delete = %+v, want no actions", acts)
	}
	if !h.gen.Settled() {
		t.Error("the generator is not settled after Done of the refused delete: it counted it as outstanding")
	}
}

// TestDeletesWhatIsNamed: targets and excludes limit deletes to what they
// name; the stack's root and providers are never deleted by a target that
// does not name them; KeepUnregistered keeps every live resource.
func TestDeletesWhatIsNamed(t *testing.T) {
	root := &resource.State{Type: resource.RootStackType, URN: resource.NewURN(testStack, testProject, "", resource.RootStackType, "proj-dev")}
	prov := &resource.State{Type: providers.ProviderType("test"), URN: provURN, Custom: true, ID: "prov-1"}
	old := []*resource.State{
		root, prov,
		recorded("a", nil),
		recorded("b", nil),
		recorded("c", nil, func(s *resource.State) { s.Delete = true }),
	}
	tests := []struct {
		name string
		cfg  stepgen.Config
		want [][]string
	}{
		{
			name: "everything unregistered",
			want: [][]string{{"delete-replaced c", "delete a", "delete b"}, {"delete proj-dev", "delete explicit"}},
		},
		{
			name: "targets",
			cfg:  stepgen.Config{Targets: map[resource.URN]bool{urn("a"): true}},
			want: [][]string{{"delete-replaced c", "delete a"}},
		},
		{
			name: "excludes",
			cfg:  stepgen.Config{Excludes: map[resource.URN]bool{urn("a"): true, root.URN: true, provURN: true}},
			want: [][]string{{"delete-replaced c", "delete b"}},
		},
		{
			name: "an excluded target",
			cfg:  stepgen.Config{Targets: map[resource.URN]bool{urn("a"): true, urn("b"): true}, Excludes: map[resource.URN]bool{urn("a"): true}},
			want: [][]string{{"delete-replaced c", "delete b"}},
		},
		{
			name: "KeepUnregistered: only old copies of replacements go",
			cfg:  stepgen.Config{KeepUnregistered: true},
			want: [][]string{{"delete-replaced c"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Old = old
			h := newHost(t, cfg, nil)
			layers, err := h.deletes()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, antichainNames(layers)); diff != "" {
				t.Errorf("deletes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDanglingDependents: a delete limited by targets or excludes must not
// leave a resource that stays depending on one that goes.
func TestDanglingDependents(t *testing.T) {
	old := []*resource.State{recorded("a", nil), recorded("b", nil, inputFrom("k", urn("a")))}
	for name, cfg := range map[string]stepgen.Config{
		"the dependent is not targeted": {Targets: map[resource.URN]bool{urn("a"): true}},
		"the dependent is excluded":     {Excludes: map[resource.URN]bool{urn("b"): true}},
	} {
		t.Run(name, func(t *testing.T) {
			cfg.Old = old
			h := newHost(t, cfg, nil)
			layers, err := h.deletes()
			var de *stepgen.DanglingDependentError
			if !errors.As(err, &de) {
				t.Fatalf("Deletes = %v, %v; want DanglingDependentError", antichainNames(layers), err)
			}
			if diff := cmp.Diff(&stepgen.DanglingDependentError{URN: urn("a"), Dependent: urn("b")}, de); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("the dependent is targeted too", func(t *testing.T) {
		h := newHost(t, stepgen.Config{Old: old, Targets: map[resource.URN]bool{urn("a"): true, urn("b"): true}}, nil)
		layers, err := h.deletes()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([][]string{{"delete b"}, {"delete a"}}, antichainNames(layers)); diff != "" {
			t.Errorf("deletes (-want +got):\n%s", diff)
		}
	})
	t.Run("the dependent is registered (untargeted)", func(t *testing.T) {
		h := newHost(t, stepgen.Config{Old: old, Targets: map[resource.URN]bool{urn("a"): true}}, nil)
		h.mustRegister(goal("b", nil))
		if _, err := h.deletes(); !errors.As(err, new(*stepgen.DanglingDependentError)) {
			t.Errorf("Deletes = %v, want DanglingDependentError", err)
		}
	})
}

// TestTargetedReplacementWithDependents: replacing a targeted resource
// leaves its old copy to delete under the same URN as the replacement. Its
// dependents depend on the replacement, not on the old copy: deleting the
// copy leaves nothing dangling.
func TestTargetedReplacementWithDependents(t *testing.T) {
	old := []*resource.State{recorded("a", map[string]any{"x": 1}), recorded("b", nil, inputFrom("k", urn("a")))}
	prov := &providers.Func{DiffF: diffBy(map[string]resource.DiffResult{"a": replaceKeys("x")})}
	for name, targets := range map[string]map[resource.URN]bool{
		"dependent untargeted": {urn("a"): true},
		"dependent targeted":   {urn("a"): true, urn("b"): true},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHost(t, stepgen.Config{Old: old, Targets: targets}, prov)
			h.mustRegister(goal("a", map[string]any{"x": 2}))
			h.mustRegister(goal("b", nil, func(g *resource.Goal) {
				g.Dependencies = []resource.URN{urn("a")}
				g.PropertyDependencies = map[resource.PropertyKey][]resource.URN{"k": {urn("a")}}
			}))
			layers, err := h.deletes()
			if err != nil {
				t.Fatalf("Deletes: %v", err)
			}
			if diff := cmp.Diff([][]string{{"delete-replaced a"}}, antichainNames(layers)); diff != "" {
				t.Errorf("deletes (-want +got):\n%s", diff)
			}
		})
	}
}
