package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/backendstore"
)

// Store is a state.Store that keeps its stacks in PostgreSQL. It is safe
// for concurrent use, and any number of Stores — in one process or many,
// on any number of hosts — may share one database and schema: the locks
// keep their operations apart.
type Store struct {
	state.Store
	b       *backend
	ownPool bool
}

var (
	_ state.Store           = (*Store)(nil)
	_ state.LockBreaker     = (*Store)(nil)
	_ state.ForceUnlocker   = (*Store)(nil)
	_ state.HistoryRecorder = (*Store)(nil)
	_ state.HistoryReader   = (*Store)(nil)
)

// Config holds the settings of a Store beyond those of package state.
type Config struct {
	// Schema is the PostgreSQL schema that holds the store's tables; it
	// is created on first use. Default "groundwork".
	Schema string
	// Lease is how long a lock lasts unless its holder renews it, which
	// it does every third of Lease while it holds the lock. It bounds how
	// long a stack stays locked after its holder crashed. Default 30s.
	Lease time.Duration
	// Timeout bounds each database call. Default one minute.
	Timeout time.Duration
}

// The defaults of Config.
const (
	DefaultSchema  = "groundwork"
	DefaultLease   = 30 * time.Second
	DefaultTimeout = time.Minute
)

func (c Config) withDefaults() Config {
	if c.Schema == "" {
		c.Schema = DefaultSchema
	}
	if c.Lease <= 0 {
		c.Lease = DefaultLease
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	return c
}

// Open connects to the database at url — postgres://user:password@host:port/database?...,
// or any connection string pgx accepts — and returns a Store over it,
// creating or migrating its tables first. Besides pgx's own parameters
// (sslmode, pool_max_conns, application_name, ...) the URL may carry the
// store's: schema (Config.Schema), lease and timeout (Config.Lease and
// Config.Timeout, as Go durations such as 30s). The Store owns the
// connection pool; Close closes it.
//
// Options are those of package state (secrets, journal limit). The sync
// policy makes no difference here: every write is a committed
// transaction, as durable as the server's synchronous_commit setting
// makes it (which the URL can set for the store's sessions).
func Open(ctx context.Context, url string, opts ...state.Option) (*Store, error) {
	connString, cfg, err := splitURL(url)
	if err != nil {
		return nil, err
	}
	pc, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("the PostgreSQL connection settings: %w", err)
	}
	if _, ok := pc.ConnConfig.RuntimeParams["application_name"]; !ok {
		pc.ConnConfig.RuntimeParams["application_name"] = "groundwork"
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("connecting to PostgreSQL: %w", err)
	}
	s, err := New(ctx, pool, cfg, opts...)
	if err != nil {
		pool.Close()
		return nil, err
	}
	s.ownPool = true
	return s, nil
}

// New returns a Store over a pool the caller owns (Close leaves it open),
// creating or migrating the tables first.
func New(ctx context.Context, pool *pgxpool.Pool, cfg Config, opts ...state.Option) (*Store, error) {
	cfg = cfg.withDefaults()
	mctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	if err := migrate(mctx, pool, cfg.Schema); err != nil {
		return nil, err
	}
	b := &backend{pool: pool, schema: cfg.Schema, lease: cfg.Lease, timeout: cfg.Timeout, q: newQueries(cfg.Schema)}
	b.leases = newRenewers(cfg.Lease, b.renew)
	return &Store{Store: backendstore.New(b, opts...), b: b}, nil
}

// splitURL takes the store's own parameters out of a postgres:// URL.
func splitURL(raw string) (string, Config, error) {
	var cfg Config
	if !strings.HasPrefix(raw, "postgres://") && !strings.HasPrefix(raw, "postgresql://") {
		return raw, cfg, nil // a keyword/value connection string: pgx's alone
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", cfg, fmt.Errorf("the PostgreSQL URL is malformed: %w", err)
	}
	q := u.Query()
	cfg.Schema = q.Get("schema")
	for _, d := range []struct {
		name string
		to   *time.Duration
	}{{"lease", &cfg.Lease}, {"timeout", &cfg.Timeout}} {
		v := q.Get(d.name)
		if v == "" {
			continue
		}
		if *d.to, err = time.ParseDuration(v); err != nil || *d.to <= 0 {
			return "", cfg, fmt.Errorf("PostgreSQL URL parameter %s=%q is not a positive duration such as 30s", d.name, v)
		}
	}
	for _, name := range []string{"schema", "lease", "timeout"} {
		q.Del(name)
	}
	u.RawQuery = q.Encode()
	return u.String(), cfg, nil
}

// Schema returns the PostgreSQL schema that holds the store's tables.
func (s *Store) Schema() string { return s.b.schema }

// Close stops renewing the store's leases and, if Open made the pool,
// closes it. Locks still held are not released: they lapse when their
// lease runs out, and the journals still open stay for the next Load to
// replay. Unlock what you hold first.
func (s *Store) Close() {
	s.b.leases.close()
	if s.ownPool {
		s.b.pool.Close()
	}
}

// BreakLock implements state.LockBreaker for leases: it removes the
// stack's lock once its lease has lapsed (Lock takes such a lock over by
// itself, so this only tidies up), and refuses, with an error wrapping
// *state.LockedError, while the holder still renews it. Breaking an
// unlocked stack does nothing.
func (s *Store) BreakLock(ctx context.Context, stack state.StackID) error {
	// Taking the lock takes a lapsed lease over; releasing it then
	// leaves the stack unlocked.
	l, err := s.Store.Lock(ctx, stack, "unlock")
	var locked *state.LockedError
	if errors.As(err, &locked) {
		return fmt.Errorf("not breaking the lock: its holder still renews its lease: %w", err)
	}
	if err != nil {
		return err
	}
	return l.Unlock(ctx)
}

// ForceUnlock implements state.ForceUnlocker.
func (s *Store) ForceUnlock(ctx context.Context, stack state.StackID, token string) error {
	return s.Store.(state.ForceUnlocker).ForceUnlock(ctx, stack, token)
}

// RecordHistory implements state.HistoryRecorder: a row of the history
// table, written under the stack's lock.
func (s *Store) RecordHistory(ctx context.Context, stack state.StackID, e state.HistoryEntry) error {
	return s.Store.(state.HistoryRecorder).RecordHistory(ctx, stack, e)
}

// History implements state.HistoryReader.
func (s *Store) History(ctx context.Context, stack state.StackID) ([]state.HistoryEntry, error) {
	return s.Store.(state.HistoryReader).History(ctx, stack)
}
