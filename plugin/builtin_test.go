package plugin_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/groundwork-iac/groundwork/plugin"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/command"
	"github.com/groundwork-iac/groundwork/providers/local"
	"github.com/groundwork-iac/groundwork/providers/providertest"
	"github.com/groundwork-iac/groundwork/providers/random"
	"github.com/groundwork-iac/groundwork/resource"
)

// The built-in providers' plugin binaries (cmd/pulumi-resource-*) start
// and report their versions: random and command those of the Pulumi
// providers they stand in for, as their schemas do.
func TestBuiltinPlugins(t *testing.T) {
	for pkg, version := range map[string]string{local.Package: local.Version, random.Package: random.PulumiVersion, command.Package: command.Version} {
		t.Run(pkg, func(t *testing.T) {
			p, err := plugin.Launch(t.Context(), pkg, plugin.Options{Dirs: []string{binDir}})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close(t.Context())
			if p.Version() != version {
				t.Errorf("Version() = %q, want %q", p.Version(), version)
			}
			if _, err := providers.Configure(t.Context(), p, providers.ConfigureRequest{AcceptSecrets: true, AcceptResources: true}); err != nil {
				t.Errorf("Configure: %v", err)
			}
			if pkg == local.Package {
				return // it has no schema
			}
			resp, err := providers.GetSchema(t.Context(), p, providers.GetSchemaRequest{})
			if err != nil {
				t.Fatalf("GetSchema: %v", err)
			}
			var schema struct{ Name, Version string }
			if err := json.Unmarshal(resp.Schema, &schema); err != nil {
				t.Fatalf("the schema: %v", err)
			}
			if schema.Name != pkg || schema.Version != version {
				t.Errorf("the schema is of %s %s, want %s %s", schema.Name, schema.Version, pkg, version)
			}
		})
	}
}

// The local provider passes its conformance suite as a plugin, as it does
// in-process.
func TestLocalPluginConformance(t *testing.T) {
	lp, err := plugin.Launch(t.Context(), local.Package, plugin.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lp.Close(t.Context())
	configure(t, lp, nil)
	dir := t.TempDir()
	providertest.Run(t, providertest.Harness{
		New:  func(*testing.T) providers.Provider { return lp },
		Type: local.FileType,
		Inputs: resource.PropertyMap{
			"path":    resource.NewString(filepath.Join(dir, "f.txt")),
			"content": resource.NewString("one"),
		},
		Update: resource.PropertyMap{
			"path":        resource.NewString(filepath.Join(dir, "f.txt")),
			"content":     resource.NewString("two"),
			"permissions": resource.NewString("0600"),
		},
		Replace: resource.PropertyMap{
			"path":    resource.NewString(filepath.Join(dir, "g.txt")),
			"content": resource.NewString("one"),
		},
		Count: func() int {
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			return len(entries)
		},
		RespectsCancellation: true,
		Concurrency:          1,
	})
}
