package reliability_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// Regression tests for the three failures TESTING.md once listed as known
// issues needing a redesign: renames of referenced resources, deleted-with,
// and edited plain values. Each has been fixed.

// Renaming (through an alias) a resource that other records refer to
// leaves those records naming its old URN until their own steps rewrite
// them. If one of those steps fails, or the referrer is not registered again
// (it is slated for deletion, or protected), the state must still load: the
// renamed record carries its old URN among its aliases, and references
// resolve through them.
func TestRegressionRenameOfReferencedResource(t *testing.T) {
	tests := []struct {
		name  string
		child engine.Props
		opts  []engine.ResourceOption
		fail  map[string]failMode
		keep  bool // the child is registered again
	}{
		{name: "the child is protected and no longer registered", opts: []engine.ResourceOption{engine.Protect()}},
		{name: "the child's update fails", child: engine.Props{"val": 2}, fail: map[string]failMode{"update c": failPlain}, keep: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud()
			env := newEnv(t, c)
			if _, err := env.Up(func(ctx *engine.Context) error {
				g := ctx.Component(group, "old")
				ctx.Register(thing, "c", engine.Props{"val": 1}, append([]engine.ResourceOption{engine.Parent(g)}, tt.opts...)...)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			c.Fail(tt.fail)
			_, err := env.Up(func(ctx *engine.Context) error {
				g := ctx.Component(group, "new", engine.Aliases(resource.Alias{Name: "old"}))
				if tt.keep {
					ctx.Register(thing, "c", tt.child, append([]engine.ResourceOption{engine.Parent(g)}, tt.opts...)...)
				}
				return nil
			})
			t.Logf("up: %v", err)
			env.Snapshot() // fails the test if the state does not load
		})
	}
}

// A resource deleted with another (deletedWith) left the state before the
// resource it goes with was deleted — dependents first — without a
// provider call. When that delete then failed, the first resource still
// existed but was no longer recorded. Its record now leaves in the journal
// entry that records the other's delete (TestDeletedWith covers the
// variants).
func TestRegressionDeletedWithTargetDeleteFails(t *testing.T) {
	c := newCloud()
	env := newEnv(t, c)
	if _, err := env.Up(func(ctx *engine.Context) error {
		db := ctx.Register(thing, "db", engine.Props{})
		ctx.Register(thing, "table", engine.Props{}, engine.DeletedWith(db), engine.DependsOn(db))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	c.Fail(map[string]failMode{"delete db": failPlain})
	if _, err := env.Destroy(); err == nil {
		t.Fatal("the delete of db was meant to fail")
	}
	recorded := map[resource.ID]bool{}
	for _, r := range env.Snapshot().Resources {
		recorded[r.ID] = true
	}
	for id, ph := range c.Live() {
		if !recorded[id] {
			t.Errorf("%s (%s) exists but the state forgot it", id, ph.URN.Name())
		}
	}
}

// An edit of a plain (non-secret) value in the snapshot file used to go
// unnoticed: only ciphertexts were authenticated, and the integrity rules
// check structure, not content. Every snapshot now ends with a MAC keyed
// by the stack's secrets manager (and every journal record carries one),
// which Load checks before it reads any value.
func TestRegressionEditedPlainValueIsRefused(t *testing.T) {
	dir := t.TempDir()
	store := fileStore(t, dir)
	c := newCloud()
	if _, err := secretEngine(t, store, c).Up(bg, func(ctx *engine.Context) error {
		ctx.Register(thing, "a", engine.Props{"password": resource.NewSecret(resource.NewString("hunter2")), "size": 3})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "sec", "dev", "snapshot.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(data, []byte(`"size":3`), []byte(`"size":4`), 1)
	if bytes.Equal(edited, data) {
		t.Fatal("no size in the snapshot")
	}
	if err := os.WriteFile(path, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = store.Load(bg, state.StackID{Project: "sec", Stack: "dev"})
	var ae *state.AuthenticationError
	if !errors.As(err, &ae) || ae.Stack != (state.StackID{Project: "sec", Stack: "dev"}) || ae.File != "snapshot" || ae.Missing {
		t.Fatalf("Load of a snapshot whose plain value was edited = %v; want a *state.AuthenticationError", err)
	}
	changes := c.Changes()
	if _, err := secretEngine(t, fileStore(t, dir), c).Up(bg, func(ctx *engine.Context) error {
		ctx.Register(thing, "a", engine.Props{"size": 5})
		return nil
	}); !errors.As(err, &ae) {
		t.Errorf("Up on the edited snapshot = %v; want a *state.AuthenticationError", err)
	}
	if c.Changes() != changes {
		t.Error("Up changed the world despite the edited snapshot")
	}
}
