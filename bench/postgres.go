package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/postgres"
)

// -store postgres keeps each measurement's stack in a PostgreSQL schema of
// its own, named after the measurement's temporary folder, on the server
// that GROUNDWORK_BENCH_POSTGRES (or else GROUNDWORK_TEST_POSTGRES) names.
// bytes_persisted then counts what the process sent the server, and
// snapshot_bytes the size of the stored snapshot.

func postgresServer() (string, error) {
	for _, name := range []string{"GROUNDWORK_BENCH_POSTGRES", "GROUNDWORK_TEST_POSTGRES"} {
		if u := os.Getenv(name); u != "" {
			return u, nil
		}
	}
	return "", fmt.Errorf(`-store postgres needs a server: set GROUNDWORK_BENCH_POSTGRES to a postgres:// URL (eval "$(bash .ci/postgres.sh start)" starts one and sets GROUNDWORK_TEST_POSTGRES)`)
}

// pgSchema is the schema of the measurement whose folder is s.Dir.
func pgSchema(s spec) string {
	return "bench_" + strings.NewReplacer("-", "_", ".", "_").Replace(strings.ToLower(filepath.Base(s.Dir)))
}

func openPostgres(s spec) (state.Store, error) {
	server, err := postgresServer()
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(server)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	q.Set("schema", pgSchema(s))
	u.RawQuery = q.Encode()
	return postgres.Open(context.Background(), u.String())
}

// pgQuery runs one query against the measurement's server.
func pgQuery(fn func(ctx context.Context, pool *pgxpool.Pool) error) error {
	server, err := postgresServer()
	if err != nil {
		return err
	}
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, server)
	if err != nil {
		return err
	}
	defer pool.Close()
	return fn(ctx, pool)
}

func pgSnapshotSize(s spec) int64 {
	var n int64
	_ = pgQuery(func(ctx context.Context, pool *pgxpool.Pool) error {
		table := pgx.Identifier{pgSchema(s), "snapshots"}.Sanitize()
		return pool.QueryRow(ctx, `SELECT coalesce(sum(octet_length(data)), 0) FROM `+table+` WHERE project = $1 AND stack = $2`, project, stack).Scan(&n)
	})
	return n
}

// dropStore removes what a measurement kept outside its folder.
func dropStore(s spec) {
	if s.Store != "postgres" {
		return
	}
	_ = pgQuery(func(ctx context.Context, pool *pgxpool.Pool) error {
		_, err := pool.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{pgSchema(s)}.Sanitize()+` CASCADE`)
		return err
	})
}
