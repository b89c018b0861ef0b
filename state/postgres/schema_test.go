package postgres

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

func TestSchemaVersionMatchesMigrations(t *testing.T) {
	if latest() != SchemaVersion {
		t.Errorf("SchemaVersion = %d, but there are %d migrations", SchemaVersion, latest())
	}
}

func TestTablesAreCreatedOnFirstUse(t *testing.T) {
	schema := newSchema(t)
	r := newRaw(t, schema)
	if n := r.int(`SELECT count(*) FROM pg_namespace WHERE nspname = $1`, schema); n != 0 {
		t.Fatalf("schema %s exists before the first Open", schema)
	}
	// Clients starting at once create the tables once.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(context.Background(), storeURL(t, map[string]string{"schema": schema}), fastSecrets())
			if err == nil {
				s.Close()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("Open of a fresh schema: %v", err)
		}
	}
	if v := r.int(`SELECT max(version) FROM {s}.schema_version`); v != SchemaVersion {
		t.Errorf("schema version = %d; want %d", v, SchemaVersion)
	}
	if n := r.int(`SELECT count(*) FROM {s}.schema_version`); n != SchemaVersion {
		t.Errorf("%d migrations recorded; want %d, each once", n, SchemaVersion)
	}
}

// A later library version adds a migration: opening the database with it
// migrates forward and keeps every stack.
func TestMigratesForwardKeepingData(t *testing.T) {
	schema := newSchema(t)
	s := openStore(t, schema, 0)
	snap := &state.Snapshot{Resources: []*resource.State{provider()}}
	snap.Resources = append(snap.Resources, thing("kept", snap.Resources[0]))
	if err := s.Save(bg, dev, snap); err != nil {
		t.Fatal(err)
	}
	saved := append([]migration(nil), migrations...)
	t.Cleanup(func() { migrations = saved })
	migrations = append(migrations, sqlMigration(`ALTER TABLE {s}.snapshots ADD COLUMN note text`))

	s2 := openStore(t, schema, 0)
	r := newRaw(t, schema)
	if v := r.int(`SELECT max(version) FROM {s}.schema_version`); v != SchemaVersion+1 {
		t.Errorf("schema version after the new migration = %d; want %d", v, SchemaVersion+1)
	}
	got, err := s2.Load(bg, dev)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"default", "kept"}, []string{got.Resources[0].URN.Name(), got.Resources[1].URN.Name()}); diff != "" {
		t.Errorf("Load after the migration (-want +got):\n%s", diff)
	}

	// The older library refuses the newer tables, and leaves them alone.
	migrations = saved
	_, err = Open(context.Background(), storeURL(t, map[string]string{"schema": schema}), fastSecrets())
	var sv *SchemaVersionError
	if !errors.As(err, &sv) || sv.Found != SchemaVersion+1 || sv.Supported != SchemaVersion {
		t.Fatalf("Open of newer tables = %v; want *SchemaVersionError", err)
	}
	t.Log(err)
	if n := r.int(`SELECT count(*) FROM {s}.snapshots`); n != 1 {
		t.Errorf("%d snapshots after the refused Open; want 1", n)
	}
}

func TestSplitURL(t *testing.T) {
	for _, c := range []struct {
		in, conn string
		cfg      Config
		bad      bool
	}{
		{in: "postgres://u@h:5432/db?sslmode=disable", conn: "postgres://u@h:5432/db?sslmode=disable"},
		{in: "postgresql://u@h/db?schema=gw&lease=10s&timeout=5s&sslmode=require",
			conn: "postgresql://u@h/db?sslmode=require", cfg: Config{Schema: "gw", Lease: 10 * time.Second, Timeout: 5 * time.Second}},
		{in: "host=h dbname=db", conn: "host=h dbname=db"},
		{in: "postgres://u@h/db?lease=soon", bad: true},
		{in: "postgres://u@h/db?timeout=-1s", bad: true},
	} {
		conn, cfg, err := splitURL(c.in)
		if c.bad {
			if err == nil {
				t.Errorf("splitURL(%q) succeeded; want an error", c.in)
			}
			continue
		}
		if err != nil || conn != c.conn || cfg != c.cfg {
			t.Errorf("splitURL(%q) = %q, %+v, %v; want %q, %+v", c.in, conn, cfg, err, c.conn, c.cfg)
		}
	}
}
