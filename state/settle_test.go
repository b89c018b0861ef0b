package state

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
)

// TestFoldSettle: when an operation ends, the renames it made settle:
// references and records still under an old URN take the new one, the
// children of a retyped parent follow its type, and aliases are emptied.
// Where settling would leave two live records under one URN, nothing
// changes.
func TestFoldSettle(t *testing.T) {
	const bucket, group, team = "aws:s3/bucket:Bucket", "my:index:Group", "my:index:Team"
	prov := newProvider("default", "p1")
	under := func(parent resource.URN, typ, name string) resource.URN {
		return resource.NewURN("dev", "proj", parent.QualifiedType(), typ, name)
	}
	component := func(u resource.URN, parent resource.URN, aliases ...resource.URN) *resource.State {
		return &resource.State{Type: u.Type(), URN: u, Parent: parent, Aliases: aliases}
	}
	child := func(u, parent resource.URN, deps ...resource.URN) *resource.State {
		r := newBucket(u.Name(), prov, deps...)
		r.URN, r.Parent = u, parent
		return r
	}
	renamed := func(b *resource.State, u resource.URN, aliases ...resource.URN) *resource.State {
		c := b.Clone()
		c.URN, c.Aliases = u, aliases
		return c
	}
	condemned := func(b *resource.State) *resource.State {
		c := b.Clone()
		c.Delete = true
		c.ID += "-old"
		return c
	}
	oldA, newA := testURN(bucket, "a"), testURN(bucket, "ax")
	a := newBucket("a", prov)
	oldG, newG := testURN(group, "g"), testURN(team, "g")
	oldC, oldGC := under(oldG, bucket, "c"), under(under(oldG, bucket, "c"), bucket, "gc")
	newC, newGC := under(newG, bucket, "c"), under(under(newG, bucket, "c"), bucket, "gc")
	// what is one record's URN in want.
	type want struct {
		urn      resource.URN
		delete   bool
		parent   resource.URN
		deps     []resource.URN
		provider string
	}
	tests := []struct {
		name    string
		records []*resource.State
		settled bool
		want    []want
	}{
		{
			name:    "no aliases: nothing to settle",
			records: []*resource.State{prov, a, newBucket("b", prov, oldA)},
			want: []want{
				{urn: prov.URN}, {urn: oldA, provider: providerRef(prov)},
				{urn: testURN(bucket, "b"), deps: []resource.URN{oldA}, provider: providerRef(prov)},
			},
		},
		{
			name: "a dependent and the old copy take the new URN",
			records: []*resource.State{
				prov, condemned(a), renamed(a, newA, oldA), newBucket("b", prov, oldA),
			},
			settled: true,
			want: []want{
				{urn: prov.URN}, {urn: newA, delete: true, provider: providerRef(prov)},
				{urn: newA, provider: providerRef(prov)},
				{urn: testURN(bucket, "b"), deps: []resource.URN{newA}, provider: providerRef(prov)},
			},
		},
		{
			name: "children and grandchildren of a retyped parent follow its type",
			records: []*resource.State{
				prov, component(newG, "", oldG), child(oldC, oldG), child(oldGC, oldC, oldC),
			},
			settled: true,
			want: []want{
				{urn: prov.URN}, {urn: newG},
				{urn: newC, parent: newG, provider: providerRef(prov)},
				{urn: newGC, parent: newC, deps: []resource.URN{newC}, provider: providerRef(prov)},
			},
		},
		{
			name: "the old copy of a child renamed under a retyped parent keeps its name under the new type",
			records: []*resource.State{
				prov, component(newG, "", oldG), condemned(child(oldC, oldG)),
				renamed(child(oldC, newG), under(newG, bucket, "cx"), oldC),
			},
			settled: true,
			want: []want{
				{urn: prov.URN}, {urn: newG},
				{urn: newC, delete: true, parent: newG, provider: providerRef(prov)},
				{urn: under(newG, bucket, "cx"), parent: newG, provider: providerRef(prov)},
			},
		},
		{
			name: "an alias of a record that follows its parent ends at the record's new URN",
			records: []*resource.State{
				prov, component(newG, "", oldG), renamed(child(oldC, oldG), oldC, testURN(bucket, "c0")),
				newBucket("d", prov, testURN(bucket, "c0")),
			},
			settled: true,
			want: []want{
				{urn: prov.URN}, {urn: newG},
				{urn: newC, parent: newG, provider: providerRef(prov)},
				{urn: testURN(bucket, "d"), deps: []resource.URN{newC}, provider: providerRef(prov)},
			},
		},
		{
			name: "a renamed provider: references name its new URN",
			records: []*resource.State{
				renamed(prov, testURN(prov.Type, "main"), prov.URN), newBucket("b", prov),
			},
			settled: true,
			want: []want{
				{urn: testURN(prov.Type, "main")},
				{urn: testURN(bucket, "b"), provider: string(testURN(prov.Type, "main")) + "::p1"},
			},
		},
		{
			name: "an old URN a live record holds again is that record's",
			records: []*resource.State{
				prov, renamed(a, newA, oldA), newBucket("a", prov), newBucket("b", prov, oldA),
			},
			settled: true,
			want: []want{
				{urn: prov.URN}, {urn: newA, provider: providerRef(prov)}, {urn: oldA, provider: providerRef(prov)},
				{urn: testURN(bucket, "b"), deps: []resource.URN{oldA}, provider: providerRef(prov)},
			},
		},
		{
			name: "two live records claiming one old URN: left as they are",
			records: []*resource.State{
				prov, renamed(a, newA, oldA), renamed(newBucket("z", prov), testURN(bucket, "z"), oldA),
			},
			want: []want{
				{urn: prov.URN}, {urn: newA, provider: providerRef(prov)},
				{urn: testURN(bucket, "z"), provider: providerRef(prov)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := NewFold(&Snapshot{Resources: tt.records}, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Settle(); got != tt.settled {
				t.Errorf("Settle() = %t, want %t", got, tt.settled)
			}
			snap := f.Snapshot()
			var got []want
			for _, r := range snap.Resources {
				got = append(got, want{urn: r.URN, delete: r.Delete, parent: r.Parent, deps: r.Dependencies, provider: r.Provider})
				if tt.settled && len(r.Aliases) > 0 {
					t.Errorf("%s keeps aliases %v", r.URN, r.Aliases)
				}
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			if err := snap.VerifyIntegrity(); err != nil {
				t.Errorf("the settled snapshot: %v", err)
			}
		})
	}
}
