package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// The tests run against a real PostgreSQL server named by
// GROUNDWORK_TEST_POSTGRES; each works in a schema of its own, dropped
// when it ends.

const envURL = "GROUNDWORK_TEST_POSTGRES"

func serverURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(envURL)
	if u == "" {
		t.Skip("no PostgreSQL server: set " + envURL + " to a connection URL (postgres://user@host:port/db) to run this test; " +
			`eval "$(bash .ci/postgres.sh start)" starts a throwaway one and sets it`)
	}
	return u
}

// adminPool is a pool for the test's own queries, closed when it ends.
func adminPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), serverURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// newSchema returns the name of a schema that does not exist yet, and drops
// it when the test ends.
func newSchema(t testing.TB) string {
	t.Helper()
	pool := adminPool(t)
	var r [6]byte
	_, _ = rand.Read(r[:])
	name := "gwtest_" + hex.EncodeToString(r[:])
	t.Cleanup(func() {
		if _, err := pool.Exec(context.Background(), expand(`DROP SCHEMA IF EXISTS {s} CASCADE`, name)); err != nil {
			t.Errorf("dropping test schema %s: %v", name, err)
		}
	})
	return name
}

// storeURL is the server's URL with the store's parameters added.
func storeURL(t testing.TB, params map[string]string) string {
	t.Helper()
	u, err := url.Parse(serverURL(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	for k, v := range params {
		q.Set(k, v)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func fastSecrets() state.Option {
	return state.WithSecrets(state.PassphraseSecrets("postgres test passphrase", secrets.WithIterations(1000)))
}

// openStore opens a store in schema with a lease of the given length
// (0: the default), closed when the test ends.
func openStore(t testing.TB, schema string, lease time.Duration, opts ...state.Option) *Store {
	t.Helper()
	params := map[string]string{"schema": schema}
	if lease > 0 {
		params["lease"] = lease.String()
	}
	s, err := Open(context.Background(), storeURL(t, params), append([]state.Option{fastSecrets()}, opts...)...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// raw reads and writes the tables under a store, as the conformance
// suite's harness and the crash tests need.
type raw struct {
	t      testing.TB
	pool   *pgxpool.Pool
	schema string
}

func newRaw(t testing.TB, schema string) raw { return raw{t: t, pool: adminPool(t), schema: schema} }

func (r raw) exec(sql string, args ...any) {
	r.t.Helper()
	if _, err := r.pool.Exec(context.Background(), expand(sql, r.schema), args...); err != nil {
		r.t.Fatalf("%s: %v", sql, err)
	}
}

func (r raw) bytes(sql string, args ...any) []byte {
	r.t.Helper()
	var data []byte
	err := r.pool.QueryRow(context.Background(), expand(sql, r.schema), args...).Scan(&data)
	if errNoRows(err) {
		return nil
	}
	if err != nil {
		r.t.Fatalf("%s: %v", sql, err)
	}
	return data
}

func (r raw) int(sql string, args ...any) int {
	r.t.Helper()
	var n int
	if err := r.pool.QueryRow(context.Background(), expand(sql, r.schema), args...).Scan(&n); err != nil {
		r.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func (r raw) snapshot(stack state.StackID) []byte {
	return r.bytes(`SELECT data FROM {s}.snapshots WHERE project = $1 AND stack = $2`, stack.Project, stack.Stack)
}

func (r raw) setSnapshot(stack state.StackID, data []byte) {
	if data == nil {
		r.exec(`DELETE FROM {s}.snapshots WHERE project = $1 AND stack = $2`, stack.Project, stack.Stack)
		return
	}
	r.exec(`INSERT INTO {s}.snapshots (project, stack, data) VALUES ($1, $2, $3) ON CONFLICT (project, stack) DO UPDATE SET data = excluded.data`,
		stack.Project, stack.Stack, data)
}

func (r raw) journal(stack state.StackID) []byte {
	return r.bytes(`SELECT string_agg(data, ''::bytea ORDER BY id) FROM {s}.journal WHERE project = $1 AND stack = $2`, stack.Project, stack.Stack)
}

// setJournal replaces the journal with data in one row.
func (r raw) setJournal(stack state.StackID, data []byte) {
	r.exec(`DELETE FROM {s}.journal WHERE project = $1 AND stack = $2`, stack.Project, stack.Stack)
	if data != nil {
		r.exec(`INSERT INTO {s}.journal (project, stack, data) VALUES ($1, $2, $3)`, stack.Project, stack.Stack, data)
	}
}

// expire makes the stack's lease lapse, as if its holder had stopped
// renewing it.
func (r raw) expire(stack state.StackID) {
	r.exec(`UPDATE {s}.locks SET expires_at = now() - interval '1 second' WHERE project = $1 AND stack = $2`, stack.Project, stack.Stack)
}

// dev is the stack most tests work on.
var dev = state.StackID{Project: "test", Stack: "dev"}
