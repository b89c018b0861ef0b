package state

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
)

// applyAll applies entries with Seqs 1, 2, ... and fails the test on error.
func applyAll(t *testing.T, f *Fold, entries ...Entry) {
	t.Helper()
	for _, e := range entries {
		e.Seq = f.LastSeq() + 1
		if err := f.Apply(e); err != nil {
			t.Fatalf("Apply(%s %s): %v", e.Kind, entryURN(e), err)
		}
	}
}

func mustFold(t *testing.T, base *Snapshot) *Fold {
	t.Helper()
	f, err := NewFold(base, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestFoldRules(t *testing.T) {
	prov := newProvider("default", "p1")
	a, b := newBucket("a", prov), newBucket("b", prov)
	a2 := a.Clone()
	a2.Outputs = resource.PropertyMap{"v": resource.NewNumber(2)}
	aDel := a.Clone()
	aDel.Delete = true
	aNew := a.Clone()
	aNew.ID = "a-id-2"
	partial := newBucket("p", prov)
	partial.InitErrors = []string{"half created"}
	begin := func(seq uint64) uint64 { return seq }

	cases := []struct {
		name        string
		base        []*resource.State
		entries     []Entry
		wantURNs    []*resource.State
		wantPending []resource.OperationKind
	}{
		{
			name:     "create",
			base:     []*resource.State{prov},
			entries:  []Entry{{Kind: EntryBegin, Op: resource.OperationCreating, New: a}, {Kind: EntrySuccess, Begin: begin(1), New: a}},
			wantURNs: []*resource.State{prov, a},
		},
		{
			name:        "begin only leaves a pending operation",
			base:        []*resource.State{prov},
			entries:     []Entry{{Kind: EntryBegin, Op: resource.OperationCreating, New: a}},
			wantURNs:    []*resource.State{prov},
			wantPending: []resource.OperationKind{resource.OperationCreating},
		},
		{
			name:     "failure clears the pending operation only",
			base:     []*resource.State{prov, a},
			entries:  []Entry{{Kind: EntryBegin, Op: resource.OperationUpdating, Old: a, New: a2}, {Kind: EntryFailure, Begin: 1}},
			wantURNs: []*resource.State{prov, a},
		},
		{
			name:     "update in place keeps the slot",
			base:     []*resource.State{prov, a, b},
			entries:  []Entry{{Kind: EntryBegin, Op: resource.OperationUpdating, Old: a, New: a2}, {Kind: EntrySuccess, Begin: 1, Old: a, New: a2}},
			wantURNs: []*resource.State{prov, a2, b},
		},
		{
			name: "partial failure recorded through success",
			base: []*resource.State{prov},
			entries: []Entry{{Kind: EntryBegin, Op: resource.OperationCreating, New: partial},
				{Kind: EntrySuccess, Begin: 1, New: partial}},
			wantURNs: []*resource.State{prov, partial},
		},
		{
			name:     "delete",
			base:     []*resource.State{prov, a, b},
			entries:  []Entry{{Kind: EntryBegin, Op: resource.OperationDeleting, Old: a}, {Kind: EntrySuccess, Begin: 1, Old: a}},
			wantURNs: []*resource.State{prov, b},
		},
		{
			name: "create before delete replacement",
			base: []*resource.State{prov, a, b},
			entries: []Entry{
				{Kind: EntryWrite, Old: a, New: aDel},
				{Kind: EntryBegin, Op: resource.OperationCreating, New: aNew},
				{Kind: EntrySuccess, Begin: 2, New: aNew},
			},
			wantURNs: []*resource.State{prov, aDel, b, aNew},
		},
		{
			name: "a replacement's create condemns the old copy",
			base: []*resource.State{prov, a, b},
			entries: []Entry{
				{Kind: EntryBegin, Op: resource.OperationCreating, New: aNew},
				{Kind: EntrySuccess, Begin: 1, Old: a, New: aNew, Condemn: true},
			},
			wantURNs: []*resource.State{prov, aDel, b, aNew},
		},
		{
			name: "a replacement's failed create leaves the old copy live",
			base: []*resource.State{prov, a, b},
			entries: []Entry{
				{Kind: EntryBegin, Op: resource.OperationCreating, New: aNew},
				{Kind: EntryFailure, Begin: 1},
			},
			wantURNs: []*resource.State{prov, a, b},
		},
		{
			name: "replacement finished",
			base: []*resource.State{prov, aDel, b, aNew},
			entries: []Entry{
				{Kind: EntryBegin, Op: resource.OperationDeleting, Old: aDel},
				{Kind: EntrySuccess, Begin: 1, Old: aDel},
			},
			wantURNs: []*resource.State{prov, b, aNew},
		},
		{
			name:     "clear an inherited pending operation",
			base:     []*resource.State{prov},
			entries:  []Entry{{Kind: EntryClearPending, Op: resource.OperationCreating, Old: a}},
			wantURNs: []*resource.State{prov},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := &Snapshot{Resources: tc.base}
			if tc.name == "clear an inherited pending operation" {
				base.PendingOperations = []resource.Operation{{Resource: a, Kind: resource.OperationCreating}}
			}
			f := mustFold(t, base)
			applyAll(t, f, tc.entries...)
			got := f.Snapshot()
			if diff := cmp.Diff(tc.wantURNs, got.Resources, snapshotOpts, propertyOpts); diff != "" {
				t.Errorf("resources (-want +got):\n%s", diff)
			}
			var kinds []resource.OperationKind
			for _, op := range got.PendingOperations {
				kinds = append(kinds, op.Kind)
			}
			if diff := cmp.Diff(tc.wantPending, kinds); diff != "" {
				t.Errorf("pending operations (-want +got):\n%s", diff)
			}
			if err := got.VerifyIntegrity(); err != nil {
				t.Errorf("the fold fails integrity: %v", err)
			}
		})
	}
}

func TestFoldRejects(t *testing.T) {
	prov := newProvider("default", "p1")
	a := newBucket("a", prov)
	other := newBucket("other", prov)
	cases := []struct {
		name string
		e    Entry
	}{
		{"end without begin", Entry{Kind: EntrySuccess, Begin: 99, New: a}},
		{"failure of a finished step", Entry{Kind: EntryFailure, Begin: 1}},
		{"old not recorded", Entry{Kind: EntryWrite, Old: other, New: other}},
		{"begin without op", Entry{Kind: EntryBegin, New: a}},
		{"begin without resource", Entry{Kind: EntryBegin, Op: resource.OperationCreating}},
		{"clear nothing", Entry{Kind: EntryClearPending, Op: resource.OperationDeleting, Old: a}},
		{"clear a running step", Entry{Kind: EntryClearPending, Op: resource.OperationUpdating, Old: a}},
		{"unknown kind", Entry{Kind: 77, New: a}},
		{"resource without URN", Entry{Kind: EntryWrite, New: &resource.State{}}},
		{"seq not increasing", Entry{Kind: EntryWrite, New: other, Seq: 1}},
		{"dangling dependency", Entry{Kind: EntryWrite, New: newBucket("d", prov, testURN("x:y:Z", "nowhere"))}},
		{"unknown provider", Entry{Kind: EntryWrite, New: newBucket("d", newProvider("other", "p9"))}},
		{"unknown value", Entry{Kind: EntryWrite, New: func() *resource.State {
			r := newBucket("d", prov)
			r.Outputs["x"] = resource.NewUnknown()
			return r
		}()}},
		{"unknown in a begin", Entry{Kind: EntryBegin, Op: resource.OperationCreating, New: func() *resource.State {
			r := newBucket("d", prov)
			r.Inputs["x"] = resource.NewUnknown()
			return r
		}()}},
		{"second live copy", Entry{Kind: EntryWrite, New: func() *resource.State { r := a.Clone(); r.ID = "x"; return r }()}},
		{"condemn without New", Entry{Kind: EntryWrite, Old: a, Condemn: true}},
		{"condemn a copy already condemned", Entry{Kind: EntryWrite, Old: func() *resource.State { r := a.Clone(); r.Delete = true; return r }(),
			New: a, Condemn: true}},
		{"condemn in a begin", Entry{Kind: EntryBegin, Op: resource.OperationCreating, Old: a, New: a, Condemn: true}},
		{"depends on what it replaces", Entry{Kind: EntrySuccess, Begin: 2, Old: a, New: func() *resource.State {
			r := newBucket("a2", prov, a.URN)
			return r
		}()}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := mustFold(t, &Snapshot{Resources: []*resource.State{prov, a}})
			applyAll(t, f,
				Entry{Kind: EntryBegin, Op: resource.OperationUpdating, Old: a, New: a},
				Entry{Kind: EntryBegin, Op: resource.OperationUpdating, Old: a, New: a},
				Entry{Kind: EntrySuccess, Begin: 1, Old: a, New: a})
			before := f.Snapshot()
			e := tc.e
			if e.Seq == 0 {
				e.Seq = f.LastSeq() + 1
			}
			err := f.Apply(e)
			var ee *EntryError
			if !errors.As(err, &ee) {
				t.Fatalf("Apply = %v; want *EntryError", err)
			}
			if diff := cmp.Diff(before, f.Snapshot(), propertyOpts); diff != "" {
				t.Errorf("a rejected entry changed the fold:\n%s", diff)
			}
		})
	}
}

func TestFoldOrdersByDependencies(t *testing.T) {
	prov := newProvider("default", "p1")
	a, b := newBucket("a", prov), newBucket("b", prov)
	f := mustFold(t, &Snapshot{Resources: []*resource.State{prov, a, b}})
	// c is created after b, then b is updated to depend on c: b keeps its
	// slot, so only a sort puts c before b.
	c := newBucket("c", prov, a.URN)
	b2 := newBucket("b", prov, c.URN)
	applyAll(t, f,
		Entry{Kind: EntryBegin, Op: resource.OperationCreating, New: c},
		Entry{Kind: EntrySuccess, Begin: 1, New: c},
		Entry{Kind: EntryBegin, Op: resource.OperationUpdating, Old: b, New: b2},
		Entry{Kind: EntrySuccess, Begin: 3, Old: b, New: b2})
	got := f.Snapshot()
	want := []resource.URN{prov.URN, a.URN, c.URN, b.URN}
	if diff := cmp.Diff(want, urns(got)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if err := got.VerifyIntegrity(); err != nil {
		t.Error(err)
	}
}

func TestSortResolvesToLiveCopy(t *testing.T) {
	prov := newProvider("default", "p1")
	x := newBucket("x", prov)
	xOld := x.Clone()
	xOld.Delete, xOld.ID = true, "old-id"
	// y (slot 2) depends on x, whose live copy sits at the end: the edge
	// must pull the live x forward, after the Delete-marked copy.
	y := newBucket("y", prov, x.URN)
	got := sortResources([]*resource.State{prov, xOld, y, x})
	want := []*resource.State{prov, xOld, x, y}
	if !slices.Equal(got, want) {
		t.Errorf("order = %v; want %v", urnList(got), urnList(want))
	}
	// The live copy also follows its own Delete-marked copy when something
	// earlier pulls it forward.
	z := newBucket("z", prov, x.URN)
	got = sortResources([]*resource.State{prov, z, xOld, x})
	if err := (&Snapshot{Resources: got}).VerifyIntegrity(); err != nil {
		t.Errorf("%v: %v", urnList(got), err)
	}
}

func TestSortKeepsOrderAndHandlesLongChains(t *testing.T) {
	s := chainStack(2000)
	if got := sortResources(s.Resources); !slices.Equal(got, s.Resources) {
		t.Fatal("an ordered list was reordered")
	}
	rev := slices.Clone(s.Resources)
	slices.Reverse(rev)
	got := sortResources(rev)
	if !slices.Equal(got, s.Resources) {
		t.Fatal("a reversed chain was not put back in order")
	}
}

func urnList(rs []*resource.State) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.URN.Name()+"/"+string(r.ID))
	}
	return out
}

// TestFoldResolvesAliases: a record may name a renamed resource by an old
// URN, one the renamed record lists among its aliases, whether the rename
// is recorded yet or not; the reference resolves as it does in the
// snapshot order and its integrity check.
func TestFoldResolvesAliases(t *testing.T) {
	prov := newProvider("default", "p1")
	a := newBucket("a", prov)
	b := newBucket("b", prov, a.URN)
	ax := newBucket("ax", prov)
	ax.ID, ax.Aliases = a.ID, []resource.URN{a.URN}
	bPending := b.Clone()
	bPending.PendingReplacement = true

	f := mustFold(t, &Snapshot{Resources: []*resource.State{prov, a, b}})
	applyAll(t, f,
		Entry{Kind: EntryWrite, Old: a, New: ax}, // the rename
		// b's old record, written again after the rename: a
		// delete-before-replace leaves it pending.
		Entry{Kind: EntryBegin, Op: resource.OperationDeleting, Old: b},
		Entry{Kind: EntrySuccess, Begin: 2, Old: b, New: bPending})
	got := f.Snapshot()
	if diff := cmp.Diff([]resource.URN{prov.URN, ax.URN, b.URN}, urns(got)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if err := got.VerifyIntegrity(); err != nil {
		t.Errorf("the fold fails integrity: %v", err)
	}

	rejects := []struct {
		name    string
		entries []Entry
	}{
		{
			// As VerifyIntegrity sees it, a record's own aliases are not
			// recorded before it.
			name: "a record naming an old URN of its own",
			entries: []Entry{{Kind: EntryWrite, Old: a, New: func() *resource.State {
				r := ax.Clone()
				r.Dependencies = []resource.URN{a.URN}
				return r
			}()}},
		},
		{
			name: "an update naming an old URN of its own",
			entries: []Entry{{Kind: EntryWrite, Old: a, New: ax}, {Kind: EntryWrite, Old: ax, New: func() *resource.State {
				r := ax.Clone()
				r.Dependencies = []resource.URN{a.URN}
				return r
			}()}},
		},
		{
			name: "a reference to an old URN once the renamed record is gone",
			entries: []Entry{
				{Kind: EntryWrite, Old: a, New: ax},
				{Kind: EntryWrite, Old: b},
				{Kind: EntryWrite, Old: ax},
				{Kind: EntryWrite, New: b},
			},
		},
	}
	for _, tc := range rejects {
		t.Run(tc.name, func(t *testing.T) {
			f := mustFold(t, &Snapshot{Resources: []*resource.State{prov, a, b}})
			last := len(tc.entries) - 1
			applyAll(t, f, tc.entries[:last]...)
			e := tc.entries[last]
			e.Seq = f.LastSeq() + 1
			var ee *EntryError
			if err := f.Apply(e); !errors.As(err, &ee) {
				t.Fatalf("Apply = %v; want *EntryError", err)
			}
		})
	}
}

// TestFoldResolvesProviderAliases: a provider resource renamed through an
// alias keeps its ID; a record written afterwards may still reference it
// by its old URN, and nothing else answers for that reference.
func TestFoldResolvesProviderAliases(t *testing.T) {
	prov := newProvider("default", "p1")
	renamed := prov.Clone()
	renamed.URN, renamed.Aliases = testURN("pulumi:providers:aws", "renamed"), []resource.URN{prov.URN}
	a := newBucket("a", prov) // names the provider by its old URN
	f := mustFold(t, &Snapshot{Resources: []*resource.State{prov}})
	applyAll(t, f,
		Entry{Kind: EntryWrite, Old: prov, New: renamed},
		Entry{Kind: EntryBegin, Op: resource.OperationCreating, New: a},
		Entry{Kind: EntrySuccess, Begin: 2, New: a})
	if err := f.Snapshot().VerifyIntegrity(); err != nil {
		t.Errorf("the fold fails integrity: %v", err)
	}
	other := newBucket("b", prov)
	other.Provider = string(prov.URN) + "::p2" // another ID
	var ee *EntryError
	if err := f.Apply(Entry{Kind: EntryWrite, New: other, Seq: f.LastSeq() + 1}); !errors.As(err, &ee) {
		t.Errorf("a provider reference by the old URN with another ID: Apply = %v; want *EntryError", err)
	}
	applyAll(t, f, Entry{Kind: EntryWrite, Old: a}, Entry{Kind: EntryWrite, Old: renamed})
	if err := f.Apply(Entry{Kind: EntryWrite, New: a, Seq: f.LastSeq() + 1}); !errors.As(err, &ee) {
		t.Errorf("a provider reference by the old URN once the provider is gone: Apply = %v; want *EntryError", err)
	}
}
