package providers_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/providers"
)

// A built-in provider serves the tokens it declares; another token of its
// package gets a plugin, pinned to the plugin's version, and the built-in
// still wins where it qualifies.
func TestChooseVersion(t *testing.T) {
	const (
		builtinType = "random:index:String"
		pluginType  = "random:index/randomPet:RandomPet"
	)
	newRegistry := func(resolved string, resolveErr error) (*providers.Registry, *[]string) {
		var asked []string
		resolver := func(_ context.Context, pkg, version string) (providers.Factory, string, error) {
			asked = append(asked, pkg+"@"+version)
			if resolveErr != nil {
				return nil, "", resolveErr
			}
			return func(context.Context) (providers.Provider, error) { return &providers.Func{}, nil }, resolved, nil
		}
		r := providers.NewRegistry(providers.WithResolver(resolver))
		err := r.RegisterFactory("random", "1.0.0", func(context.Context) (providers.Provider, error) {
			return &providers.Func{}, nil
		}, providers.Tokens(builtinType))
		if err != nil {
			t.Fatal(err)
		}
		return r, &asked
	}
	ctx := t.Context()

	t.Run("the built-in serves its own types", func(t *testing.T) {
		r, asked := newRegistry("4.18.0", nil)
		for _, version := range []string{"", "1.0.0"} {
			if got, err := r.ChooseVersion(ctx, "random", version, builtinType); err != nil || got != version {
				t.Errorf("ChooseVersion(%q, %s) = %q, %v; want the version unchanged", version, builtinType, got, err)
			}
		}
		if len(*asked) != 0 {
			t.Errorf("the resolver was asked for %v", *asked)
		}
	})
	t.Run("a type the built-in lacks gets the plugin", func(t *testing.T) {
		r, asked := newRegistry("4.18.0", nil)
		got, err := r.ChooseVersion(ctx, "random", "", pluginType)
		if err != nil || got != "4.18.0" {
			t.Fatalf("ChooseVersion = %q, %v; want the plugin's 4.18.0", got, err)
		}
		if info, err := r.Lookup("random", got); err != nil || info.Version != "4.18.0" {
			t.Errorf("Lookup(%q) = %v, %v; want the plugin", got, info, err)
		}
		// The plugin, once found, does not take the built-in's place.
		if info, err := r.Lookup("random", ""); err != nil || info.Version != "1.0.0" {
			t.Errorf("Lookup(\"\") = %v, %v; want the built-in", info, err)
		}
		if got, err := r.ChooseVersion(ctx, "random", "", builtinType); err != nil || got != "" {
			t.Errorf("ChooseVersion for the built-in's type after the plugin = %q, %v", got, err)
		}
		// Found once.
		if got, err := r.ChooseVersion(ctx, "random", "", pluginType); err != nil || got != "4.18.0" || len(*asked) != 1 {
			t.Errorf("again: %q, %v; the resolver was asked %v, want once", got, err, *asked)
		}
	})
	t.Run("a plugin at the built-in's version cannot stand in for it", func(t *testing.T) {
		r, _ := newRegistry("1.0.0", nil)
		_, err := r.ChooseVersion(ctx, "random", "", pluginType)
		if err == nil || !strings.Contains(err.Error(), pluginType) || !strings.Contains(err.Error(), "1.0.0") {
			t.Errorf("ChooseVersion = %v, want an error naming the type and the version", err)
		}
	})
	t.Run("no plugin", func(t *testing.T) {
		notFound := errors.New("no plugin binary pulumi-resource-random")
		r, _ := newRegistry("", notFound)
		_, err := r.ChooseVersion(ctx, "random", "", pluginType)
		if !errors.Is(err, notFound) || !strings.Contains(err.Error(), pluginType) {
			t.Errorf("ChooseVersion = %v, want the resolver's error and the type", err)
		}
	})
	t.Run("a package without a built-in is left to resolution", func(t *testing.T) {
		r, asked := newRegistry("2.0.0", nil)
		if got, err := r.ChooseVersion(ctx, "aws", "6.0.0", "aws:s3:Bucket"); err != nil || got != "6.0.0" || len(*asked) != 0 {
			t.Errorf("ChooseVersion = %q, %v (resolver asked %v); want 6.0.0 unchanged, nothing asked", got, err, *asked)
		}
	})
}
