package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/internal/format"
)

// migrations bring the store's tables from one version to the next: the
// first creates them from nothing, each later one builds on what the one
// before left. A migration never removes recorded data, and a database
// migrated past what a library version knows is refused by it
// (*SchemaVersionError) rather than misread. Each runs in one
// transaction, so a database is at one version or the next, never in
// between.
var migrations = []migration{
	// Version 1: snapshots, journals and locks, keyed by stack name.
	sqlMigration(`
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
`),
	// Version 2: every table keyed by (project, stack) — see keyByProject.
	keyByProject,
	// Version 3: each stack's history of operations
	// (state.HistoryBackend), one row a record.
	sqlMigration(`
CREATE TABLE {s}.history (
	project    text NOT NULL,
	stack      text NOT NULL,
	id         bigint GENERATED ALWAYS AS IDENTITY,
	data       bytea NOT NULL,
	written_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (project, stack, id)
);
`),
}

// migration brings the tables of schema from one version to the next,
// inside tx.
type migration func(ctx context.Context, tx pgx.Tx, schema string) error

// sqlMigration is a migration of SQL statements alone.
func sqlMigration(sql string) migration {
	return func(ctx context.Context, tx pgx.Tx, schema string) error {
		_, err := tx.Exec(ctx, expand(sql, schema))
		return err
	}
}

// keyByProject is migration 2: it adds a project column to every table and
// makes (project, stack) the key, so that two projects' stacks of the
// same name are two stacks. Each stack recorded under version 1 is
// attributed to the project its snapshot (or, for one without resources,
// its journal) records (format.RecordedProject); one whose records name
// no project — it holds no resource — to state.UnattributedProject. A
// lock row goes with its stack.
func keyByProject(ctx context.Context, tx pgx.Tx, schema string) error {
	if _, err := tx.Exec(ctx, expand(`
ALTER TABLE {s}.snapshots ADD COLUMN project text NOT NULL DEFAULT '';
ALTER TABLE {s}.journal ADD COLUMN project text NOT NULL DEFAULT '';
ALTER TABLE {s}.locks ADD COLUMN project text NOT NULL DEFAULT '';
`, schema)); err != nil {
		return err
	}
	rows, err := tx.Query(ctx, expand(`
SELECT stack, (SELECT data FROM {s}.snapshots x WHERE x.stack = s.stack),
	(SELECT string_agg(data, ''::bytea ORDER BY id) FROM {s}.journal j WHERE j.stack = s.stack)
FROM (SELECT stack FROM {s}.snapshots UNION SELECT stack FROM {s}.journal UNION SELECT stack FROM {s}.locks) s`, schema))
	if err != nil {
		return err
	}
	owners := map[string]string{}
	for rows.Next() {
		var stack string
		var snap, journal []byte
		if err := rows.Scan(&stack, &snap, &journal); err != nil {
			rows.Close()
			return err
		}
		project, ok := format.RecordedProject(snap, journal)
		if !ok || state.CheckProjectName(project) != nil {
			project = state.UnattributedProject
		}
		owners[stack] = project
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for stack, project := range owners {
		for _, table := range []string{"snapshots", "journal", "locks"} {
			if _, err := tx.Exec(ctx, expand(`UPDATE {s}.`+table+` SET project = $1 WHERE stack = $2`, schema), project, stack); err != nil {
				return fmt.Errorf("attributing stack %q to project %q: %w", stack, project, err)
			}
		}
	}
	_, err = tx.Exec(ctx, expand(`
ALTER TABLE {s}.snapshots ALTER COLUMN project DROP DEFAULT, DROP CONSTRAINT snapshots_pkey, ADD PRIMARY KEY (project, stack);
ALTER TABLE {s}.journal ALTER COLUMN project DROP DEFAULT, DROP CONSTRAINT journal_pkey, ADD PRIMARY KEY (project, stack, id);
ALTER TABLE {s}.locks ALTER COLUMN project DROP DEFAULT, DROP CONSTRAINT locks_pkey, ADD PRIMARY KEY (project, stack);
`, schema))
	return err
}

// SchemaVersion is the version of the tables this library creates and
// reads: the number of migrations it knows.
const SchemaVersion = 3

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
		if err := migrations[v](ctx, tx, schema); err != nil {
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
