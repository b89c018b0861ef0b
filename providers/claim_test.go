package providers_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/providers"
)

// pluginResolver is a Resolver that finds a plugin of every package at
// the versions listed (the version asked for, when it is one of them), and
// nothing else.
func pluginResolver(versions ...string) providers.Resolver {
	return func(_ context.Context, pkg, version string) (providers.Factory, string, error) {
		for _, v := range versions {
			if version == "" || version == v {
				return newFuncFactory(), v, nil
			}
		}
		return nil, "", errors.New("no plugin binary found")
	}
}

// A factory registered with ClaimMajor serves every version of its major
// version, newer ones included; other majors go to plugins, and when there
// is none the error says which plugin to install. PreferPlugins passes the
// registered factories over.
func TestClaimMajorAndPreferPlugins(t *testing.T) {
	tests := []struct {
		name     string
		opts     []providers.Option
		version  string
		want     string // the version chosen, or
		wantErrs []string
	}{
		{name: "older release of the claimed major", version: "4.18.4", want: "4.21.1"},
		{name: "newer release of the claimed major", version: "4.99.0", want: "4.21.1"},
		{name: "any version", version: "", want: "4.21.1"},
		{name: "own version", version: "1.0.0", want: "1.0.0"},
		{name: "newer own version is not claimed", version: "1.1.0",
			wantErrs: []string{`"pulumi plugin install resource random v1.1.0" installs its plugin`}},
		{name: "another major", version: "5.0.0",
			wantErrs: []string{"available versions: 1.0.0, 4.21.1", `"pulumi plugin install resource random v5.0.0" installs its plugin`}},
		{name: "an older major", version: "3.1.0",
			wantErrs: []string{`"pulumi plugin install resource random v3.1.0"`}},
		{name: "another major, with its plugin", opts: []providers.Option{providers.WithResolver(pluginResolver("5.0.0"))}, version: "5.0.0", want: "5.0.0"},
		{name: "plugin preferred and found", version: "4.18.4", want: "4.18.4",
			opts: []providers.Option{providers.WithResolver(pluginResolver("4.18.4")), providers.PreferPlugins("random")}},
		{name: "plugin preferred and missing", version: "4.18.4",
			opts:     []providers.Option{providers.WithResolver(pluginResolver()), providers.PreferPlugins("random")},
			wantErrs: []string{"plugins are preferred for it, so its registered versions are not used: 1.0.0, 4.21.1", "no plugin binary found", `"pulumi plugin install resource random v4.18.4"`}},
		{name: "plugin preferred for another package", version: "4.18.4", want: "4.21.1",
			opts: []providers.Option{providers.WithResolver(pluginResolver("4.18.4")), providers.PreferPlugins("command")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := providers.NewRegistry(tt.opts...)
			defer r.Close(context.Background())
			if err := r.RegisterFactory("random", "1.0.0", newFuncFactory()); err != nil {
				t.Fatal(err)
			}
			if err := r.RegisterFactory("random", "4.21.1", newFuncFactory(), providers.ClaimMajor()); err != nil {
				t.Fatal(err)
			}
			p, info, err := r.Instantiate(t.Context(), "random", tt.version)
			if len(tt.wantErrs) > 0 {
				var nf *providers.NoFactoryError
				if !errors.As(err, &nf) {
					t.Fatalf("Instantiate(%q) = %v, %v; want a *NoFactoryError", tt.version, info, err)
				}
				for _, want := range tt.wantErrs {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q\ndoes not say %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Instantiate(%q): %v", tt.version, err)
			}
			defer providers.Close(context.Background(), p)
			if info.Version != tt.want {
				t.Errorf("Instantiate(%q) chose %s, want version %s", tt.version, info, tt.want)
			}
		})
	}
}

// ChooseVersion sends a token the claiming built-in does not serve to a
// plugin of the version asked for.
func TestClaimMajorChooseVersion(t *testing.T) {
	r := providers.NewRegistry(providers.WithResolver(pluginResolver("4.22.0")))
	defer r.Close(context.Background())
	if err := r.RegisterFactory("random", "4.21.1", newFuncFactory(), providers.ClaimMajor(), providers.Tokens("random:index/randomPet:RandomPet")); err != nil {
		t.Fatal(err)
	}
	for token, want := range map[string]string{
		"random:index/randomPet:RandomPet":     "4.22.0",
		"random:index/randomUuid7:RandomUuid7": "4.22.0",
	} {
		got, err := r.ChooseVersion(t.Context(), "random", "4.22.0", token)
		if err != nil || got != want {
			t.Errorf("ChooseVersion(4.22.0, %s) = %q, %v; want %q", token, got, err, want)
		}
	}
}
