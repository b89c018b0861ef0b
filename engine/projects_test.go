package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers/providertest"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// Two projects that share a stack name in one store never see each
// other's stack (the PostgreSQL store runs the same check in its package).
func TestTwoProjectsShareAStackName(t *testing.T) {
	t.Run("memory", func(t *testing.T) { enginetest.CheckTwoProjects(t, memstore.New()) })
	t.Run("file", func(t *testing.T) {
		store, err := filestore.New(t.TempDir(), state.WithSecrets(state.PassphraseSecrets("pw")))
		if err != nil {
			t.Fatal(err)
		}
		enginetest.CheckTwoProjects(t, store)
	})
}

// The engine refuses a snapshot whose stack resource is another
// project's, before it calls any provider.
func TestForeignSnapshotIsRefused(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	cloud := providertest.NewMemory()
	alpha := enginetest.New(t)
	alpha.Project, alpha.Store = "alpha", store
	alpha.Provider("mem", "", cloud.Provider())
	if _, err := alpha.Up(func(c *engine.Context) error {
		c.Register("mem:index:Thing", "a", engine.Props{"name": "a"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// alpha's state, copied by hand under beta's name.
	snap := alpha.Snapshot()
	snap.Secrets = nil
	beta := state.StackID{Project: "beta", Stack: "dev"}
	if err := store.Save(ctx, beta, snap); err != nil {
		t.Fatal(err)
	}
	env := enginetest.New(t)
	env.Project, env.Store = "beta", store
	env.Provider("mem", "", cloud.Provider())
	for name, run := range map[string]func() error{
		"up":      func() error { _, err := env.Up(func(*engine.Context) error { return nil }); return err },
		"destroy": func() error { _, err := env.Destroy(); return err },
	} {
		err := run()
		var fe *engine.ForeignStackError
		if !errors.As(err, &fe) || fe.Stack != beta || fe.URN.Project() != "alpha" {
			t.Errorf("%s of a snapshot of another project = %v; want *ForeignStackError", name, err)
		}
	}
	if n := cloud.Count(); n != 1 {
		t.Errorf("the cloud holds %d things; want alpha's 1 untouched", n)
	}
}

// A project or stack name the store cannot keep is refused when the
// engine is built, with the store's typed error.
func TestConfigNamesTheStack(t *testing.T) {
	for _, tt := range []struct {
		project, stack string
		want           func(error) bool
	}{
		{"site", "dev", func(err error) bool { return err == nil }},
		{"a b", "dev", func(err error) bool { var pe *state.ProjectNameError; return errors.As(err, &pe) }},
		{"../site", "dev", func(err error) bool { var pe *state.ProjectNameError; return errors.As(err, &pe) }},
		{"a::b", "dev", func(err error) bool { var pe *state.ProjectNameError; return errors.As(err, &pe) }},
		{"site", "x/dev", func(err error) bool { var se *state.StackNameError; return errors.As(err, &se) }},
	} {
		_, err := engine.New(engine.Config{Project: tt.project, Stack: tt.stack, Store: memstore.New()})
		if !tt.want(err) {
			t.Errorf("engine.New(project %q, stack %q) = %v", tt.project, tt.stack, err)
		}
	}
}
