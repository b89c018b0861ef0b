package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// TestStateInPostgres deploys and destroys the site with --state naming a
// PostgreSQL database.
func TestStateInPostgres(t *testing.T) {
	server := os.Getenv("GROUNDWORK_TEST_POSTGRES")
	if server == "" {
		t.Skip(`no PostgreSQL server: set GROUNDWORK_TEST_POSTGRES to a connection URL to run this test; eval "$(bash .ci/postgres.sh start)" starts one`)
	}
	var r [6]byte
	_, _ = rand.Read(r[:])
	schema := "gwtest_gw_" + hex.EncodeToString(r[:])
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("schema", schema)
	u.RawQuery = q.Encode()
	t.Cleanup(func() {
		pool, err := pgxpool.New(context.Background(), server)
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		if _, err := pool.Exec(context.Background(), `DROP SCHEMA IF EXISTS `+schema+` CASCADE`); err != nil {
			t.Error(err)
		}
	})

	bin, work := inSiteWorkspace(t)
	common := []string{"--state", u.String(), "--config", "dir=" + work, "--secret-config", "token=t0k3n"}
	code, out, errOut := gw(t, append(append([]string{"up", "--yes"}, common...), "--", bin)...)
	if code != 0 {
		t.Fatalf("up: status %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "token: [secret]") {
		t.Errorf("up's output lacks the secret output:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(work, "index.html")); err != nil {
		t.Errorf("up wrote no page: %v", err)
	}
	// The config was saved in Pulumi.dev.yaml by up: destroy needs only the state.
	code, out, errOut = gw(t, "destroy", "--yes", "--state", u.String())
	if code != 0 {
		t.Fatalf("destroy: status %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(work, "index.html")); !os.IsNotExist(err) {
		t.Errorf("destroy left the page: %v", err)
	}
}
