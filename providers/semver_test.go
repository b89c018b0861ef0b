package providers_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/providers"
)

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in      string
		want    providers.Version
		wantErr string
	}{
		{in: "1.2.3", want: providers.Version{Major: 1, Minor: 2, Patch: 3}},
		{in: "v0.0.1", want: providers.Version{Patch: 1}},
		{in: "1.0.0-beta.1+build.5", want: providers.Version{Major: 1, Pre: "beta.1", Build: "build.5"}},
		{in: "1.0.0-x-y.0", want: providers.Version{Major: 1, Pre: "x-y.0"}},
		{in: "", wantErr: "empty"},
		{in: "1.2", wantErr: "three"},
		{in: "1.2.3.4", wantErr: "three"},
		{in: "01.2.3", wantErr: "leading zero"},
		{in: "1.a.3", wantErr: "not a number"},
		{in: "1.2.3-", wantErr: "prerelease"},
		{in: "1.2.3-01", wantErr: "leading zero"},
		{in: "1.2.3-a..b", wantErr: "empty identifier"},
		{in: "1.2.3+", wantErr: "build"},
		{in: "1.2.3-beta_1", wantErr: "prerelease"},
		{in: "99999999999999999999.0.0", wantErr: "out of range"},
	}
	for _, tt := range tests {
		got, err := providers.ParseVersion(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseVersion(%q) = %v, %v; want an error containing %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseVersion(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseVersion(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestVersionOrder(t *testing.T) {
	// In ascending precedence, as the semantic versioning spec orders them.
	ordered := []string{
		"0.9.0", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta",
		"1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "2.0.0", "10.0.0",
	}
	vs := make([]providers.Version, len(ordered))
	for i, s := range ordered {
		v, err := providers.ParseVersion(s)
		if err != nil {
			t.Fatal(err)
		}
		vs[i] = v
	}
	for i := range vs {
		for j := range vs {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := vs[i].Compare(vs[j]); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", vs[i], vs[j], got, want)
			}
		}
	}
	shuffled := slices.Clone(vs)
	slices.Reverse(shuffled)
	slices.SortFunc(shuffled, providers.Version.Compare)
	if diff := cmp.Diff(vs, shuffled); diff != "" {
		t.Errorf("sorting (-want +got):\n%s", diff)
	}
	a, _ := providers.ParseVersion("1.0.0+a")
	b, _ := providers.ParseVersion("1.0.0+b")
	if a.Compare(b) != 0 {
		t.Error("build metadata must not affect precedence")
	}
}

func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"1.2.3", "1.0.0-rc.1+b", "v0.0.0", "1..2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := providers.ParseVersion(s)
		if err != nil {
			return
		}
		w, err := providers.ParseVersion(v.String())
		if err != nil || w != v {
			t.Fatalf("round trip of %q: %v, %v", s, w, err)
		}
	})
}
