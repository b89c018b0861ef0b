package resource_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/groundwork-iac/groundwork/resource"
)

type urnParts struct {
	Stack, Project, QualifiedType, ParentType, Type, Name, Package string
}

func partsOf(u resource.URN) urnParts {
	return urnParts{
		Stack: u.Stack(), Project: u.Project(), QualifiedType: u.QualifiedType(),
		ParentType: u.ParentType(), Type: u.Type(), Name: u.Name(), Package: u.Package(),
	}
}

func TestParseURNValid(t *testing.T) {
	tests := []struct {
		in   string
		want urnParts
	}{
		{
			in:   "urn:pulumi:dev::site::aws:s3/bucket:Bucket::logs",
			want: urnParts{"dev", "site", "aws:s3/bucket:Bucket", "", "aws:s3/bucket:Bucket", "logs", "aws"},
		},
		{
			in:   "urn:pulumi:prod::k8s::kubernetes:apps/v1:Deployment::web",
			want: urnParts{"prod", "k8s", "kubernetes:apps/v1:Deployment", "", "kubernetes:apps/v1:Deployment", "web", "kubernetes"},
		},
		{
			in:   "urn:pulumi:dev::site::pulumi:providers:aws::default_6_0_0",
			want: urnParts{"dev", "site", "pulumi:providers:aws", "", "pulumi:providers:aws", "default_6_0_0", "pulumi"},
		},
		{
			in:   "urn:pulumi:dev::site::pulumi:pulumi:Stack::site-dev",
			want: urnParts{"dev", "site", "pulumi:pulumi:Stack", "", "pulumi:pulumi:Stack", "site-dev", "pulumi"},
		},
		{
			in: "urn:pulumi:dev::site::pulumi:pulumi:Stack$my:comp:Thing$aws:s3/bucket:Bucket::b",
			want: urnParts{"dev", "site", "pulumi:pulumi:Stack$my:comp:Thing$aws:s3/bucket:Bucket",
				"pulumi:pulumi:Stack$my:comp:Thing", "aws:s3/bucket:Bucket", "b", "aws"},
		},
		{
			// Component types may be any text the SDKs accept.
			in:   "urn:pulumi:dev::site::component$my component$aws:s3:Bucket::b",
			want: urnParts{"dev", "site", "component$my component$aws:s3:Bucket", "component$my component", "aws:s3:Bucket", "b", "aws"},
		},
		{
			in:   "urn:pulumi:dev::site::component::c",
			want: urnParts{"dev", "site", "component", "", "component", "c", "component"},
		},
		{
			in:   "urn:pulumi:dev::site::my:index:Comp::name with spaces",
			want: urnParts{"dev", "site", "my:index:Comp", "", "my:index:Comp", "name with spaces", "my"},
		},
		{
			in:   "urn:pulumi:dev::site::local:index:File::./site/index.html",
			want: urnParts{"dev", "site", "local:index:File", "", "local:index:File", "./site/index.html", "local"},
		},
		{
			in:   "urn:pulumi:développement::projet::café:index:Tasse::☕ grand",
			want: urnParts{"développement", "projet", "café:index:Tasse", "", "café:index:Tasse", "☕ grand", "café"},
		},
		{
			in:   "urn:pulumi:dev::site::random:index/randomPet:RandomPet::a:b$c",
			want: urnParts{"dev", "site", "random:index/randomPet:RandomPet", "", "random:index/randomPet:RandomPet", "a:b$c", "random"},
		},
		{
			in:   "urn:pulumi:org/team/dev::site::command:local:Command::run",
			want: urnParts{"org/team/dev", "site", "command:local:Command", "", "command:local:Command", "run", "command"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			u, err := resource.ParseURN(tt.in)
			if err != nil {
				t.Fatalf("ParseURN: %v", err)
			}
			if string(u) != tt.in || !u.IsValid() {
				t.Errorf("ParseURN = %q (valid %v), want the input back", u, u.IsValid())
			}
			if diff := cmp.Diff(tt.want, partsOf(u)); diff != "" {
				t.Errorf("parts (-want +got):\n%s", diff)
			}
			rebuilt := resource.NewURN(u.Stack(), u.Project(), u.ParentType(), u.Type(), u.Name())
			if rebuilt != u {
				t.Errorf("NewURN(parts) = %q, want %q", rebuilt, u)
			}
		})
	}
}

func TestParseURNInvalid(t *testing.T) {
	tests := []struct {
		in, part string
	}{
		{"", "prefix"},
		{"urn:other:dev::p::a:b:C::n", "prefix"},
		{"urn:pulumi:dev::p::a:b:C", "structure"},
		{"urn:pulumi:dev::p::a:b:C::n::extra", "name"},
		{"urn:pulumi:::p::a:b:C::n", "stack"},
		{"urn:pulumi:dev:::::a:b:C::n", "project"},
		{"urn:pulumi:dev::p::a:b:C::", "name"},
		{"urn:pulumi:dev::p::::n", "type"},
		{"urn:pulumi:dev::p::a::b:C::n", "name"},
		{"urn:pulumi:dev::p::a:b:C$::n", "type"},
		{"urn:pulumi:dev::p::$a:b:C::n", "parent type"},
		{"urn:pulumi:dev::p::comp:$a:b:C::n", "parent type"},
		{"urn:pulumi:dev::p:::a:b:C::n", "type"},
		{"urn:pulumi:dev::p::a:b:C:::n", "name"},
		{"urn:pulumi:dev:::p::a:b:C::n", "project"},
		{"urn:pulumi:dev:::::p::a:b:C::n", "name"},
		{"urn:pulumi:dev\xff::p::a:b:C::n", "prefix"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := resource.ParseURN(tt.in)
			var ue *resource.URNError
			if !errors.As(err, &ue) {
				t.Fatalf("ParseURN(%q) error = %v, want a *URNError", tt.in, err)
			}
			if ue.Part != tt.part {
				t.Errorf("Part = %q, want %q (error: %v)", ue.Part, tt.part, err)
			}
			if ue.URN != tt.in {
				t.Errorf("URN = %q, want the input", ue.URN)
			}
			if resource.URN(tt.in).IsValid() {
				t.Errorf("IsValid() = true")
			}
		})
	}
}

func TestNewURN(t *testing.T) {
	tests := []struct {
		name                                 string
		stack, project, parent, typ, resName string
		want                                 resource.URN
	}{
		{"no parent", "dev", "p", "", "aws:s3/bucket:Bucket", "b", "urn:pulumi:dev::p::aws:s3/bucket:Bucket::b"},
		{"root stack parent is elided", "dev", "p", "pulumi:pulumi:Stack", "aws:s3/bucket:Bucket", "b", "urn:pulumi:dev::p::aws:s3/bucket:Bucket::b"},
		{"component parent", "dev", "p", "my:comp:Thing", "aws:s3/bucket:Bucket", "b", "urn:pulumi:dev::p::my:comp:Thing$aws:s3/bucket:Bucket::b"},
		{"nested parent", "dev", "p", "a:b:C$d:e:F", "g:h:I", "x", "urn:pulumi:dev::p::a:b:C$d:e:F$g:h:I::x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := resource.NewURN(tt.stack, tt.project, tt.parent, tt.typ, tt.resName)
			if got != tt.want {
				t.Errorf("NewURN = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestURNRename(t *testing.T) {
	u := resource.URN("urn:pulumi:dev::p::pulumi:pulumi:Stack$my:comp:Thing::n")
	tests := []struct {
		name string
		got  resource.URN
		want resource.URN
	}{
		{"Rename", u.Rename("m"), "urn:pulumi:dev::p::pulumi:pulumi:Stack$my:comp:Thing::m"},
		{"RenameStack", u.RenameStack("prod"), "urn:pulumi:prod::p::pulumi:pulumi:Stack$my:comp:Thing::n"},
		{"RenameProject", u.RenameProject("q"), "urn:pulumi:dev::q::pulumi:pulumi:Stack$my:comp:Thing::n"},
		{"Retype keeps the exact parent", u.Retype("my:comp:Other"), "urn:pulumi:dev::p::pulumi:pulumi:Stack$my:comp:Other::n"},
		{"Reparent", u.Reparent("x:y:Z"), "urn:pulumi:dev::p::x:y:Z$my:comp:Thing::n"},
		{"Reparent to none", u.Reparent(""), "urn:pulumi:dev::p::my:comp:Thing::n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
			if !tt.got.IsValid() {
				t.Errorf("%q is not valid", tt.got)
			}
		})
	}
}

func TestCheckType(t *testing.T) {
	tests := []struct {
		typ string
		ok  bool
	}{
		{"aws:s3/bucket:Bucket", true},
		{"kubernetes:apps/v1:Deployment", true},
		{"pulumi:providers:aws", true},
		{"random:RandomPet", true},
		{"k8s:1v:X", true},
		{"", false},
		{"aws", false},
		{"a:b:c:d", false},
		{":b:C", false},
		{"a::C", false},
		{"a:b:", false},
		{"a:b/:C/", false},
	}
	for _, tt := range tests {
		if err := resource.CheckType(tt.typ); (err == nil) != tt.ok {
			t.Errorf("CheckType(%q) = %v, want ok=%v", tt.typ, err, tt.ok)
		}
	}
	if got := resource.TypePackage("aws:s3/bucket:Bucket"); got != "aws" {
		t.Errorf("TypePackage = %q, want aws", got)
	}
}

func TestMalformedURNAccessorsDoNotPanic(t *testing.T) {
	for _, u := range []resource.URN{"", "urn:pulumi:", "urn:pulumi:a", "urn:pulumi:a::b", "garbage::x::y"} {
		_ = partsOf(u)
		_ = u.Rename("x")
		_ = u.Retype("a:b:C")
		_ = u.Reparent("a:b:C")
	}
}
