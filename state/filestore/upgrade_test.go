package filestore_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// testdata/legacy holds two file stores as groundwork laid them out before
// it kept stacks by project (<root>/<stack>/...), one without secrets and
// one with the passphrase "legacy passphrase": stack "dev" of project
// "site" (three files, a committed snapshot and a journal left by a crash
// holding one more create and one that began and never ended), "prod" of
// project "shop", "site" of project "shop" (a stack named like another
// project), and "empty", whose resources were all destroyed.

// copyTree copies the fixture into a fresh folder, as the store found it.
func copyTree(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o700)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return to
}

func TestLegacyLayoutIsUpgradedInPlace(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts []state.Option
	}{
		{"plain", nil},
		{"passphrase", []state.Option{state.WithSecrets(state.PassphraseSecrets("legacy passphrase", secrets.WithIterations(1000)))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fixture := filepath.Join("testdata", "legacy", tc.name)
			root := copyTree(t, fixture)
			store, err := filestore.New(root, tc.opts...)
			if err != nil {
				t.Fatalf("opening a store of the old layout: %v", err)
			}
			site := state.StackID{Project: "site", Stack: "dev"}
			prod := state.StackID{Project: "shop", Stack: "prod"}
			named := state.StackID{Project: "shop", Stack: "site"}
			empty := state.StackID{Project: state.UnattributedProject, Stack: "empty"}
			list, err := store.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := []state.StackID{empty, prod, named, site}
			if diff := cmp.Diff(want, list); diff != "" {
				t.Errorf("List after the upgrade (-want +got):\n%s", diff)
			}
			// Every file moved byte for byte: nothing was rewritten.
			for _, m := range []struct {
				old string
				id  state.StackID
			}{{"dev", site}, {"prod", prod}, {"site", named}, {"empty", empty}} {
				for _, name := range []string{"snapshot.json", "journal"} {
					was, werr := os.ReadFile(filepath.Join(fixture, m.old, name))
					now, nerr := os.ReadFile(filepath.Join(root, m.id.Project, m.id.Stack, name))
					if (werr == nil) != (nerr == nil) || string(was) != string(now) {
						t.Errorf("%s/%s moved to %s changed (before: %v, after: %v)", m.old, name, m.id, werr, nerr)
					}
				}
			}
			if _, err := os.Lstat(filepath.Join(root, ".upgrade")); err == nil {
				t.Error("the staging folder is still there after the upgrade")
			}
			// Where an old folder was, an older groundwork finds a file and
			// fails, rather than an empty stack whose resources it would
			// create again.
			for _, old := range []string{"dev", "prod", "empty"} {
				_, err := os.ReadFile(filepath.Join(root, old, "snapshot.json"))
				if err == nil || errors.Is(err, fs.ErrNotExist) {
					t.Errorf("reading %s/snapshot.json as an older groundwork would: %v; want an error other than not-exist", old, err)
				}
			}

			// Every resource is there, the crashed run's journal replayed.
			snap, err := store.Load(ctx, site)
			if err != nil {
				t.Fatalf("Load(site/dev): %v", err)
			}
			if got, want := urnNames(snap), []string{"site-dev", "default", "file0", "file1", "file2", "late"}; !cmp.Equal(got, want) {
				t.Errorf("site/dev holds %v; want %v", got, want)
			}
			if len(snap.PendingOperations) != 1 || snap.PendingOperations[0].Resource.URN.Name() != "pending" {
				t.Errorf("site/dev pending operations = %v; want the create that never ended", snap.PendingOperations)
			}
			if tc.opts != nil {
				in := snap.Resources[slices.IndexFunc(snap.Resources, func(r *resource.State) bool { return r.URN.Name() == "file1" })].Inputs
				if !in["content"].DeepEquals(resource.NewSecret(resource.NewString("secret 1"))) {
					t.Errorf("file1's secret input = %v; want it decrypted as written", in["content"])
				}
			}
			for id, want := range map[state.StackID][]string{
				prod:  {"shop-prod", "default", "file0", "file1"},
				named: {"shop-site", "default", "file0"},
				empty: nil,
			} {
				snap, err := store.Load(ctx, id)
				if err != nil {
					t.Fatalf("Load(%s): %v", id, err)
				}
				if got := urnNames(snap); !cmp.Equal(got, want) {
					t.Errorf("%s holds %v; want %v", id, got, want)
				}
			}

			// The upgraded stack takes a new operation, and a store opened
			// again finds the layout current.
			lock, err := store.Lock(ctx, site, "update")
			if err != nil {
				t.Fatal(err)
			}
			j, err := store.OpenJournal(ctx, site, snap)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := j.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			j.Close(ctx)
			lock.Unlock(ctx)
			again, err := filestore.New(root, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := again.List(ctx); !cmp.Equal(got, want) {
				t.Errorf("List when opened again = %v", got)
			}
			// A project named like an old stack takes its place.
			devProject := state.StackID{Project: "dev", Stack: "prod"}
			if err := again.Save(ctx, devProject, &state.Snapshot{}); err != nil {
				t.Fatalf("saving a stack of project dev where the tombstone of stack dev was: %v", err)
			}
			if got, _ := again.List(ctx); !slices.Contains(got, devProject) {
				t.Errorf("List = %v; want %s", got, devProject)
			}
		})
	}
}

// A stack's lock moves with it: the upgraded stack stays locked by that
// holder until the lock is released or removed.
func TestUpgradeMovesTheLock(t *testing.T) {
	ctx := context.Background()
	root := copyTree(t, filepath.Join("testdata", "legacy", "plain"))
	lock := `{"pid":2147483646,"host":"elsewhere.example","time":"2025-01-02T03:04:05Z","operation":"update","token":"old"}`
	if err := os.WriteFile(filepath.Join(root, "prod", "lock"), []byte(lock), 0o600); err != nil {
		t.Fatal(err)
	}
	store, err := filestore.New(root)
	if err != nil {
		t.Fatal(err)
	}
	prod := state.StackID{Project: "shop", Stack: "prod"}
	var le *state.LockedError
	if _, err := store.Lock(ctx, prod, "update"); !errors.As(err, &le) || le.Holder.Token != "old" {
		t.Fatalf("Lock of an upgraded stack whose old lock moved with it = %v; want *LockedError naming that holder", err)
	}
	if err := store.ForceUnlock(ctx, prod, "old"); err != nil {
		t.Fatal(err)
	}
	l, err := store.Lock(ctx, prod, "update")
	if err != nil {
		t.Fatal(err)
	}
	l.Unlock(ctx)
}

// An upgrade interrupted after it moved a stack aside finishes on the next
// open; a stack whose place is taken is left where it is, and the store
// says so.
func TestInterruptedAndConflictingUpgrade(t *testing.T) {
	ctx := context.Background()
	root := copyTree(t, filepath.Join("testdata", "legacy", "plain"))
	// As if a crash came right after "prod" was moved aside.
	if err := os.Mkdir(filepath.Join(root, ".upgrade"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "prod"), filepath.Join(root, ".upgrade", "prod")); err != nil {
		t.Fatal(err)
	}
	store, err := filestore.New(root)
	if err != nil {
		t.Fatal(err)
	}
	if snap, err := store.Load(ctx, state.StackID{Project: "shop", Stack: "prod"}); err != nil || len(snap.Resources) != 4 {
		t.Fatalf("shop/prod after an interrupted upgrade: %v, %v", snap, err)
	}

	// An old-layout "prod" of project shop appears again next to the
	// upgraded one: neither is touched, and opening fails saying what to do.
	old := filepath.Join(root, "prod")
	if err := os.Mkdir(old, 0o700); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join("testdata", "legacy", "plain", "prod", "snapshot.json"))
	if err := os.WriteFile(filepath.Join(old, "snapshot.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := filestore.New(root); err == nil {
		t.Fatal("opening with two copies of shop/prod succeeded")
	}
	if _, err := os.Stat(filepath.Join(root, ".upgrade", "prod", "snapshot.json")); err != nil {
		t.Errorf("the conflicting copy was not kept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "shop", "prod", "snapshot.json")); err != nil {
		t.Errorf("the upgraded copy was not kept: %v", err)
	}
}

func urnNames(snap *state.Snapshot) []string {
	var out []string
	for _, r := range snap.Resources {
		out = append(out, r.URN.Name())
	}
	return out
}
