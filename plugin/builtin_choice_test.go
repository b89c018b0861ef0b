//go:build unix

package plugin_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/plugin"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/random"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// A package with both a built-in provider and a plugin in a plugin folder
// (here random, whose plugin is the test plugin in a versioned folder):
// the built-in serves its own types; a type it lacks, and a version only
// the plugin has (the built-in claims random 4.x), get the plugin. Later runs, which load the provider
// resources from the state, keep each resource with its provider.
func TestBuiltinAndPluginOfOnePackage(t *testing.T) {
	dir := t.TempDir()
	log := counted(t, filepath.Join(dir, "resource-random-v5.0.0", plugin.BinaryName("random")))
	eng, err := engine.New(engine.Config{
		Project: "proj", Stack: "dev", Store: memstore.New(),
		Providers: func() *providers.Registry {
			r := providers.NewRegistry(providers.WithResolver(plugin.Resolver(plugin.Options{Dirs: []string{dir}})))
			if err := random.Register(r); err != nil {
				t.Fatal(err)
			}
			return r
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	prog := func(c *engine.Context) error {
		c.Register(random.StringType, "builtin", engine.Props{"length": 8})
		// A type of a newer plugin, which the built-in lacks.
		c.Register("random:index/randomWord:RandomWord", "pet", engine.Props{"name": "rex"})
		c.Register(random.IntegerType, "pinned", engine.Props{"name": "n"}, engine.Version("5.0.0"))
		return nil
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	res, err := eng.Up(ctx, prog)
	if err != nil {
		t.Fatal(err)
	}
	providerOf := map[string]string{}
	for _, r := range res.Snapshot.Resources {
		if r.Custom && !r.IsProvider() {
			ref, err := providers.ParseReference(r.Provider)
			if err != nil {
				t.Fatal(err)
			}
			providerOf[r.URN.Name()] = ref.URN.Name()
		}
	}
	want := map[string]string{"builtin": "default", "pet": "default_5_0_0", "pinned": "default_5_0_0"}
	if diff := cmp.Diff(want, providerOf); diff != "" {
		t.Errorf("each resource's provider (-want +got):\n%s", diff)
	}
	if starts(t, log) == 0 {
		t.Error("the plugin never started")
	}
	res, err = eng.Up(ctx, prog)
	if err != nil {
		t.Fatalf("rerun: %v", err)
	}
	if res.HasChanges() {
		t.Errorf("the rerun changed something: %v", res.Steps)
	}
	res, err = eng.Destroy(ctx)
	if err != nil {
		t.Fatalf("destroy: %v", err)
	}
	var deleted []string
	for _, st := range res.Steps {
		if st.Op == engine.StepDelete {
			deleted = append(deleted, st.URN.Name())
		}
	}
	slices.Sort(deleted)
	if diff := cmp.Diff([]string{"builtin", "default", "default_5_0_0", "pet", "pinned", "proj-dev"}, deleted); diff != "" {
		t.Errorf("destroyed (-want +got):\n%s", diff)
	}
}
