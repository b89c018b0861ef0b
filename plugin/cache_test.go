package plugin_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/plugin"
	"github.com/groundwork-iac/groundwork/providers"
)

// Pulumi's plugin cache is $PULUMI_HOME/plugins, else ~/.pulumi/plugins.
func TestPulumiPluginCache(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("PULUMI_HOME", "")
	if got, err := plugin.PulumiPluginCache(); err != nil || got != filepath.Join(home, ".pulumi", "plugins") {
		t.Errorf("PulumiPluginCache without PULUMI_HOME = %q, %v; want ~/.pulumi/plugins", got, err)
	}
	t.Setenv("PULUMI_HOME", filepath.Join(home, "elsewhere"))
	if got, err := plugin.PulumiPluginCache(); err != nil || got != filepath.Join(home, "elsewhere", "plugins") {
		t.Errorf("PulumiPluginCache with PULUMI_HOME = %q, %v; want $PULUMI_HOME/plugins", got, err)
	}
}

// A plugin `pulumi plugin install` put in Pulumi's plugin cache
// (resource-<pkg>-v<version>/pulumi-resource-<pkg>) is found after the
// plugin folders and before PATH; one still being installed (its folder
// has a .partial file beside it) is not. The error for a plugin found
// nowhere names `pulumi plugin install` only when the cache was searched,
// and the registry's error says it once.
func TestResolverSearchesPulumiPluginCache(t *testing.T) {
	cache := t.TempDir()
	bin := filepath.Join(binDir, plugin.BinaryName(pluginName))
	installed := filepath.Join(cache, "resource-"+pluginName+"-v2.5.0")
	link(t, bin, filepath.Join(installed, plugin.BinaryName(pluginName)))
	installing := filepath.Join(cache, "resource-"+pluginName+"-v2.6.0")
	link(t, bin, filepath.Join(installing, plugin.BinaryName(pluginName)))
	if err := os.WriteFile(installing+".partial", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	opts := plugin.Options{Dirs: []string{t.TempDir()}, PluginCache: cache}

	for _, version := range []string{"2.0.0", ""} {
		f, v, err := plugin.Resolver(opts)(ctx, pluginName, version)
		if err != nil || v != "2.5.0" {
			t.Fatalf("resolve %q with the plugin in the cache = %q, %v; want 2.5.0 (2.6.0 is still being installed)", version, v, err)
		}
		p, err := f(ctx)
		if err != nil {
			t.Fatalf("starting the plugin from the cache: %v", err)
		}
		if err := providers.Close(ctx, p); err != nil {
			t.Error(err)
		}
	}
	p, err := plugin.Launch(ctx, pluginName, plugin.Options{PluginCache: cache})
	if err != nil {
		t.Fatalf("Launch with the plugin in the cache: %v", err)
	}
	if err := providers.Close(ctx, p); err != nil {
		t.Error(err)
	}

	for _, tc := range []struct {
		name     string
		cache    string
		want     []string
		wantNone string
	}{
		{"cache searched", cache, []string{cache, `"pulumi plugin install resource missing v3.1.0" installs its plugin in Pulumi's plugin cache`}, ""},
		{"cache not searched", "", []string{"put pulumi-resource-missing in a plugin folder or on PATH"}, "pulumi plugin install"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := plugin.Options{Dirs: []string{t.TempDir()}, PluginCache: tc.cache}
			_, _, err := plugin.Resolver(opts)(ctx, "missing", "3.1.0")
			var nf *plugin.NotFoundError
			if !errors.As(err, &nf) {
				t.Fatalf("resolve of a missing plugin = %v, want a *NotFoundError", err)
			}
			reg := providers.NewRegistry(providers.WithResolver(plugin.Resolver(opts)))
			defer reg.Close(ctx)
			_, _, err = reg.Instantiate(ctx, "missing", "3.1.0")
			if err == nil {
				t.Fatal("Instantiate of a missing plugin succeeded")
			}
			msg := err.Error()
			for _, want := range tc.want {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q\ndoes not say %q", msg, want)
				}
			}
			if tc.wantNone != "" && strings.Contains(msg, tc.wantNone) {
				t.Errorf("error %q\nsays %q, though that would not install it where it is looked for", msg, tc.wantNone)
			}
			if n := strings.Count(msg, "install") - strings.Count(msg, "plugin install"); n > 1 {
				t.Errorf("error %q\nsays how to install the plugin %d times", msg, n)
			}
		})
	}
}

// link makes path a symbolic link to target, creating its folder.
func link(t *testing.T, target, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}
