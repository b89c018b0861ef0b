package storeurl_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/postgres"
	"github.com/groundwork-iac/groundwork/state/storeurl"
)

func TestOpen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, url := range []string{filepath.Join(dir, "bare"), "file://" + filepath.Join(dir, "abs")} {
		s, err := storeurl.Open(ctx, url)
		if err != nil {
			t.Fatalf("Open(%q): %v", url, err)
		}
		if _, ok := s.(state.LockBreaker); !ok {
			t.Errorf("Open(%q) does not break locks", url)
		}
		if err := s.Save(ctx, state.StackID{Project: "test", Stack: "dev"}, &state.Snapshot{}); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	for _, sub := range []string{"bare", "abs"} {
		if _, err := os.Stat(filepath.Join(dir, sub, "test", "dev", "snapshot.json")); err != nil {
			t.Errorf("the file store of %q wrote no snapshot: %v", sub, err)
		}
	}
	t.Chdir(dir)
	s, err := storeurl.Open(ctx, "file://rel")
	if err != nil {
		t.Fatal(err)
	}
	if fs, ok := s.(interface{ Root() string }); !ok || fs.Root() != filepath.Join(dir, "rel") {
		t.Errorf("file://rel opened %v; want a file store in %s", s, filepath.Join(dir, "rel"))
	}
	m, err := storeurl.Open(ctx, "memory://")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(ctx, state.StackID{Project: "test", Stack: "dev"}, &state.Snapshot{}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"s3://bucket", "memory://x", "file://", "postgres://u@h/db?lease=never"} {
		if _, err := storeurl.Open(ctx, bad); err == nil {
			t.Errorf("Open(%q) succeeded; want an error", bad)
		} else {
			t.Logf("Open(%q): %v", bad, err)
		}
	}
}

func TestOpenPostgres(t *testing.T) {
	url := os.Getenv("GROUNDWORK_TEST_POSTGRES")
	if url == "" {
		t.Skip(`no PostgreSQL server: set GROUNDWORK_TEST_POSTGRES to a connection URL to run this test; eval "$(bash .ci/postgres.sh start)" starts one`)
	}
	ctx := context.Background()
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	s, err := storeurl.Open(ctx, url+sep+"schema=gwtest_storeurl")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pg, ok := s.(*postgres.Store)
	if !ok || pg.Schema() != "gwtest_storeurl" {
		t.Fatalf("Open of a postgres URL = %T; want a *postgres.Store in schema gwtest_storeurl", s)
	}
	defer func() {
		admin, err := pgxpool.New(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close()
		if _, err := admin.Exec(ctx, `DROP SCHEMA gwtest_storeurl CASCADE`); err != nil {
			t.Error(err)
		}
	}()
	if _, err := s.List(ctx); err != nil {
		t.Fatal(err)
	}
}
