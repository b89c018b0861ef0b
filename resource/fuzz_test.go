package resource_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/groundwork-iac/groundwork/resource"
)

// FuzzParseURN checks that ParseURN never panics, that a parsed URN is the
// input unchanged, and that rebuilding it from its parts with NewURN gives
// a valid URN with the same parts. (NewURN drops a parent type that is
// exactly the root stack type, by design; the expected parts account for
// that.)
func FuzzParseURN(f *testing.F) {
	for _, s := range []string{
		"urn:pulumi:dev::site::aws:s3/bucket:Bucket::logs",
		"urn:pulumi:prod::k8s::kubernetes:apps/v1:Deployment::web",
		"urn:pulumi:dev::site::pulumi:providers:aws::default",
		"urn:pulumi:dev::site::pulumi:pulumi:Stack::site-dev",
		"urn:pulumi:dev::site::pulumi:pulumi:Stack$my:comp:Thing$aws:s3/bucket:Bucket::b",
		"urn:pulumi:dev::site::my:index:Comp::name with spaces/and/slashes",
		"urn:pulumi:dév::projet::café:index:Tasse::☕",
		"urn:pulumi:dev::p::a:b:C:::n",
		"urn:pulumi:::p::a:b:C::n",
		"urn:pulumi:dev::p::a:b:C$::n",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := resource.ParseURN(s)
		if err != nil {
			if u != "" {
				t.Fatalf("ParseURN(%q) returned %q with error %v", s, u, err)
			}
			return
		}
		if u.String() != s {
			t.Fatalf("ParseURN(%q).String() = %q", s, u.String())
		}
		want := partsOf(u)
		if want.ParentType == resource.RootStackType {
			want.ParentType, want.QualifiedType = "", want.Type
		}
		rebuilt := resource.NewURN(u.Stack(), u.Project(), u.ParentType(), u.Type(), u.Name())
		again, err := resource.ParseURN(string(rebuilt))
		if err != nil {
			t.Fatalf("NewURN(parts of %q) = %q, which does not parse: %v", s, rebuilt, err)
		}
		if diff := cmp.Diff(want, partsOf(again)); diff != "" {
			t.Fatalf("parts of %q rebuilt as %q differ (-want +got):\n%s", s, rebuilt, diff)
		}
	})
}

// FuzzParsePropertyPath checks that ParsePropertyPath never panics and that
// a parsed path's String parses back to an equal path, which also renders
// the same way.
func FuzzParsePropertyPath(f *testing.F) {
	for _, s := range []string{
		"a", "a.b[0]", `a.b[0]["c.d"].*`, "[*]", `foo["with \"quotes\""]`,
		`["key with.dot"]`, "*", "a[*].b", `a["*"]`, `["\u00e9\n"]`, "a..b",
		"a[", "a[01]", "a[99999999999999999999]", "ключ.значение", `a["\xff"]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := resource.ParsePropertyPath(s)
		if err != nil {
			return
		}
		text := p.String()
		again, err := resource.ParsePropertyPath(text)
		if err != nil {
			t.Fatalf("ParsePropertyPath(%q).String() = %q, which does not parse: %v", s, text, err)
		}
		if diff := cmp.Diff(p, again); diff != "" {
			t.Fatalf("path %q rendered as %q parses differently (-first +second):\n%s", s, text, diff)
		}
		if again.String() != text {
			t.Fatalf("path %q renders as %q, then as %q", s, text, again.String())
		}
		if !p.Contains(p) {
			t.Fatalf("path %q does not contain itself", s)
		}
		// Setting and reading back must agree on wildcard-free paths.
		if !p.HasWildcards() {
			v, ok := p.Set(resource.NewNull(), resource.NewString("x"))
			if ok {
				got, found := p.Get(v)
				if !found || !got.DeepEquals(resource.NewString("x")) {
					t.Fatalf("path %q: Set then Get = %v, %v", s, got, found)
				}
			}
		}
	})
}
