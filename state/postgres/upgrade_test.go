package postgres

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// A database whose tables keyed stacks by name alone (schema version 1)
// is migrated in place: every stack is attributed to the project its
// records name, and loads with every resource, its journal replayed. The
// stacks are those of the file store's fixture of that time
// (../filestore/testdata/legacy), with the passphrase "legacy passphrase".
func TestVersionOneTablesAreKeyedByProject(t *testing.T) {
	ctx := context.Background()
	schema := newSchema(t)
	r := newRaw(t, schema)
	r.exec(`CREATE SCHEMA {s}`)
	r.exec(`CREATE TABLE {s}.schema_version (version integer PRIMARY KEY, migrated_at timestamptz NOT NULL DEFAULT now())`)
	tx, err := r.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := migrations[0](ctx, tx, schema); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r.exec(`INSERT INTO {s}.schema_version (version) VALUES (1)`)
	fixture := filepath.Join("..", "filestore", "testdata", "legacy", "passphrase")
	for _, stack := range []string{"dev", "prod", "site", "empty"} {
		snap, err := os.ReadFile(filepath.Join(fixture, stack, "snapshot.json"))
		if err != nil {
			t.Fatal(err)
		}
		r.exec(`INSERT INTO {s}.snapshots (stack, data) VALUES ($1, $2)`, stack, snap)
		if journal, err := os.ReadFile(filepath.Join(fixture, stack, "journal")); err == nil {
			// Two rows, as two appends would leave them.
			r.exec(`INSERT INTO {s}.journal (stack, data) VALUES ($1, $2)`, stack, journal[:len(journal)/2])
			r.exec(`INSERT INTO {s}.journal (stack, data) VALUES ($1, $2)`, stack, journal[len(journal)/2:])
		}
	}
	// A lapsed lease on prod, left by a client of the old version.
	r.exec(`INSERT INTO {s}.locks (stack, token, pid, host, operation, locked_at, expires_at)
VALUES ('prod', 'old', 1, 'elsewhere', 'update', now(), now() - interval '1 minute')`)

	store := openStore(t, schema, 0, state.WithSecrets(state.PassphraseSecrets("legacy passphrase", secrets.WithIterations(1000))))
	site := state.StackID{Project: "site", Stack: "dev"}
	prod := state.StackID{Project: "shop", Stack: "prod"}
	named := state.StackID{Project: "shop", Stack: "site"}
	empty := state.StackID{Project: state.UnattributedProject, Stack: "empty"}
	list, err := store.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]state.StackID{empty, prod, named, site}, list); diff != "" {
		t.Errorf("List after the migration (-want +got):\n%s", diff)
	}
	for id, want := range map[state.StackID][]string{
		site:  {"site-dev", "default", "file0", "file1", "file2", "late"},
		prod:  {"shop-prod", "default", "file0", "file1"},
		named: {"shop-site", "default", "file0"},
		empty: nil,
	} {
		snap, err := store.Load(ctx, id)
		if err != nil {
			t.Fatalf("Load(%s): %v", id, err)
		}
		var got []string
		for _, r := range snap.Resources {
			got = append(got, r.URN.Name())
		}
		if !cmp.Equal(got, want) {
			t.Errorf("%s holds %v; want %v", id, got, want)
		}
		if id == site && (len(snap.PendingOperations) != 1 || snap.PendingOperations[0].Resource.URN.Name() != "pending") {
			t.Errorf("site/dev pending operations = %v; want the create that never ended", snap.PendingOperations)
		}
	}
	// The lock went with its stack: lapsed, it is taken over.
	l, err := store.Lock(ctx, prod, "update")
	if err != nil {
		t.Fatal(err)
	}
	if rl, ok := l.(state.ReplacedLock); !ok || rl.Replaced() == nil || rl.Replaced().Holder.Token != "old" {
		t.Errorf("Lock of shop/prod did not report the lapsed lease it took over")
	}
	l.Unlock(ctx)
	if n := r.int(`SELECT count(*) FROM {s}.schema_version`); n != SchemaVersion {
		t.Errorf("%d versions recorded; want %d", n, SchemaVersion)
	}
}
