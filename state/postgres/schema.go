package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrations bring the store's tables from one version to the next: the
// first creates them from nothing, each later one adds to what the one
// before left. A migration only ever adds — tables, columns, indexes —
// and never drops or rewrites data, so a database is always readable by
// the library version that wrote it and by every later one. {s} stands
// for the quoted schema name.
var migrations = []string{
	// Version 1: snapshots, journals and locks.
	`
CREATE TABLE {s}.snapshots (
	stack      text PRIMARY KEY,
	data       bytea NOT NULL,
	written_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE {s}.journal (
	stack      text NOT NULL,
	id         bigint GENERATED ALWAYS AS IDENTITY,
	data       bytea NOT NULL,
	written_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (stack, id)
);
CREATE TABLE {s}.locks (
	stack      text PRIMARY KEY,
	token      text NOT NULL,
	pid        integer NOT NULL,
	host       text NOT NULL,
	operation  text NOT NULL,
	locked_at  timestamptz NOT NULL,
	expires_at timestamptz NOT NULL
);
`,
}

// SchemaVersion is the version of the tables this library creates and
// reads: the number of migrations it knows.
const SchemaVersion = 1

// latest is the version the migrations lead to (SchemaVersion; tests add
// migrations of their own).
func latest() int { return len(migrations) }

// SchemaVersionError reports a database whose tables a newer library
// version migrated past what this one knows.
type SchemaVersionError struct {
	Schema    string
	Found     int
	Supported int
}

// Error says which versions were found and are supported.
func (e *SchemaVersionError) Error() string {
	return fmt.Sprintf("the PostgreSQL tables in schema %q are at version %d, but this library knows versions up to %d; "+
		"upgrade groundwork to use them (they were not modified)", e.Schema, e.Found, e.Supported)
}

func expand(sql, schema string) string {
	return strings.ReplaceAll(sql, "{s}", pgx.Identifier{schema}.Sanitize())
}

// migrate creates the schema and its tables on first use and brings them
// up to SchemaVersion, one migration per transaction. Concurrent clients
// take turns on an advisory lock, so each migration runs once. A database
// that is already current costs one query and needs no privilege beyond
// reading the version table.
func migrate(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	v, err := schemaVersion(ctx, pool, schema)
	if err != nil {
		return err
	}
	if v == latest() {
		return nil
	}
	if v > latest() {
		return &SchemaVersionError{Schema: schema, Found: v, Supported: latest()}
	}
	for {
		done, err := migrateOne(ctx, pool, schema)
		if err != nil {
			return fmt.Errorf("migrating the PostgreSQL tables in schema %q: %w", schema, err)
		}
		if done {
			return nil
		}
	}
}

// schemaVersion returns the version of the tables, 0 if there are none.
func schemaVersion(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, schema string) (int, error) {
	var exists bool
	table := pgx.Identifier{schema, "schema_version"}.Sanitize()
	if err := q.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, table).Scan(&exists); err != nil {
		return 0, fmt.Errorf("reading the PostgreSQL schema version: %w", err)
	}
	if !exists {
		return 0, nil
	}
	var v int
	if err := q.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM `+table).Scan(&v); err != nil {
		return 0, fmt.Errorf("reading the PostgreSQL schema version: %w", err)
	}
	return v, nil
}

// migrateOne applies the next migration, if any, and reports whether the
// tables are current.
func migrateOne(ctx context.Context, pool *pgxpool.Pool, schema string) (done bool, err error) {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "groundwork state schema "+schema); err != nil {
		return false, err
	}
	if _, err := tx.Exec(ctx, expand(`CREATE SCHEMA IF NOT EXISTS {s}`, schema)); err != nil {
		return false, err
	}
	if _, err := tx.Exec(ctx, expand(`CREATE TABLE IF NOT EXISTS {s}.schema_version (
	version     integer PRIMARY KEY,
	migrated_at timestamptz NOT NULL DEFAULT now()
)`, schema)); err != nil {
		return false, err
	}
	v, err := schemaVersion(ctx, tx, schema)
	if err != nil {
		return false, err
	}
	if v > latest() {
		return false, &SchemaVersionError{Schema: schema, Found: v, Supported: latest()}
	}
	if v < latest() {
		if _, err := tx.Exec(ctx, expand(migrations[v], schema)); err != nil {
			return false, fmt.Errorf("to version %d: %w", v+1, err)
		}
		if _, err := tx.Exec(ctx, expand(`INSERT INTO {s}.schema_version (version) VALUES ($1)`, schema), v+1); err != nil {
			return false, err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return false, err
	}
	return v+1 >= latest(), nil
}

// errNoRows tells a missing row from a failed query.
func errNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }
