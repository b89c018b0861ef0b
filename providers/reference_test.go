package providers_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

const awsProviderURN = "urn:pulumi:dev::proj::pulumi:providers:aws::default_4_16_0"

func TestParseReference(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    providers.Reference
		wantErr string // a substring of the error; "" for success
	}{
		{
			name: "plain",
			in:   awsProviderURN + "::308b79ee-8249-40fb-a203-de190cb8faa8",
			want: providers.Reference{URN: awsProviderURN, ID: "308b79ee-8249-40fb-a203-de190cb8faa8"},
		},
		{
			name: "split at the last separator",
			in:   "urn:pulumi:dev::proj::my:mod$pulumi:providers:aws::p::id",
			want: providers.Reference{URN: "urn:pulumi:dev::proj::my:mod$pulumi:providers:aws::p", ID: "id"},
		},
		{
			name: "unknown ID",
			in:   awsProviderURN + "::" + string(providers.UnknownID),
			want: providers.Reference{URN: awsProviderURN, ID: providers.UnknownID},
		},
		{name: "empty", in: "", wantErr: `no "::"`},
		{name: "no separator", in: "just-an-id", wantErr: `no "::"`},
		{name: "empty ID", in: awsProviderURN + "::", wantErr: "the ID is empty"},
		{name: "bad URN", in: "urn:pulumi:dev::proj::id", wantErr: "the URN is malformed"},
		{name: "not a URN", in: "foo::bar", wantErr: "the URN is malformed"},
		{name: "not a provider type", in: "urn:pulumi:dev::proj::aws:s3/bucket:Bucket::b::id", wantErr: "not a provider resource type"},
		{name: "bare provider prefix", in: "urn:pulumi:dev::proj::pulumi:providers:::p::id", wantErr: "the URN is malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := providers.ParseReference(tt.in)
			if tt.wantErr != "" {
				var re *providers.ReferenceError
				if !errors.As(err, &re) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseReference(%q) = %v, %v; want a *ReferenceError containing %q", tt.in, got, err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.in) {
					t.Errorf("error %q does not quote the input", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseReference(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseReference(%q) (-want +got):\n%s", tt.in, diff)
			}
			if got.String() != tt.in {
				t.Errorf("String() = %q, want %q", got.String(), tt.in)
			}
			if got.IsUnknown() != (got.ID == providers.UnknownID) {
				t.Errorf("IsUnknown() = %v for ID %q", got.IsUnknown(), got.ID)
			}
		})
	}
}

func TestReferenceParts(t *testing.T) {
	ref := providers.NewReference(awsProviderURN, "x")
	if got := ref.Package(); got != "aws" {
		t.Errorf("Package() = %q, want aws", got)
	}
	if ref.IsZero() || !(providers.Reference{}).IsZero() {
		t.Error("IsZero is wrong")
	}
	if got := providers.ProviderType("aws"); got != "pulumi:providers:aws" {
		t.Errorf("ProviderType = %q", got)
	}
	for typ, want := range map[string]string{"pulumi:providers:aws": "aws", "aws:s3/bucket:Bucket": "", "pulumi:providers:": ""} {
		got, ok := providers.PackageOfProviderType(typ)
		if got != want || ok != (want != "") {
			t.Errorf("PackageOfProviderType(%q) = %q, %v; want %q", typ, got, ok, want)
		}
	}
}

func TestDefaultProviders(t *testing.T) {
	for version, want := range map[string]string{
		"":             "default",
		"1.2.3":        "default_1_2_3",
		"2.0.0-beta.1": "default_2_0_0_beta_1",
	} {
		if got := providers.DefaultProviderName(version); got != want {
			t.Errorf("DefaultProviderName(%q) = %q, want %q", version, got, want)
		}
	}
	for urn, want := range map[resource.URN]bool{
		"urn:pulumi:dev::proj::pulumi:providers:aws::default":         true,
		"urn:pulumi:dev::proj::pulumi:providers:aws::default_1_2_3":   true,
		"urn:pulumi:dev::proj::pulumi:providers:aws::defaultish":      false,
		"urn:pulumi:dev::proj::pulumi:providers:aws::us-west-2":       false,
		"urn:pulumi:dev::proj::aws:s3/bucket:Bucket::default":         false,
		"urn:pulumi:dev::proj::my:comp$pulumi:providers:aws::default": true,
	} {
		if got := providers.IsDefaultProvider(urn); got != want {
			t.Errorf("IsDefaultProvider(%q) = %v, want %v", urn, got, want)
		}
	}
}

func FuzzParseReference(f *testing.F) {
	f.Add(awsProviderURN + "::id")
	f.Add("::")
	f.Add("urn:pulumi:a::b::pulumi:providers:x::n::" + string(providers.UnknownID))
	f.Fuzz(func(t *testing.T, s string) {
		ref, err := providers.ParseReference(s)
		if err != nil {
			return
		}
		if ref.String() != s {
			t.Fatalf("round trip: %q became %q", s, ref.String())
		}
		if ref.ID == "" || ref.Package() == "" {
			t.Fatalf("accepted %q with an empty ID or package", s)
		}
	})
}
