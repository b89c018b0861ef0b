package state

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/groundwork-iac/groundwork/resource"
)

// withStack is a provider, a database, two tables deleted with it (one
// through the other: a chain), and an unrelated bucket.
func withStack() (s *Snapshot, db, t1, t2, other *resource.State) {
	prov := newProvider("default", "p1")
	db = newBucket("db", prov)
	t1 = newBucket("t1", prov, db.URN)
	t1.DeletedWith = db.URN
	t2 = newBucket("t2", prov)
	t2.DeletedWith = t1.URN
	other = newBucket("other", prov)
	return &Snapshot{Resources: []*resource.State{prov, db, t1, t2, other}}, db, t1, t2, other
}

func withList(rs ...*resource.State) []*resource.State { return rs }

// TestFoldWith: an entry that removes Old removes the records listed in
// With too, in the same entry; a write does as a success does; an empty
// With is an ordinary removal.
func TestFoldWith(t *testing.T) {
	base, db, t1, t2, other := withStack()
	prov := base.Resources[0]
	// Two records may share an identity (URN, ID, Delete): each listing
	// removes one.
	twin := other.Clone()
	twin.Delete = true
	twin2 := twin.Clone()
	cases := []struct {
		name    string
		base    []*resource.State
		entries []Entry
		want    []*resource.State
	}{
		{
			name: "a successful delete takes the chain deleted with it",
			entries: []Entry{
				{Kind: EntryBegin, Op: resource.OperationDeleting, Old: db},
				{Kind: EntrySuccess, Begin: 1, Old: db, With: withList(t1, t2)},
			},
			want: []*resource.State{prov, other},
		},
		{
			name:    "a write (a target retained, or with no provider) does the same",
			entries: []Entry{{Kind: EntryWrite, Old: db, With: withList(t2, t1)}},
			want:    []*resource.State{prov, other},
		},
		{
			name:    "an empty With is an ordinary removal",
			entries: []Entry{{Kind: EntryWrite, Old: other, With: withList()}},
			want:    []*resource.State{prov, db, t1, t2},
		},
		{
			name:    "records sharing an identity are removed one per listing",
			base:    []*resource.State{prov, db, t1, t2, other, twin, twin2},
			entries: []Entry{{Kind: EntryWrite, Old: twin, With: withList(twin2)}},
			want:    []*resource.State{prov, db, t1, t2, other},
		},
		{
			name: "a failed delete removes nothing",
			entries: []Entry{
				{Kind: EntryBegin, Op: resource.OperationDeleting, Old: db},
				{Kind: EntryFailure, Begin: 1},
			},
			want: []*resource.State{prov, db, t1, t2, other},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := base
			if tc.base != nil {
				b = &Snapshot{Resources: tc.base}
			}
			f := mustFold(t, b)
			applyAll(t, f, tc.entries...)
			got := f.Snapshot()
			if diff := cmp.Diff(urnList(tc.want), urnList(got.Resources)); diff != "" {
				t.Errorf("resources (-want +got):\n%s", diff)
			}
			if len(got.PendingOperations) != 0 {
				t.Errorf("pending operations left: %v", pendingOf(got))
			}
			if err := got.VerifyIntegrity(); err != nil {
				t.Errorf("the fold fails integrity: %v", err)
			}
		})
	}
}

// TestFoldRejectsWith: a With that does not fit is rejected as a whole and
// leaves the fold unchanged: nothing in the batch is removed.
func TestFoldRejectsWith(t *testing.T) {
	base, db, t1, t2, _ := withStack()
	unknown := newBucket("nowhere", base.Resources[0])
	cases := []struct {
		name string
		e    Entry
	}{
		{"on a begin", Entry{Kind: EntryBegin, Op: resource.OperationDeleting, Old: db, With: withList(t1)}},
		{"on a failure", Entry{Kind: EntryFailure, Begin: 1, With: withList(t1)}},
		{"on a clear-pending", Entry{Kind: EntryClearPending, Op: resource.OperationDeleting, Old: db, With: withList(t1)}},
		{"without Old", Entry{Kind: EntryWrite, New: unknown, With: withList(t1)}},
		{"with a New", Entry{Kind: EntryWrite, Old: db, New: db, With: withList(t1)}},
		{"a member not recorded", Entry{Kind: EntryWrite, Old: db, With: withList(t1, unknown)}},
		{"a member listed twice", Entry{Kind: EntryWrite, Old: db, With: withList(t1, t2, t1)}},
		{"Old listed again", Entry{Kind: EntryWrite, Old: db, With: withList(db)}},
		{"a member with another ID", Entry{Kind: EntryWrite, Old: db, With: withList(func() *resource.State { r := t1.Clone(); r.ID = "x"; return r }())}},
		{"a member marked Delete that is not", Entry{Kind: EntryWrite, Old: db, With: withList(func() *resource.State { r := t1.Clone(); r.Delete = true; return r }())}},
		{"a nil member", Entry{Kind: EntryWrite, Old: db, With: withList(t1, nil)}},
		{"a member without URN", Entry{Kind: EntryWrite, Old: db, With: withList(&resource.State{})}},
		{"a success whose step is unknown", Entry{Kind: EntrySuccess, Begin: 99, Old: db, With: withList(t1)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := mustFold(t, base)
			applyAll(t, f, Entry{Kind: EntryBegin, Op: resource.OperationDeleting, Old: db})
			before := f.Snapshot()
			e := tc.e
			e.Seq = f.LastSeq() + 1
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

func pendingOf(s *Snapshot) []string {
	var out []string
	for _, op := range s.PendingOperations {
		out = append(out, string(op.Kind)+" "+op.Resource.URN.Name())
	}
	return out
}
