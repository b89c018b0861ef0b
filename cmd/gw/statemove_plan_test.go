package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// TestPlanMove checks what a move records on each stack: children move
// with their parent, parents only with --include-parents, providers are
// copied or matched to the destination's, dependencies crossing the move
// are dropped and listed in both directions, and clashes are refused.
func TestPlanMove(t *testing.T) {
	dev := state.StackID{Project: "p", Stack: "dev"}
	prod := state.StackID{Project: "p", Stack: "prod"}
	urn := func(stack, typ, name string) resource.URN { return resource.NewURN(stack, "p", "", typ, name) }
	root := func(stack string) *resource.State {
		return &resource.State{Type: resource.RootStackType, URN: urn(stack, resource.RootStackType, "p-"+stack)}
	}
	prov := func(stack, id, region string) *resource.State {
		return &resource.State{Type: "pulumi:providers:aws", URN: urn(stack, "pulumi:providers:aws", "default"), Custom: true, ID: resource.ID(id),
			Inputs: resource.NewPropertyMapFromStrings(map[string]string{"region": region})}
	}
	res := func(name string, parent resource.URN, deps ...resource.URN) *resource.State {
		return &resource.State{Type: "aws:s3:Bucket", URN: urn("dev", "aws:s3:Bucket", name), Custom: true, ID: resource.ID(name + "-id"),
			Parent: parent, Provider: string(urn("dev", "pulumi:providers:aws", "default")) + "::p1", Dependencies: deps}
	}
	comp := &resource.State{Type: "my:C", URN: urn("dev", "my:C", "comp"), Parent: root("dev").URN}
	a := res("a", comp.URN)
	b := res("b", a.URN)
	c := res("c", root("dev").URN, a.URN)
	d := res("d", root("dev").URN)
	e := res("e", root("dev").URN, d.URN)
	source := &state.Snapshot{Resources: []*resource.State{root("dev"), prov("dev", "p1", "eu"), comp, a, b, c, d, e}}

	names := func(urns []resource.URN) string {
		var s []string
		for _, u := range urns {
			s = append(s, u.Name())
		}
		return strings.Join(s, ",")
	}
	written := func(entries []state.Entry) string {
		var s []string
		for _, e := range entries {
			if e.New != nil {
				s = append(s, string(e.New.URN))
			}
		}
		return strings.Join(s, " ")
	}
	for _, tc := range []struct {
		name        string
		dest        *state.Snapshot
		args        []string
		parents     bool
		moved       string
		brokenSrc   int
		brokenDst   int
		destHas     []string // URNs the destination's entries record
		destHasNot  []string
		err         string
		providerRef string
	}{
		{name: "children move too", dest: &state.Snapshot{Resources: []*resource.State{root("prod")}}, args: []string{string(a.URN)},
			moved: "a,b", brokenSrc: 1, destHas: []string{"urn:pulumi:prod::p::pulumi:providers:aws::default", "urn:pulumi:prod::p::aws:s3:Bucket::b"},
			destHasNot: []string{"urn:pulumi:prod::p::pulumi:pulumi:Stack::p-prod"}, providerRef: "urn:pulumi:prod::p::pulumi:providers:aws::default::p1"},
		{name: "include parents", dest: &state.Snapshot{}, args: []string{string(b.URN)}, parents: true,
			moved: "comp,a,b", brokenSrc: 1, destHas: []string{"urn:pulumi:prod::p::pulumi:pulumi:Stack::p-prod", "urn:pulumi:prod::p::my:C::comp"}},
		{name: "moved depends on what stays", dest: &state.Snapshot{}, args: []string{string(e.URN)}, moved: "e", brokenDst: 1},
		{name: "same provider settings, other ID", dest: &state.Snapshot{Resources: []*resource.State{root("prod"), prov("prod", "p9", "eu")}},
			args: []string{string(d.URN)}, moved: "d", brokenSrc: 1, providerRef: "urn:pulumi:prod::p::pulumi:providers:aws::default::p9",
			destHasNot: []string{"urn:pulumi:prod::p::pulumi:providers:aws::default"}},
		{name: "provider with other settings", dest: &state.Snapshot{Resources: []*resource.State{root("prod"), prov("prod", "p9", "us")}},
			args: []string{string(d.URN)}, err: "already exists in the destination stack, with other settings"},
		{name: "resource already there", dest: &state.Snapshot{Resources: []*resource.State{root("prod"), prov("prod", "p1", "eu"),
			{Type: "aws:s3:Bucket", URN: urn("prod", "aws:s3:Bucket", "d"), Custom: true, ID: "x", Parent: root("prod").URN}}},
			args: []string{string(d.URN)}, err: "resource urn:pulumi:prod::p::aws:s3:Bucket::d already exists"},
		{name: "the root stays", dest: &state.Snapshot{}, args: []string{string(root("dev").URN)}, err: "no resources found to move"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := planMove(source, tc.dest, dev, prod, tc.args, tc.parents)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := names(p.moved); got != tc.moved {
				t.Errorf("moved %s, want %s", got, tc.moved)
			}
			if len(p.brokenSource) != tc.brokenSrc || len(p.brokenDest) != tc.brokenDst {
				t.Errorf("broken: source %v, dest %v; want %d and %d", p.brokenSource, p.brokenDest, tc.brokenSrc, tc.brokenDst)
			}
			w := written(p.destEntries)
			for _, u := range tc.destHas {
				if !strings.Contains(w+" ", u+" ") {
					t.Errorf("the destination does not record %s: %s", u, w)
				}
			}
			for _, u := range tc.destHasNot {
				if strings.Contains(w+" ", u+" ") {
					t.Errorf("the destination records %s again: %s", u, w)
				}
			}
			for _, e := range p.destEntries {
				if e.New.Type == "aws:s3:Bucket" && tc.providerRef != "" && e.New.Provider != tc.providerRef {
					t.Errorf("%s's provider is %s, want %s", e.New.URN, e.New.Provider, tc.providerRef)
				}
				if strings.Contains(string(e.New.URN), ":dev:") || strings.Contains(string(e.New.Parent), ":dev:") ||
					slices.ContainsFunc(e.New.Dependencies, func(u resource.URN) bool { return u.Stack() == "dev" }) {
					t.Errorf("%s still names stack dev: %+v", e.New.URN, e.New)
				}
			}
			// The source's removal is one entry, after the rewrites of
			// what stays.
			last := p.sourceEntries[len(p.sourceEntries)-1]
			if last.New != nil {
				t.Errorf("the source's last entry records %s", last.New.URN)
			}
		})
	}
}
