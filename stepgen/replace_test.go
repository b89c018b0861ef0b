package stepgen_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// TestReplaceCreateBeforeDelete: by default the replacement is created
// first, as the reference engine does: the create's record condemns the
// old copy (marks it Delete, in the same journal entry that records the
// replacement beside it), so a create that fails leaves the old copy live.
// The replace step that follows stands for the whole and records nothing;
// Deletes removes the condemned copy after the program.
func TestReplaceCreateBeforeDelete(t *testing.T) {
	old := recorded("a", map[string]any{"x": 1}, func(s *resource.State) { s.Created = fixedNow.Add(-1) })
	prov := &providers.Func{DiffF: diffBy(map[string]resource.DiffResult{"a": replaceKeys("x")})}
	h := newHost(t, stepgen.Config{Old: []*resource.State{old}}, prov)
	h.mustRegister(resource.Goal{Type: providers.ProviderType("test"), Name: "explicit", Custom: true})
	chains := h.mustRegister(goal("a", map[string]any{"x": 2}))
	if diff := cmp.Diff([][]string{{"create-replacement a", "replace a"}}, opNames(chains)); diff != "" {
		t.Fatalf("chains (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]resource.URN{provURN}, h.urnsOf(chains[0][0].Needs)); diff != "" {
		t.Errorf("Needs (-want +got):\n%s", diff)
	}
	create, replace := chains[0][0], chains[0][1]
	if !slices.Equal(replace.Needs, []uint64{create.ID}) {
		t.Errorf("the replace step needs %v, want the create %d", replace.Needs, create.ID)
	}

	if create.Old != old || create.New.ID != "" || !create.New.Created.IsZero() {
		t.Errorf("create-replacement: old %p, new id %q created %v; want the old state, no ID and no creation time yet", create.Old, create.New.ID, create.New.Created)
	}
	if create.JournalOp() != resource.OperationCreating || result(create) != "old→new" || !condemns(create) {
		t.Errorf("create-replacement: journal %q, result %s, condemns %t; want creating, the old copy condemned beside the new one",
			create.JournalOp(), result(create), condemns(create))
	}
	if create.Diff.Changes != resource.DiffSome || !create.Diff.Replace() {
		t.Errorf("create-replacement's diff = %+v, want the replacing diff", create.Diff)
	}
	if replace.Old != old || replace.New != create.New {
		t.Errorf("replace step: old %p new %p; want the recorded state and the replacement", replace.Old, replace.New)
	}
	if replace.JournalOp() != "" || result(replace) != "nil→nil" || condemns(replace) {
		t.Errorf("replace step: journal %q, result %s, condemns %t; want no provider call and no record", replace.JournalOp(), result(replace), condemns(replace))
	}

	layers, err := h.deletes()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]string{{"delete-replaced a"}}, antichainNames(layers)); diff != "" {
		t.Fatalf("deletes (-want +got):\n%s", diff)
	}
	del := layers[0][0]
	wantMarked := old.Clone()
	wantMarked.Delete = true
	if diff := cmp.Diff(wantMarked, del.Old); diff != "" {
		t.Errorf("delete-replaced's Old (-want +got):\n%s", diff)
	}
	if del.JournalOp() != resource.OperationDeleting || result(del) != "old→nil" {
		t.Errorf("delete-replaced: journal %q, result %s", del.JournalOp(), result(del))
	}
}

// TestDeleteBeforeReplaceChain: deleting first leaves the old record marked
// PendingReplacement until the create replaces it, so that an interruption
// between the two is visible.
func TestDeleteBeforeReplaceChain(t *testing.T) {
	old := recorded("a", map[string]any{"x": 1})
	prov := &providers.Func{DiffF: diffBy(map[string]resource.DiffResult{"a": replaceKeys("x")})}
	h := newHost(t, stepgen.Config{Old: []*resource.State{old}}, prov)
	chains := h.mustRegister(goal("a", map[string]any{"x": 2}, func(g *resource.Goal) { g.DeleteBeforeReplace = true }))
	if diff := cmp.Diff([][]string{{"delete-replaced a", "create a"}}, opNames(chains)); diff != "" {
		t.Fatalf("chains (-want +got):\n%s", diff)
	}
	del, create := chains[0][0], chains[0][1]
	wantPending := old.Clone()
	wantPending.PendingReplacement = true
	if diff := cmp.Diff(wantPending, del.New); diff != "" {
		t.Errorf("delete-replaced's New (-want +got):\n%s", diff)
	}
	if del.Old != old || del.JournalOp() != resource.OperationDeleting || result(del) != "old→new" {
		t.Errorf("delete-replaced: journal %q, result %s; want deleting, the record swapped for the pending one", del.JournalOp(), result(del))
	}
	if create.Old != del.New || create.New.ID != "" || create.JournalOp() != resource.OperationCreating || result(create) != "old→new" {
		t.Errorf("create: old is the pending record %v, id %q, journal %q, result %s; want the pending record replaced",
			create.Old == del.New, create.New.ID, create.JournalOp(), result(create))
	}
	if del.Reg == nil || create.Reg == nil || del.Reg != create.Reg {
		t.Error("both steps must belong to the registration")
	}
	layers, err := h.deletes()
	if err != nil || len(layers) != 0 {
		t.Errorf("Deletes = %v, %v; want nothing left to delete", antichainNames(layers), err)
	}
}

// TestDeleteBeforeReplaceDependents is the dependents algorithm. a is
// replaced, deleting first. Before it goes, each transitive dependent whose
// inputs come from something being replaced is diffed with those inputs
// unknown; only those the provider would replace are deleted, dependents
// first.
//
//	b: input from a      → replaced  → deleted
//	c: dependsOn a only  → not asked → stays
//	d: input from a      → updates   → stays
//	e: input from b      → replaced  → deleted (b is being replaced)
//	f: input from d      → not asked → stays (d is not replaced)
//	g: child of a        → not asked → stays
func TestDeleteBeforeReplaceDependents(t *testing.T) {
	a := recorded("a", map[string]any{"x": 1})
	b := recorded("b", map[string]any{"a": "id-a", "k": 1}, inputFrom("a", urn("a")))
	c := recorded("c", nil, dependsOn(urn("a")))
	d := recorded("d", map[string]any{"a": "id-a"}, inputFrom("a", urn("a")))
	e := recorded("e", map[string]any{"b": "id-b"}, inputFrom("b", urn("b")))
	f := recorded("f", map[string]any{"d": "id-d"}, inputFrom("d", urn("d")))
	g := recorded("g", nil, func(s *resource.State) {
		s.Parent, s.URN = urn("a"), resource.NewURN(testStack, testProject, thing, thing, "g")
	})
	old := []*resource.State{a, b, c, d, e, f, g}

	dbr := replaceKeys("x")
	dbr.DeleteBeforeReplace = true
	var diffs []providers.DiffRequest
	prov := &providers.Func{DiffF: func(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
		diffs = append(diffs, req)
		return diffBy(map[string]resource.DiffResult{
			"a": dbr, "b": replaceKeys("a"), "e": replaceKeys("b"),
			"d": {Changes: resource.DiffSome, ChangedKeys: []resource.PropertyKey{"a"}},
		})(ctx, req)
	}}
	h := newHost(t, stepgen.Config{Old: old}, prov)
	chains := h.mustRegister(goal("a", map[string]any{"x": 2}))

	if diff := cmp.Diff([]string{"check a", "diff a", "check a", "diff b", "diff d", "diff e"}, h.callNames()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	want := [][]string{{"delete-replaced e", "delete-replaced b", "delete-replaced a", "create a"}}
	if diff := cmp.Diff(want, opNames(chains)); diff != "" {
		t.Fatalf("chains (-want +got):\n%s", diff)
	}

	// The dependents' diffs see unknowns exactly where a replaced
	// resource's output flows in.
	wantDiffs := []providers.DiffRequest{
		{URN: urn("b"), ID: "id-b", OldInputs: b.Inputs, OldOutputs: b.Outputs, NewInputs: props(map[string]any{"a": resource.NewUnknown(), "k": 1})},
		{URN: urn("d"), ID: "id-d", OldInputs: d.Inputs, OldOutputs: d.Outputs, NewInputs: props(map[string]any{"a": resource.NewUnknown()})},
		{URN: urn("e"), ID: "id-e", OldInputs: e.Inputs, OldOutputs: e.Outputs, NewInputs: props(map[string]any{"b": resource.NewUnknown()})},
	}
	if diff := cmp.Diff(wantDiffs, diffs[1:]); diff != "" {
		t.Errorf("dependents' diff requests (-want +got):\n%s", diff)
	}
	if dep := h.calls[3]; dep.Provider != b.Provider || dep.Type != b.Type || dep.Reg.URN != urn("a") {
		t.Errorf("a dependent's diff goes to %q %q for %s; want its own provider, for a's registration", dep.Provider, dep.Type, dep.Reg.URN)
	}

	steps := chains[0]
	for i, dep := range []*resource.State{e, b} {
		s := steps[i]
		if s.Old != dep || !s.New.PendingReplacement || s.JournalOp() != resource.OperationDeleting || result(s) != "old→new" || s.Reg != nil {
			t.Errorf("%s of %s: old %v pending %v journal %q result %s reg %v",
				s.Op, s.URN(), s.Old == dep, s.New.PendingReplacement, s.JournalOp(), result(s), s.Reg)
		}
	}

	// When the program registers a deleted dependent again, it is created
	// afresh over its pending record; the others are diffed as usual.
	h.calls = nil
	chains = h.mustRegister(goal("b", map[string]any{"a": "id-a2", "k": 1}))
	if diff := cmp.Diff([][]string{{"create b"}}, opNames(chains)); diff != "" {
		t.Errorf("re-registering b (-want +got):\n%s", diff)
	}
	if s := chains[0][0]; s.Old != steps[1].New || result(s) != "old→new" {
		t.Errorf("b's create does not replace the pending record")
	}
	if len(h.calls) != 1 || h.calls[0].Check.Olds != nil {
		t.Errorf("b's check got olds %v, want none (it is created afresh)", h.calls[0].Check.Olds)
	}
	h.calls = nil
	if got := opNames(h.mustRegister(goal("d", map[string]any{"a": "id-a2"}))); !cmp.Equal(got, [][]string{{"update d"}}) {
		t.Errorf("re-registering d = %v, want an update", got)
	}

	// e is no longer in the program: its pending record goes without a
	// provider call (the physical resource is already gone).
	for _, s := range []*resource.State{c, f} {
		h.mustRegister(goal(s.URN.Name(), s.Inputs.Mappable()))
	}
	h.mustRegister(goal("g", nil, func(gl *resource.Goal) { gl.Parent = urn("a") }))
	layers, err := h.deletes()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]string{{"delete e"}}, antichainNames(layers)); diff != "" {
		t.Fatalf("deletes (-want +got):\n%s", diff)
	}
	if s := layers[0][0]; !s.Old.PendingReplacement || s.JournalOp() != "" || result(s) != "old→nil" {
		t.Errorf("delete of e's pending record: journal %q, result %s; want no provider call", s.JournalOp(), result(s))
	}
}

// TestDeleteBeforeReplaceDependentsByOldURN: dependents whose records
// still name a renamed resource, or a replaced dependent, by an old URN
// (one the renamed record lists among its aliases) are found and diffed
// with unknowns like any other.
//
//	ax: was a, replaced (delete-before-replace)
//	b: input from a (ax's old URN)   → replaced → deleted
//	e: input from bb (b's old URN)   → replaced → deleted
func TestDeleteBeforeReplaceDependentsByOldURN(t *testing.T) {
	ax := recorded("ax", map[string]any{"x": 1}, knownAs(urn("a")))
	b := recorded("b", map[string]any{"a": "id-a"}, inputFrom("a", urn("a")), knownAs(urn("bb")))
	e := recorded("e", map[string]any{"b": "id-b"}, inputFrom("b", urn("bb")))
	dbr := replaceKeys("x")
	dbr.DeleteBeforeReplace = true
	prov := &providers.Func{DiffF: diffBy(map[string]resource.DiffResult{"ax": dbr, "b": replaceKeys("a"), "e": replaceKeys("b")})}
	h := newHost(t, stepgen.Config{Old: []*resource.State{ax, b, e}}, prov)
	chains := h.mustRegister(goal("ax", map[string]any{"x": 2}))
	if diff := cmp.Diff([]string{"check ax", "diff ax", "check ax", "diff b", "diff e"}, h.callNames()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	want := [][]string{{"delete-replaced e", "delete-replaced b", "delete-replaced ax", "create ax"}}
	if diff := cmp.Diff(want, opNames(chains)); diff != "" {
		t.Errorf("chains (-want +got):\n%s", diff)
	}
}

// TestDependentsThatCannotTell: a dependent whose provider cannot diff with
// unknowns (an error, or DiffUnknown) is assumed to be replaced, so the old
// resource is never deleted from under it.
func TestDependentsThatCannotTell(t *testing.T) {
	for name, answer := range map[string]func() (providers.DiffResponse, error){
		"error": func() (providers.DiffResponse, error) { return providers.DiffResponse{}, errors.New("cannot") },
		"unknown": func() (providers.DiffResponse, error) {
			return providers.DiffResponse{Changes: resource.DiffUnknown}, nil
		},
	} {
		t.Run(name, func(t *testing.T) {
			old := []*resource.State{
				recorded("a", map[string]any{"x": 1}),
				recorded("b", map[string]any{"a": "id-a"}, inputFrom("a", urn("a"))),
			}
			prov := &providers.Func{DiffF: func(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
				if req.URN == urn("b") {
					return answer()
				}
				return replaceKeys("x"), nil
			}}
			h := newHost(t, stepgen.Config{Old: old}, prov)
			chains := h.mustRegister(goal("a", map[string]any{"x": 2}, func(g *resource.Goal) { g.DeleteBeforeReplace = true }))
			want := [][]string{{"delete-replaced b", "delete-replaced a", "create a"}}
			if diff := cmp.Diff(want, opNames(chains)); diff != "" {
				t.Errorf("chains (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDependentsAlreadyRegistered: a dependent the program registered
// before the replacement keeps its new state; the old copy its own
// create-before-delete replacement condemned goes before the resource it
// depended on, once the replacement exists, and not again after the
// program.
func TestDependentsAlreadyRegistered(t *testing.T) {
	old := []*resource.State{
		recorded("a", map[string]any{"x": 1}),
		recorded("b", map[string]any{"k": 1}, inputFrom("k", urn("a"))),
	}
	prov := &providers.Func{DiffF: diffBy(map[string]resource.DiffResult{"a": replaceKeys("x"), "b": replaceKeys("k")})}
	h := newHost(t, stepgen.Config{Old: old}, prov)
	if diff := cmp.Diff([][]string{{"create-replacement b", "replace b"}}, opNames(h.mustRegister(goal("b", map[string]any{"k": 1})))); diff != "" {
		t.Errorf("b's chains (-want +got):\n%s", diff)
	}
	chains := h.mustRegister(goal("a", map[string]any{"x": 2}, func(g *resource.Goal) { g.DeleteBeforeReplace = true }))
	if diff := cmp.Diff([][]string{{"delete-replaced b", "delete-replaced a", "create a"}}, opNames(chains)); diff != "" {
		t.Errorf("chains (-want +got):\n%s", diff)
	}
	if del := chains[0][0]; del.Old == nil || !del.Old.Delete || del.Old.ID != "id-b" {
		t.Errorf("the first delete is of %+v, want b's old copy, marked for deletion", del.Old)
	}
	layers, err := h.deletes()
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) != 0 {
		t.Errorf("deletes after the program %v, want none: b's old copy is gone", antichainNames(layers))
	}
}

// TestDefaultProviderUpgrade: a resource moving from one default provider
// of its package to another (a version upgrade) is replaced only if the new
// provider's DiffConfig says it cannot manage what the old one did;
// otherwise it is diffed as usual.
func TestDefaultProviderUpgrade(t *testing.T) {
	oldProvURN := resource.NewURN(testStack, testProject, "", providers.ProviderType("test"), providers.DefaultProviderName("1.0.0"))
	newProvURN := resource.NewURN(testStack, testProject, "", providers.ProviderType("test"), providers.DefaultProviderName("2.0.0"))
	oldProv := &resource.State{
		Type: providers.ProviderType("test"), URN: oldProvURN, Custom: true, ID: "p1",
		Inputs: props(map[string]any{"version": "1.0.0"}), Outputs: props(map[string]any{"version": "1.0.0"}),
	}
	oldRef := providers.NewReference(oldProvURN, "p1").String()
	newRef := providers.NewReference(newProvURN, "p2").String()

	tests := []struct {
		name       string
		diffConfig resource.DiffResult
		inputs     map[string]any
		wantCalls  []string
		wantOps    [][]string
	}{
		{
			name:       "configuration compatible, inputs equal: same",
			diffConfig: resource.DiffResult{Changes: resource.DiffSome, ChangedKeys: []resource.PropertyKey{"version"}},
			inputs:     map[string]any{"x": 1},
			wantCalls:  []string{"check a", "diff-config default_2_0_0", "diff a"},
			wantOps:    [][]string{{"same a"}},
		},
		{
			name:       "configuration compatible, input changed: update",
			diffConfig: resource.DiffResult{Changes: resource.DiffNone},
			inputs:     map[string]any{"x": 2},
			wantCalls:  []string{"check a", "diff-config default_2_0_0", "diff a"},
			wantOps:    [][]string{{"update a"}},
		},
		{
			name:       "configuration needs a new instance: replace",
			diffConfig: replaceKeys("region"),
			inputs:     map[string]any{"x": 1},
			wantCalls:  []string{"check a", "diff-config default_2_0_0", "check a"},
			wantOps:    [][]string{{"create-replacement a", "replace a"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := recorded("a", map[string]any{"x": 1}, func(s *resource.State) { s.Provider = oldRef })
			var configDiff providers.DiffRequest
			prov := &providers.Func{
				CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
					return providers.CreateResponse{ID: "p2", Outputs: req.Inputs}, nil
				},
				DiffConfigF: func(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
					configDiff = req
					return tt.diffConfig, nil
				},
			}
			h := newHost(t, stepgen.Config{Old: []*resource.State{oldProv, a}}, prov)
			h.apply(h.mustRegister(resource.Goal{
				Type: providers.ProviderType("test"), Name: providers.DefaultProviderName("2.0.0"), Custom: true,
				Inputs: props(map[string]any{"version": "2.0.0"}),
			}))
			h.calls = nil
			chains := h.mustRegister(goal("a", tt.inputs, func(g *resource.Goal) { g.Provider = newRef }))
			if diff := cmp.Diff(tt.wantCalls, h.callNames()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantOps, opNames(chains)); diff != "" {
				t.Errorf("chains (-want +got):\n%s", diff)
			}
			want := providers.DiffRequest{
				URN: newProvURN, ID: "p2", OldInputs: oldProv.Inputs, OldOutputs: oldProv.Outputs,
				NewInputs: props(map[string]any{"version": "2.0.0"}),
			}
			if diff := cmp.Diff(want, configDiff); diff != "" {
				t.Errorf("DiffConfig request (-want +got):\n%s", diff)
			}
			// The old default provider is no longer used and goes after
			// the program (with a's old copy, if a was replaced).
			layers, err := h.deletes()
			if err != nil {
				t.Fatal(err)
			}
			last := layers[len(layers)-1]
			if got := antichainNames([][]*stepgen.Step{last}); !cmp.Equal(got, [][]string{{"delete default_1_0_0"}}) {
				t.Errorf("last antichain of deletes = %v, want the old default provider", got)
			}
		})
	}
}

// TestProviderChangeOutsideDefaults: moving between two explicit providers
// (or from a default to an explicit one) is a replacement; no DiffConfig is
// asked.
func TestProviderChangeOutsideDefaults(t *testing.T) {
	defURN := resource.NewURN(testStack, testProject, "", providers.ProviderType("test"), providers.DefaultProviderName(""))
	defRef := providers.NewReference(defURN, "p0").String()
	for name, from := range map[string]string{"explicit to explicit": provRef, "default to explicit": defRef} {
		t.Run(name, func(t *testing.T) {
			old := recorded("a", nil, func(s *resource.State) { s.Provider = from })
			h := newHost(t, stepgen.Config{Old: []*resource.State{old}}, &providers.Func{DiffF: failOnDiff(t)})
			chains := h.mustRegister(goal("a", nil, func(g *resource.Goal) { g.Provider = otherRef }))
			if diff := cmp.Diff([][]string{{"create-replacement a", "replace a"}}, opNames(chains)); diff != "" {
				t.Errorf("chains (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"check a", "check a"}, h.callNames()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRenamedExplicitProvider: an explicit provider renamed through an
// alias keeps its ID, so a resource whose reference changes only by that
// rename is diffed as usual, not replaced — whether the rename happens in
// this run or the provider record was renamed in an earlier one. A
// reference to another ID is a change of provider.
func TestRenamedExplicitProvider(t *testing.T) {
	renamedURN := resource.NewURN(testStack, testProject, "", providers.ProviderType("test"), "renamed")
	provState := &resource.State{Type: providers.ProviderType("test"), URN: provURN, Custom: true, ID: "prov-1"}
	renamedState := provState.Clone()
	renamedState.URN, renamedState.Aliases = renamedURN, []resource.URN{provURN}
	tests := []struct {
		name    string
		prov    *resource.State // the provider's record
		newID   resource.ID     // the ID the new reference names
		wantOps [][]string
	}{
		{name: "renamed in this run", prov: provState, newID: "prov-1", wantOps: [][]string{{"same a"}}},
		{name: "renamed in an earlier run", prov: renamedState, newID: "prov-1", wantOps: [][]string{{"same a"}}},
		{name: "another ID", prov: provState, newID: "prov-9", wantOps: [][]string{{"create-replacement a", "replace a"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := recorded("a", map[string]any{"x": 1}) // names the provider by provRef
			prov := &providers.Func{DiffF: diffBy(nil), DiffConfigF: diffBy(nil)}
			h := newHost(t, stepgen.Config{Old: []*resource.State{tt.prov, a}}, prov)
			h.apply(h.mustRegister(resource.Goal{
				Type: providers.ProviderType("test"), Name: "renamed", Custom: true,
				Aliases: []resource.Alias{{Name: "explicit"}},
			}))
			chains := h.mustRegister(goal("a", map[string]any{"x": 1}, func(g *resource.Goal) {
				g.Provider = providers.NewReference(renamedURN, tt.newID).String()
			}))
			if diff := cmp.Diff(tt.wantOps, opNames(chains)); diff != "" {
				t.Errorf("chains (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDependentAlreadyDeleted: a dependent that an interrupted
// delete-before-replace already deleted (recorded as pending replacement)
// is not deleted again: its step only carries the record over.
func TestDependentAlreadyDeleted(t *testing.T) {
	old := []*resource.State{
		recorded("a", map[string]any{"x": 1}),
		recorded("b", map[string]any{"a": "id-a"}, inputFrom("a", urn("a")), func(s *resource.State) { s.PendingReplacement = true }),
	}
	prov := &providers.Func{
		DiffF:   diffBy(map[string]resource.DiffResult{"a": replaceKeys("x"), "b": replaceKeys("a")}),
		DeleteF: failOnDelete(t),
	}
	h := newHost(t, stepgen.Config{Old: old}, prov)
	chains := h.mustRegister(goal("a", map[string]any{"x": 2}, func(g *resource.Goal) { g.DeleteBeforeReplace = true }))
	if diff := cmp.Diff([][]string{{"delete-replaced b", "delete-replaced a", "create a"}}, opNames(chains)); diff != "" {
		t.Fatalf("chains (-want +got):\n%s", diff)
	}
	s := chains[0][0]
	if s.JournalOp() != "" || !s.New.PendingReplacement || result(s) != "old→new" {
		t.Errorf("b's step: journal %q pending %v result %s; want the pending record carried over without a provider call",
			s.JournalOp(), s.New.PendingReplacement, result(s))
	}
	if o := h.applyOne(s); o.Err != nil {
		t.Error(o.Err)
	}
}

// TestCascadeWaitsForARegisteredDependent: a dependent registered before a
// delete-before-replace, whose registration is still being decided when
// the cascade reaches it, is waited for; replaced, it is replaced
// delete-before-create, and the cascade's delete needs its delete. When its
// registration fails instead, the cascade goes on without it.
func TestCascadeWaitsForARegisteredDependent(t *testing.T) {
	old := []*resource.State{
		recorded("a", map[string]any{"x": 1}),
		recorded("b", map[string]any{"k": 1}, inputFrom("k", urn("a"))),
	}
	for _, failB := range []bool{false, true} {
		t.Run(fmt.Sprintf("b fails %v", failB), func(t *testing.T) {
			prov := &providers.Func{
				DiffF: diffBy(map[string]resource.DiffResult{"a": replaceKeys("x"), "b": replaceKeys("k")}),
				CheckF: func(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
					if failB && req.URN == urn("b") {
						return providers.CheckResponse{}, errors.New("bad b")
					}
					return providers.CheckResponse{Inputs: req.News}, nil
				},
			}
			h := newHost(t, stepgen.Config{Old: old}, prov)
			bGoal := goal("b", map[string]any{"k": 2})
			bActs, err := h.gen.Register(&stepgen.Registration{Goal: &bGoal})
			if err != nil || len(bActs.Calls) != 1 {
				t.Fatalf("registering b: %v, %d calls", err, len(bActs.Calls))
			}
			aGoal := goal("a", map[string]any{"x": 2}, func(g *resource.Goal) { g.DeleteBeforeReplace = true })
			aActs, err := h.gen.Register(&stepgen.Registration{Goal: &aGoal})
			aSteps, err := h.drive(aActs, err)
			if err != nil {
				t.Fatal(err)
			}
			if len(aSteps) != 0 {
				t.Fatalf("a's cascade issued %v before b's steps were decided", opNames(aSteps))
			}
			acts, err := h.gen.Answer(h.answer(bActs.Calls[0]))
			if failB {
				if err == nil {
					t.Fatal("b's failed check did not fail its registration")
				}
				if diff := cmp.Diff([][]string{{"delete-replaced a", "create a"}}, opNames(chainsOf(acts.Steps))); diff != "" {
					t.Errorf("chains once b failed (-want +got):\n%s", diff)
				}
				return
			}
			var steps []*stepgen.Step
			for err == nil {
				steps = append(steps, acts.Steps...)
				if len(acts.Calls) == 0 {
					break
				}
				acts, err = h.gen.Answer(h.answer(acts.Calls[0]))
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([][]string{{"delete-replaced b", "create b"}, {"delete-replaced a", "create a"}}, opNames(chainsOf(steps))); diff != "" {
				t.Fatalf("chains (-want +got):\n%s", diff)
			}
			if delA := steps[2]; !slices.Contains(delA.Needs, steps[0].ID) {
				t.Errorf("a's delete needs %v, want b's delete (%d) among them", delA.Needs, steps[0].ID)
			}
		})
	}
}

// TestDeleteBeforeReplaceDeletesOldCopiesOfDependents: an old copy an
// earlier update marked for deletion and left (its delete never ran) still
// exists, and its record may depend on a resource now replaced
// delete-before-replace. The cascade treats it as it treats a live
// dependent: diffed with the replaced inputs unknown, and, replaced, deleted
// before the resource (it was to go anyway), not after the program, when
// the resource it refers to is already gone.
//
//	a: replaced delete-before-replace
//	b (old copy, marked): input from a → deleted in the cascade
//	c (old copy, marked): dependsOn a only → stays until after the program
//	d (old copy, marked): input from b's old copy → deleted first
//	b, c, d (live): no tie to a
func TestDeleteBeforeReplaceDeletesOldCopiesOfDependents(t *testing.T) {
	marked := func(s *resource.State) { s.Delete, s.ID = true, s.ID+"-old" }
	old := []*resource.State{
		recorded("a", map[string]any{"x": 1}),
		recorded("b", map[string]any{"k": 2}),
		recorded("b", map[string]any{"a": "id-a"}, inputFrom("a", urn("a")), marked),
		recorded("c", nil),
		recorded("c", nil, dependsOn(urn("a")), marked),
		recorded("d", nil),
		recorded("d", map[string]any{"b": "id-b-old"}, inputFrom("b", urn("b")), marked),
	}
	dbr := replaceKeys("x")
	dbr.DeleteBeforeReplace = true
	var copyDiff providers.DiffRequest
	prov := &providers.Func{DiffF: func(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
		switch req.ID {
		case "id-b-old":
			copyDiff = req
			return replaceKeys("a"), nil
		case "id-d-old":
			if !req.NewInputs["b"].IsUnknown() {
				t.Errorf("d's old copy was diffed with b %v, want unknown: b's old copy is replaced", req.NewInputs["b"])
			}
			return replaceKeys("b"), nil
		}
		return diffBy(map[string]resource.DiffResult{"a": dbr})(ctx, req)
	}}
	h := newHost(t, stepgen.Config{Old: old}, prov)
	chains := h.mustRegister(goal("a", map[string]any{"x": 2}))
	if diff := cmp.Diff([]string{"check a", "diff a", "check a", "diff b", "diff d"}, h.callNames()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{{"delete-replaced d", "delete-replaced b", "delete-replaced a", "create a"}}, opNames(chains)); diff != "" {
		t.Fatalf("chains (-want +got):\n%s", diff)
	}
	if del := chains[0][1]; del.Old != old[2] || del.New != nil || del.JournalOp() != resource.OperationDeleting {
		t.Errorf("the cascade's first delete is of %+v (new %v, journal %q); want b's old copy, deleted through its provider",
			del.Old, del.New, del.JournalOp())
	}
	if want := props(map[string]any{"a": resource.NewUnknown()}); !cmp.Equal(copyDiff.NewInputs, want) {
		t.Errorf("the old copy's diff got inputs %v, want %v", copyDiff.NewInputs, want)
	}
	// The live b is not touched by the delete of its old copy: its
	// registration finds it unchanged (the reference engine creates it
	// again, beside itself).
	if got := opNames(h.mustRegister(goal("b", map[string]any{"k": 2}))); !cmp.Equal(got, [][]string{{"same b"}}) {
		t.Errorf("registering b = %v, want it unchanged", got)
	}
	h.mustRegister(goal("c", nil))
	h.mustRegister(goal("d", nil))
	layers, err := h.deletes()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]string{{"delete-replaced c"}}, antichainNames(layers)); diff != "" {
		t.Errorf("deletes after the program (-want +got):\n%s", diff)
	}
}

// TestTwoCascadesReachOneReplacedDependent: c depends on a and on b and
// is replaced create-before-delete; then a and b are each replaced
// delete-before-replace. a's cascade deletes c's old copy before a; b's
// cascade finds that delete already issued and must follow it too, or b
// is deleted while c's old copy still refers to it.
func TestTwoCascadesReachOneReplacedDependent(t *testing.T) {
	old := []*resource.State{
		recorded("a", map[string]any{"x": 1}),
		recorded("b", map[string]any{"y": 1}),
		recorded("c", map[string]any{"k": 1, "m": 1, "z": 1}, inputFrom("k", urn("a")), inputFrom("m", urn("b"))),
	}
	dbr := replaceKeys("x", "y")
	dbr.DeleteBeforeReplace = true
	prov := &providers.Func{DiffF: diffBy(map[string]resource.DiffResult{"a": dbr, "b": dbr, "c": replaceKeys("z")})}
	h := newHost(t, stepgen.Config{Old: old}, prov)
	if got := opNames(h.mustRegister(goal("c", map[string]any{"k": 1, "m": 1, "z": 2}))); !cmp.Equal(got, [][]string{{"create-replacement c", "replace c"}}) {
		t.Fatalf("registering c = %v, want it replaced create-before-delete", got)
	}
	aChains := h.mustRegister(goal("a", map[string]any{"x": 2}))
	if diff := cmp.Diff([][]string{{"delete-replaced c", "delete-replaced a", "create a"}}, opNames(aChains)); diff != "" {
		t.Fatalf("a's chains (-want +got):\n%s", diff)
	}
	copyDelete := aChains[0][0]
	bChains := h.mustRegister(goal("b", map[string]any{"y": 2}))
	if diff := cmp.Diff([][]string{{"delete-replaced b", "create b"}}, opNames(bChains)); diff != "" {
		t.Fatalf("b's chains (-want +got):\n%s", diff)
	}
	if delB := bChains[0][0]; !slices.Contains(delB.Needs, copyDelete.ID) {
		t.Errorf("b's delete needs %v, want the delete of c's old copy (%d) among them", delB.Needs, copyDelete.ID)
	}
}

// TestTwoCascadesReachOneLeftoverCopy: an old copy an earlier run left
// marked for deletion refers to a and to b, both replaced
// delete-before-replace. a's cascade deletes the copy before a; b's
// cascade, started once a's has taken the copy, must find it still and
// follow that delete, not pass it by and delete b under it.
func TestTwoCascadesReachOneLeftoverCopy(t *testing.T) {
	marked := func(s *resource.State) { s.Delete, s.ID = true, s.ID+"-old" }
	old := []*resource.State{
		recorded("a", map[string]any{"x": 1}),
		recorded("b", map[string]any{"y": 1}),
		recorded("c", nil),
		recorded("c", map[string]any{"ra": "id-a", "rb": "id-b"}, inputFrom("ra", urn("a")), inputFrom("rb", urn("b")), marked),
	}
	dbr := replaceKeys("x", "y")
	dbr.DeleteBeforeReplace = true
	var copyDiffs int
	prov := &providers.Func{DiffF: func(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
		if req.ID == "id-c-old" {
			copyDiffs++
			return replaceKeys("ra", "rb"), nil
		}
		return diffBy(map[string]resource.DiffResult{"a": dbr, "b": dbr})(ctx, req)
	}}
	h := newHost(t, stepgen.Config{Old: old}, prov)
	aChains := h.mustRegister(goal("a", map[string]any{"x": 2}))
	if diff := cmp.Diff([][]string{{"delete-replaced c", "delete-replaced a", "create a"}}, opNames(aChains)); diff != "" {
		t.Fatalf("a's chains (-want +got):\n%s", diff)
	}
	copyDelete := aChains[0][0]
	bChains := h.mustRegister(goal("b", map[string]any{"y": 2}))
	if diff := cmp.Diff([][]string{{"delete-replaced b", "create b"}}, opNames(bChains)); diff != "" {
		t.Fatalf("b's chains (-want +got):\n%s", diff)
	}
	if delB := bChains[0][0]; !slices.Contains(delB.Needs, copyDelete.ID) {
		t.Errorf("b's delete needs %v, want the delete of c's old copy (%d) among them", delB.Needs, copyDelete.ID)
	}
	if copyDiffs != 1 {
		t.Errorf("c's old copy was diffed %d times, want once: the second cascade follows the first's delete", copyDiffs)
	}
}
