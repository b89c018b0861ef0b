package interop

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/groundwork-iac/groundwork/resource"
)

// TestSDKConstructDependencies runs Pulumi's TestConstruct program
// (components a, b and c of the comp plugin; b's input is a's echo, c's is
// a's childId) and checks what Pulumi's TestConstructNode checks: a's child
// depends on nothing, b's on a, and c's on a and on a's child, in its
// dependencies and in those of its input; and each component's output
// "secret", which its provider read from the stack's secret configuration,
// is recorded as a secret, and is nowhere in the clear in the state.
//
// c's child depends on a's child only when the program's SDK passes that
// dependency on. The engine answers a's registration with the dependencies
// of its outputs (childId: a's child), and the Node.js SDK adds them to
// the outputs it resolves; the Go SDK (v3.220.0) adds them as plain
// resource states, which its dependency expansion drops (it keeps only
// custom resources, remote components and dependency resources), so that
// c's input depends on a alone. Pulumi's engine records the same: it passes
// the program's dependencies to Construct as they are, and a Go program
// run against it in its lifecycle test harness gives c's child [a]
// (Pulumi's TestConstructGo names its third component "C", so its check of
// "child-c" does not run).
func TestSDKConstructDependencies(t *testing.T) {
	eachLanguage(t, func(t *testing.T, lang language) {
		store, dir := newStore(t)
		s := newSDKStack(t, lang, store, newCloud(), "dev")
		res := s.mustUp(map[string]string{"scenario": "construct"})
		rs := byName(res.Snapshot)
		urn := func(name string) resource.URN {
			r := rs[name]
			if r == nil {
				t.Fatalf("%s was not recorded", name)
			}
			return r.URN
		}
		childC := []resource.URN{urn("a"), urn("child-a")}
		if lang.name != "nodejs" {
			childC = []resource.URN{urn("a")}
		}
		sorted := cmpopts.SortSlices(func(a, b resource.URN) bool { return a < b })
		for _, tt := range []struct {
			child string
			want  []resource.URN
		}{
			{"child-a", nil},
			{"child-b", []resource.URN{urn("a")}},
			{"child-c", childC},
		} {
			r := rs[tt.child]
			if r == nil {
				t.Errorf("%s was not recorded", tt.child)
				continue
			}
			if diff := cmp.Diff(tt.want, r.Dependencies, sorted, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s's dependencies (-want +got):\n%s", tt.child, diff)
			}
			if diff := cmp.Diff(tt.want, r.PropertyDependencies["value"], sorted, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s's input's dependencies (-want +got):\n%s", tt.child, diff)
			}
		}
		for _, name := range []string{"a", "b", "c"} {
			if r := rs[name]; r == nil || !r.Outputs["secret"].IsSecret() {
				t.Errorf("%s's output secret is not recorded as a secret: %+v", name, r)
			}
		}
		noPlaintext(t, dir, compSecret)
		res = s.mustUp(map[string]string{"scenario": "construct"})
		if c := changes(res); len(c) > 0 {
			t.Errorf("a rerun changed %v", c)
		}
	})
}

// TestSDKTransformedComponentProvider: a remote component whose provider
// a transform sets — its own (Pulumi's transforms/simple, res7) or the
// stack's — is constructed, and its record names no provider, as under
// Pulumi's engine.
func TestSDKTransformedComponentProvider(t *testing.T) {
	eachLanguage(t, func(t *testing.T, lang language) {
		store, _ := newStore(t)
		s := newSDKStack(t, lang, store, newCloud(), "dev")
		res := s.mustUp(map[string]string{"scenario": "componentProviders"})
		rs := byName(res.Snapshot)
		for _, name := range []string{"res7", "res10"} {
			r := rs[name]
			if r == nil {
				t.Errorf("%s was not recorded", name)
				continue
			}
			if r.Provider != "" {
				t.Errorf("%s's record names the provider %s; want none", name, r.Provider)
			}
			if rs["child-"+name] == nil {
				t.Errorf("%s's child was not recorded", name)
			}
		}
	})
}
