package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/groundwork-iac/groundwork/state"
)

// backend is the state.Backend of a Store: three tables, and leases
// renewed by a goroutine per held lock.
//
// Every write is one statement, so one transaction and one round trip. It
// begins by locking the stack's row in locks, with the writer's token in
// the condition (the CTE "lease"): a takeover, which rewrites that row,
// then waits for the write to commit, and a write that comes after a
// takeover finds no row with its token and changes nothing. That is the
// fencing state.Backend asks for, with no window between check and write.
type backend struct {
	pool    *pgxpool.Pool
	schema  string
	lease   time.Duration
	timeout time.Duration
	q       queries
	leases  *renewers
}

var (
	_ state.Backend           = (*backend)(nil)
	_ state.HistoryBackend    = (*backend)(nil)
	_ state.HistoryTailReader = (*backend)(nil)
)

// queries are the statements of one schema.
type queries struct {
	readSnapshot, hasSnapshot, readJournal, list string
	holder, acquire, release, renew              string
	writeSnapshot, writeJournal, appendJournal   string
	deleteStack, appendHistory, readHistory      string
	readHistoryTail                              string
}

// lease is the CTE that fences a write: the stack's lock row if the token
// ($1 the project, $2 the stack, $3 the token) holds it, locked until the
// write commits.
const lease = `WITH lease AS (SELECT project, stack FROM {s}.locks WHERE project = $1 AND stack = $2 AND token = $3 FOR UPDATE)`

func newQueries(schema string) queries {
	q := queries{
		readSnapshot: `SELECT data FROM {s}.snapshots WHERE project = $1 AND stack = $2`,
		hasSnapshot:  `SELECT EXISTS (SELECT 1 FROM {s}.snapshots WHERE project = $1 AND stack = $2)`,
		readJournal:  `SELECT string_agg(data, ''::bytea ORDER BY id) FROM {s}.journal WHERE project = $1 AND stack = $2`,
		list:         `SELECT project, stack FROM {s}.snapshots`,
		holder:       `SELECT token, pid, host, operation, locked_at, expires_at FROM {s}.locks WHERE project = $1 AND stack = $2`,
		// A lock whose lease has lapsed is taken over; a live one is left
		// alone, and then no row comes back. The row comes back with
		// the holder it replaced, if any (all of one snapshot: prev is
		// the row before the insert).
		acquire: `WITH prev AS (SELECT token, pid, host, operation, locked_at, expires_at FROM {s}.locks WHERE project = $1 AND stack = $2),
taken AS (
	INSERT INTO {s}.locks AS l (project, stack, token, pid, host, operation, locked_at, expires_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, now() + $8 * interval '1 microsecond')
	ON CONFLICT (project, stack) DO UPDATE SET token = excluded.token, pid = excluded.pid, host = excluded.host,
		operation = excluded.operation, locked_at = excluded.locked_at, expires_at = excluded.expires_at
	WHERE l.expires_at <= now()
	RETURNING expires_at
)
SELECT taken.expires_at, prev.token, prev.pid, prev.host, prev.operation, prev.locked_at, prev.expires_at
FROM taken LEFT JOIN prev ON true`,
		release: `DELETE FROM {s}.locks WHERE project = $1 AND stack = $2 AND token = $3`,
		// Only a live lease is renewed: one that lapsed is up for grabs,
		// and its holder keeps writing only until someone takes it.
		renew: `UPDATE {s}.locks SET expires_at = now() + $4 * interval '1 microsecond'
WHERE project = $1 AND stack = $2 AND token = $3 AND expires_at > now()`,
		writeSnapshot: lease + `,
snap AS (
	INSERT INTO {s}.snapshots (project, stack, data) SELECT project, stack, $4 FROM lease
	ON CONFLICT (project, stack) DO UPDATE SET data = excluded.data, written_at = now()
	RETURNING stack
),
emptied AS (DELETE FROM {s}.journal j USING lease WHERE j.project = lease.project AND j.stack = lease.stack)
SELECT count(*) FROM snap`,
		writeJournal: lease + `,
emptied AS (DELETE FROM {s}.journal j USING lease WHERE j.project = lease.project AND j.stack = lease.stack),
started AS (INSERT INTO {s}.journal (project, stack, data) SELECT project, stack, $4 FROM lease WHERE $4::bytea IS NOT NULL)
SELECT count(*) FROM lease`,
		appendJournal: lease + `
INSERT INTO {s}.journal (project, stack, data) SELECT project, stack, $4 FROM lease`,
		deleteStack: lease + `,
snap AS (DELETE FROM {s}.snapshots x USING lease WHERE x.project = lease.project AND x.stack = lease.stack),
journal AS (DELETE FROM {s}.journal x USING lease WHERE x.project = lease.project AND x.stack = lease.stack),
history AS (DELETE FROM {s}.history x USING lease WHERE x.project = lease.project AND x.stack = lease.stack)
SELECT count(*) FROM lease`,
		appendHistory: lease + `
INSERT INTO {s}.history (project, stack, data) SELECT project, stack, $4 FROM lease`,
		readHistory: `SELECT string_agg(data, ''::bytea ORDER BY id) FROM {s}.history WHERE project = $1 AND stack = $2`,
		readHistoryTail: `SELECT string_agg(data, ''::bytea ORDER BY id), count(*) FROM
(SELECT id, data FROM {s}.history WHERE project = $1 AND stack = $2 ORDER BY id DESC LIMIT $3) tail`,
	}
	for _, p := range []*string{
		&q.readSnapshot, &q.hasSnapshot, &q.readJournal, &q.list,
		&q.holder, &q.acquire, &q.release, &q.renew,
		&q.writeSnapshot, &q.writeJournal, &q.appendJournal, &q.deleteStack,
		&q.appendHistory, &q.readHistory, &q.readHistoryTail,
	} {
		*p = expand(*p, schema)
	}
	return q
}

// call bounds one database call by the store's timeout.
func (b *backend) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, b.timeout)
}

func (b *backend) fail(what string, stack state.StackID, err error) error {
	return fmt.Errorf("%s stack %q in PostgreSQL: %w", what, stack, err)
}

// ReadSnapshot implements state.Backend.
func (b *backend) ReadSnapshot(ctx context.Context, stack state.StackID) ([]byte, error) {
	ctx, cancel := b.call(ctx)
	defer cancel()
	var data []byte
	err := b.pool.QueryRow(ctx, b.q.readSnapshot, stack.Project, stack.Stack).Scan(&data)
	if errNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, b.fail("reading the snapshot of", stack, err)
	}
	return data, nil
}

// HasSnapshot implements state.Backend.
func (b *backend) HasSnapshot(ctx context.Context, stack state.StackID) (bool, error) {
	ctx, cancel := b.call(ctx)
	defer cancel()
	var ok bool
	if err := b.pool.QueryRow(ctx, b.q.hasSnapshot, stack.Project, stack.Stack).Scan(&ok); err != nil {
		return false, b.fail("looking for", stack, err)
	}
	return ok, nil
}

// ReadJournal implements state.Backend.
func (b *backend) ReadJournal(ctx context.Context, stack state.StackID) ([]byte, error) {
	ctx, cancel := b.call(ctx)
	defer cancel()
	var data []byte
	if err := b.pool.QueryRow(ctx, b.q.readJournal, stack.Project, stack.Stack).Scan(&data); err != nil {
		return nil, b.fail("reading the journal of", stack, err)
	}
	return data, nil
}

// List implements state.Backend.
func (b *backend) List(ctx context.Context) ([]state.StackID, error) {
	ctx, cancel := b.call(ctx)
	defer cancel()
	rows, err := b.pool.Query(ctx, b.q.list)
	if err != nil {
		return nil, fmt.Errorf("listing the stacks in PostgreSQL: %w", err)
	}
	defer rows.Close()
	var out []state.StackID
	for rows.Next() {
		var s state.StackID
		if err := rows.Scan(&s.Project, &s.Stack); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing the stacks in PostgreSQL: %w", err)
	}
	return out, nil
}

// Holder implements state.Backend.
func (b *backend) Holder(ctx context.Context, stack state.StackID) (*state.LockInfo, error) {
	ctx, cancel := b.call(ctx)
	defer cancel()
	var li state.LockInfo
	err := b.pool.QueryRow(ctx, b.q.holder, stack.Project, stack.Stack).Scan(&li.Token, &li.PID, &li.Host, &li.Operation, &li.Time, &li.Expires)
	if errNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, b.fail("reading the lock of", stack, err)
	}
	return &li, nil
}

// Acquire implements state.Backend. A lock it takes is renewed until
// Release, or until the store is closed.
func (b *backend) Acquire(ctx context.Context, stack state.StackID, holder state.LockInfo) (bool, *state.LockInfo, error) {
	ctx, cancel := b.call(ctx)
	defer cancel()
	// The columns of prev are NULL when the stack was not locked.
	var (
		expires                  time.Time
		token, host, operation   *string
		pid                      *int
		lockedAt, previousExpiry *time.Time
	)
	err := b.pool.QueryRow(ctx, b.q.acquire, stack.Project, stack.Stack, holder.Token, holder.PID, holder.Host, holder.Operation,
		holder.Time, b.lease.Microseconds()).Scan(&expires, &token, &pid, &host, &operation, &lockedAt, &previousExpiry)
	if errNoRows(err) {
		return false, nil, nil
	}
	if err != nil {
		return false, nil, b.fail("locking", stack, err)
	}
	b.leases.start(stack, holder.Token)
	if token == nil || pid == nil || host == nil || operation == nil || lockedAt == nil || previousExpiry == nil {
		return true, nil, nil
	}
	return true, &state.LockInfo{Token: *token, PID: *pid, Host: *host, Operation: *operation, Time: *lockedAt, Expires: *previousExpiry}, nil
}

// Release implements state.Backend.
func (b *backend) Release(ctx context.Context, stack state.StackID, token string) (bool, error) {
	b.leases.stop(stack, token)
	ctx, cancel := b.call(ctx)
	defer cancel()
	tag, err := b.pool.Exec(ctx, b.q.release, stack.Project, stack.Stack, token)
	if err != nil {
		return false, b.fail("unlocking", stack, err)
	}
	return tag.RowsAffected() == 1, nil
}

// renew extends a held lease; it reports false once the lease is no
// longer this holder's to renew.
func (b *backend) renew(ctx context.Context, stack state.StackID, token string) (bool, error) {
	ctx, cancel := b.call(ctx)
	defer cancel()
	tag, err := b.pool.Exec(ctx, b.q.renew, stack.Project, stack.Stack, token, b.lease.Microseconds())
	if err != nil {
		return true, err // try again at the next tick
	}
	return tag.RowsAffected() == 1, nil
}

// fenced runs one of the fenced writes, whose result is the number of
// lease rows it found (zero: the token does not hold the lock).
func (b *backend) fenced(ctx context.Context, what, sql string, stack state.StackID, token string, more ...any) error {
	ctx, cancel := b.call(ctx)
	defer cancel()
	var n int64
	if err := b.pool.QueryRow(ctx, sql, append([]any{stack.Project, stack.Stack, token}, more...)...).Scan(&n); err != nil {
		return b.fail(what, stack, err)
	}
	if n == 0 {
		return b.fail(what, stack, state.ErrLockLost)
	}
	return nil
}

// WriteSnapshot implements state.Backend: the snapshot is replaced and the
// journal emptied in one transaction, so a crash leaves either the old
// snapshot with its journal or the new snapshot.
func (b *backend) WriteSnapshot(ctx context.Context, stack state.StackID, token string, data []byte) error {
	return b.fenced(ctx, "writing the snapshot of", b.q.writeSnapshot, stack, token, data)
}

// WriteJournal implements state.Backend.
func (b *backend) WriteJournal(ctx context.Context, stack state.StackID, token string, data []byte) error {
	return b.fenced(ctx, "restarting the journal of", b.q.writeJournal, stack, token, data)
}

// DeleteStack implements state.Backend.
func (b *backend) DeleteStack(ctx context.Context, stack state.StackID, token string) error {
	return b.fenced(ctx, "removing", b.q.deleteStack, stack, token)
}

// AppendJournal implements state.Backend: one insert, of everything the
// journal's group commit gathered.
func (b *backend) AppendJournal(ctx context.Context, stack state.StackID, token string, data []byte) error {
	ctx, cancel := b.call(ctx)
	defer cancel()
	tag, err := b.pool.Exec(ctx, b.q.appendJournal, stack.Project, stack.Stack, token, data)
	if err != nil {
		return b.fail("appending to the journal of", stack, err)
	}
	if tag.RowsAffected() == 0 {
		return b.fail("appending to the journal of", stack, state.ErrLockLost)
	}
	return nil
}

// AppendHistory implements state.HistoryBackend: one fenced insert.
func (b *backend) AppendHistory(ctx context.Context, stack state.StackID, token string, data []byte) error {
	ctx, cancel := b.call(ctx)
	defer cancel()
	tag, err := b.pool.Exec(ctx, b.q.appendHistory, stack.Project, stack.Stack, token, data)
	if err != nil {
		return b.fail("recording the history of", stack, err)
	}
	if tag.RowsAffected() == 0 {
		return b.fail("recording the history of", stack, state.ErrLockLost)
	}
	return nil
}

// tailRecords is how many of a history's last records ReadHistoryTail
// reads first.
const tailRecords = 16

// ReadHistoryTail implements state.HistoryTailReader: the history's last
// records (one a row) through the table's key, read backwards, four times
// as many each time until they hold n bytes or are all there are.
func (b *backend) ReadHistoryTail(ctx context.Context, stack state.StackID, n int64) ([]byte, bool, error) {
	ctx, cancel := b.call(ctx)
	defer cancel()
	for rows := int64(tailRecords); ; rows *= 4 {
		var (
			data  []byte
			count int64
		)
		if err := b.pool.QueryRow(ctx, b.q.readHistoryTail, stack.Project, stack.Stack, rows).Scan(&data, &count); err != nil {
			return nil, false, b.fail("reading the history of", stack, err)
		}
		if whole := count < rows; whole || int64(len(data)) >= n {
			return data, whole, nil
		}
	}
}

// ReadHistory implements state.HistoryBackend.
func (b *backend) ReadHistory(ctx context.Context, stack state.StackID) ([]byte, error) {
	ctx, cancel := b.call(ctx)
	defer cancel()
	var data []byte
	if err := b.pool.QueryRow(ctx, b.q.readHistory, stack.Project, stack.Stack).Scan(&data); err != nil {
		return nil, b.fail("reading the history of", stack, err)
	}
	return data, nil
}
