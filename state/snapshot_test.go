package state

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
)

func TestVerifyIntegrity(t *testing.T) {
	prov := newProvider("default", "p1")
	a := newBucket("a", prov)
	comp := &resource.State{Type: "my:comp:C", URN: testURN("my:comp:C", "c")}
	with := func(r *resource.State, f func(*resource.State)) *resource.State {
		c := r.Clone()
		f(c)
		return c
	}
	deleted := with(a, func(s *resource.State) { s.Delete = true })
	missing := testURN("aws:s3/bucket:Bucket", "missing")
	// Renamed through aliases: records written before still name them by
	// their old URNs.
	renamedProv := with(prov, func(s *resource.State) {
		s.URN, s.Aliases = testURN("pulumi:providers:aws", "renamed"), []resource.URN{prov.URN}
	})
	renamedA := with(a, func(s *resource.State) {
		s.URN, s.Aliases = testURN("aws:s3/bucket:Bucket", "a2"), []resource.URN{a.URN}
	})

	cases := []struct {
		name    string
		res     []*resource.State
		pending []resource.Operation
		rule    Rule // "" for a valid snapshot
		urn     resource.URN
	}{
		{name: "empty"},
		{name: "valid", res: []*resource.State{prov, comp, a, with(newBucket("b", prov, a.URN), func(s *resource.State) {
			s.Parent, s.DeletedWith = comp.URN, a.URN
			s.PropertyDependencies = map[resource.PropertyKey][]resource.URN{"x": {a.URN, comp.URN}}
		})}},
		{name: "valid chain", res: chainStack(5).Resources},
		{name: "delete copy then live", res: []*resource.State{prov, deleted, a}},
		{name: "two delete copies then live", res: []*resource.State{prov, deleted, deleted, a}},
		{name: "nil resource", res: []*resource.State{nil}, rule: RuleInvalidResource},
		{name: "no urn", res: []*resource.State{{Type: "a:b:C"}}, rule: RuleInvalidResource},
		{name: "no type", res: []*resource.State{{URN: comp.URN}}, rule: RuleInvalidResource, urn: comp.URN},
		{name: "duplicate live", res: []*resource.State{prov, a, a}, rule: RuleDuplicateURN, urn: a.URN},
		{name: "live then delete copy", res: []*resource.State{prov, a, deleted}, rule: RuleDuplicateURN, urn: a.URN},
		{name: "parent later", res: []*resource.State{prov, with(a, func(s *resource.State) { s.Parent = comp.URN }), comp}, rule: RuleParentOrder, urn: a.URN},
		{name: "parent self", res: []*resource.State{with(comp, func(s *resource.State) { s.Parent = comp.URN })}, rule: RuleParentOrder, urn: comp.URN},
		{name: "dependency missing", res: []*resource.State{prov, newBucket("b", prov, missing)}, rule: RuleDependencyOrder, urn: testURN("aws:s3/bucket:Bucket", "b")},
		{name: "property dependency later", res: []*resource.State{prov,
			with(a, func(s *resource.State) {
				s.PropertyDependencies = map[resource.PropertyKey][]resource.URN{"x": nil, "y": {comp.URN}}
			}), comp}, rule: RulePropertyDependencyOrder, urn: a.URN},
		{name: "deleted-with later", res: []*resource.State{prov, with(a, func(s *resource.State) { s.DeletedWith = comp.URN }), comp}, rule: RuleDeletedWithOrder, urn: a.URN},
		{name: "custom without provider", res: []*resource.State{with(a, func(s *resource.State) { s.Provider = "" })}, rule: RuleProviderMissing, urn: a.URN},
		{name: "provider without provider reference is fine", res: []*resource.State{prov}},
		{name: "provider malformed", res: []*resource.State{prov, with(a, func(s *resource.State) { s.Provider = "no-separator" })}, rule: RuleProviderMalformed, urn: a.URN},
		{name: "provider later", res: []*resource.State{a, prov}, rule: RuleProviderUnresolved, urn: a.URN},
		{name: "provider wrong id", res: []*resource.State{prov, with(a, func(s *resource.State) { s.Provider = string(prov.URN) + "::other" })}, rule: RuleProviderUnresolved, urn: a.URN},
		{name: "provider not a provider", res: []*resource.State{comp, with(a, func(s *resource.State) { s.Provider = string(comp.URN) + "::x" })}, rule: RuleProviderUnresolved, urn: a.URN},
		{name: "unknown input", res: []*resource.State{prov, with(a, func(s *resource.State) {
			s.Inputs = resource.PropertyMap{"k": resource.NewArray(resource.NewUnknown())}
		})}, rule: RuleUnknownValue, urn: a.URN},
		{name: "unknown output inside secret", res: []*resource.State{prov, with(a, func(s *resource.State) {
			s.Outputs = resource.PropertyMap{"k": resource.NewSecret(resource.NewOutput(resource.Output{}))}
		})}, rule: RuleUnknownValue, urn: a.URN},
		{name: "unknown in pending operation", res: []*resource.State{prov}, pending: []resource.Operation{{Kind: resource.OperationCreating, Resource: with(a, func(s *resource.State) {
			s.Inputs = resource.PropertyMap{"k": resource.NewUnknown()}
		})}}, rule: RuleUnknownValue, urn: a.URN},
		{name: "pending without resource", pending: []resource.Operation{{Kind: resource.OperationCreating}}, rule: RuleInvalidResource},
		{name: "references by old URNs of renamed resources", res: []*resource.State{renamedProv, renamedA, with(newBucket("b", prov, a.URN), func(s *resource.State) {
			s.Parent, s.DeletedWith = a.URN, a.URN
			s.PropertyDependencies = map[resource.PropertyKey][]resource.URN{"x": {a.URN}}
		})}},
		{name: "reference by an old URN before the renamed record", res: []*resource.State{renamedProv, newBucket("b", renamedProv, a.URN), renamedA},
			rule: RuleDependencyOrder, urn: testURN("aws:s3/bucket:Bucket", "b")},
		{name: "delete copy then two live", res: []*resource.State{prov, deleted, a, a}, rule: RuleDuplicateURN, urn: a.URN},
		{name: "provider wrong id after its right one", res: []*resource.State{prov, a, with(newBucket("b", prov), func(s *resource.State) {
			s.Provider = string(prov.URN) + "::other"
		})}, rule: RuleProviderUnresolved, urn: testURN("aws:s3/bucket:Bucket", "b")},
		{name: "references to both copies of a replaced provider, in turn", res: []*resource.State{
			with(newProvider("default", "p0"), func(s *resource.State) { s.Delete = true }), prov,
			newBucket("b0", newProvider("default", "p0")), a, newBucket("b1", newProvider("default", "p0")), newBucket("b2", prov)}},
		{name: "provider reference by an old URN with another ID", res: []*resource.State{renamedProv, with(a, func(s *resource.State) {
			s.Provider = string(prov.URN) + "::other"
		})}, rule: RuleProviderUnresolved, urn: a.URN},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &Snapshot{Resources: tc.res, PendingOperations: tc.pending}
			err := s.VerifyIntegrity()
			if tc.rule == "" {
				if err != nil {
					t.Fatalf("VerifyIntegrity() = %v; want nil", err)
				}
				return
			}
			var ie *IntegrityError
			if !errors.As(err, &ie) {
				t.Fatalf("VerifyIntegrity() = %v; want *IntegrityError with rule %s", err, tc.rule)
			}
			if diff := cmp.Diff(struct {
				Rule Rule
				URN  resource.URN
			}{tc.rule, tc.urn}, struct {
				Rule Rule
				URN  resource.URN
			}{ie.Rule, ie.URN}); diff != "" {
				t.Errorf("wrong violation (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

func TestParseProviderReference(t *testing.T) {
	for ref, want := range map[string][2]string{
		"urn:pulumi:s::p::pulumi:providers:aws::default::abc-123": {"urn:pulumi:s::p::pulumi:providers:aws::default", "abc-123"},
		"a::b::c": {"a::b", "c"},
		"":        {},
		"::id":    {},
		"urn::":   {},
		":":       {},
		"a:::b":   {"a:", "b"},
		"a::::b":  {"a::", "b"},
		"ab:":     {},
	} {
		u, id, ok := ParseProviderReference(ref)
		if ok != (want[0] != "") || string(u) != want[0] || string(id) != want[1] {
			t.Errorf("ParseProviderReference(%q) = %q, %q, %t", ref, u, id, ok)
		}
	}
}
