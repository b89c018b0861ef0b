package state

import (
	"context"
	"fmt"
	"sync"

	"github.com/groundwork-iac/groundwork/state/secrets"
)

// Journal records an operation step by step, so that a crash loses nothing
// that had been recorded. The engine writes each step twice: an EntryBegin
// before it calls the provider, and an EntrySuccess or EntryFailure (whose
// Begin is the Seq the EntryBegin got) after the provider answers. It
// must not call the provider before the EntryBegin's Append returns, nor
// report a step's result to the program before its end entry's Append
// returns: only then is the entry durable.
//
// The entries fold into a snapshot (see Fold) by these rules:
//
//   - EntryBegin adds the pending operation {Resource: New, or Old if New
//     is nil; Kind: Op}.
//   - EntrySuccess clears its begin's pending operation; then the resource
//     that matches Old (same URN, ID and Delete flag) is removed, with
//     every resource listed in With (matched the same way), and New is
//     recorded — in Old's place when Old has the same URN, else at the
//     end. The removals of one entry happen together or not at all.
//     When the entry condemns Old (Entry.Condemn), Old stays recorded,
//     marked Delete in its place, and New is recorded at the end.
//   - EntryFailure clears its begin's pending operation and nothing else.
//   - EntryWrite applies Old→New as EntrySuccess does, with no pending
//     operation (for instant changes such as a component's outputs).
//   - EntryClearPending drops a pending operation inherited from an earlier
//     crashed run.
//
// A snapshot materialized from the fold lists resources in a stable
// dependency order, so the order in which concurrent steps finish never
// breaks integrity.
//
// Every Seq is unique over the journal's whole life, also across the
// compactions that fold a long journal into a new snapshot mid-operation:
// the restarted journal continues the numbering and records which pending
// operations of that snapshot are steps still running, so their end
// entries still find their begins. After a crash, steps that began and did
// not end are pending operations of what Load returns.
//
// A Journal is safe for concurrent use. Appending costs time proportional
// to the entry, not to the stack. The journal keeps the *resource.State
// values it is given and shares them with the snapshots it returns: a
// recorded State is immutable (see resource.State), so callers that need a
// changed one make a copy with Clone.
type Journal interface {
	// Append records e and returns its Seq once e is durable under the
	// store's SyncPolicy. An entry that does not fit what the journal
	// holds (see Fold.Apply) is rejected with *EntryError and not written.
	// After a storage error the journal accepts no more entries.
	Append(ctx context.Context, e Entry) (seq uint64, err error)
	// Record records e like Append, but under GroupCommit on a file or
	// memory store it returns once e is ordered rather than durable: e is
	// handed to the operating system (at once, or as soon as a flush under
	// way is done), so it survives the process being killed, and becomes
	// durable no later than the next entry an Append waits for, Commit or
	// Close. A backend (PostgreSQL) has no such middle ground: there it
	// waits like Append.
	// Storage keeps entries in order, so no later entry is ever durable
	// without e. It is for entries nothing outside the journal acts on
	// before a later durable entry, such as a step's end: whatever depends
	// on that step begins with an Append. Under the other policies it is
	// Append.
	Record(ctx context.Context, e Entry) (seq uint64, err error)
	// Snapshot returns the current fold of the journal.
	Snapshot() (*Snapshot, error)
	// Commit folds the journal into a snapshot, writes it atomically,
	// and only then restarts the journal empty. Recording may continue
	// afterwards. A fold that fails integrity is not written; the journal
	// then stays as it is and the error wraps *IntegrityError.
	Commit(ctx context.Context) (*Snapshot, error)
	// Close ends the journal. Entries not committed stay in storage, for
	// the next Load to replay. Closing twice is a no-op.
	Close(ctx context.Context) error
}

// AsyncJournal is a Journal whose entries can be recorded without the
// caller waiting for storage: the engine journals each step's begin with
// AppendAsync, so that no goroutine sits parked for a sync and none is
// started for a step before its begin is durable, and its end with
// Enqueue. Every Journal a Store in this package opens implements it.
type AsyncJournal interface {
	Journal
	// AppendAsync records e as Append does, without waiting: done is
	// called exactly once — with e's Seq once e is durable, or with the
	// error that refused it — from the journal's writer goroutine, or
	// before AppendAsync returns when e is refused at once (a cancelled
	// ctx, a malformed entry, an entry the fold rejects, a closed
	// journal). done must not block: the writer calls back the Appends of
	// one sync in turn.
	AppendAsync(ctx context.Context, e Entry, done func(seq uint64, err error))
	// Enqueue records e as Record does, but leaves the write to the
	// journal's writer goroutine, which writes e next: it returns once e
	// is folded, in order, without any I/O of its own. A process killed
	// before the write loses e, as it loses a Record handed on to a write
	// under way; a later Append's entry, Commit and Close each make it
	// durable first. On a backend it waits like Record.
	Enqueue(ctx context.Context, e Entry) (seq uint64, err error)
}

// entryBuffers recycles the buffers entries are encoded into; each one
// comes back once its entry is framed into the batch.
var entryBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// maxSpareBatch bounds the buffer a journal keeps between batches.
const maxSpareBatch = 8 << 20

// journal is the Journal of every store: a Fold in memory, framed records
// in storage, and the pipeline (pipeline.go) between them: entries are
// folded and framed by whoever records them, and a writer goroutine writes
// them in batches and makes them durable, with group commit.
type journal struct {
	c     *core
	stack string
	mgr   secrets.Manager
	// mac tags the records when mgr can authenticate. An entry's record is
	// framed with room for its tag; write seals the batch in order,
	// chaining from chain, just before it is written, outside mu. mac's
	// state and chain belong to whoever writes: the writer while writing
	// is set, or a holder of mu while the pipeline is quiet.
	mac *recordMAC

	// pipes counts the writer goroutine while it runs.
	pipes sync.WaitGroup

	mu   sync.Mutex
	cond sync.Cond // signals writing, syncing, paused and err changes
	fold *Fold
	app  appender
	// nextSeq is the Seq the next entry folded gets; written and durable
	// are the last Seqs written to storage and made durable.
	nextSeq, written, durable uint64
	buf, spare                []byte // the batch being framed, and a spare
	// awaiting are the Appends waiting for their entries to be durable,
	// in Seq order.
	awaiting []waiter
	// writing says a write runs outside mu (writingRecord: a Record's,
	// which writes whatever is framed before it returns); syncing says the
	// writer goroutine syncs outside mu.
	writing, writingRecord, syncing bool
	writerRunning                   bool
	// paused holds the writer still (a checkpoint).
	paused   bool
	err      error // sticky storage error
	closed   bool
	size     int64         // journal bytes written since the checkpoint
	limit    int64         // compact when size exceeds this
	snapSize int           // size of the last snapshot written
	entries  int           // entries since the last checkpoint
	chain    [macSize]byte // tag of the last record sealed (with mac)
	// base is the snapshot file the journal's header is still to be
	// written for, with the steps in flight in it (see start); nil once it
	// is.
	base     []byte
	inFlight []InFlight
	// encoded holds the snapshot encodings of the states entries recorded
	// since the last checkpoint, for the next one to copy.
	encoded encodedStates
	// pristine is the snapshot the journal continues, until an entry is
	// recorded: the fold holds just that, in that order.
	pristine *Snapshot
}

var _ AsyncJournal = (*journal)(nil)

func openJournal(ctx context.Context, c *core, stack string, base *Snapshot) (*journal, error) {
	mgr, err := c.manager(ctx, stack, base.Secrets)
	if err != nil {
		return nil, err
	}
	j := &journal{c: c, stack: stack, mgr: mgr, nextSeq: 1}
	j.cond.L = &j.mu
	if j.mac, err = newRecordMAC(mgr); err != nil {
		return nil, err
	}
	snap := *base
	if mgr != nil {
		snap.Secrets = &SecretsState{Type: mgr.Type(), State: mgr.State()}
	}
	if j.fold, err = NewFold(&snap, 0, nil); err != nil {
		return nil, err
	}
	if data := c.continuing(stack, base, mgr); data != nil {
		if err := j.continueFrom(data); err != nil {
			return nil, err
		}
		j.pristine = &snap
		return j, nil
	}
	if _, err := j.checkpointLocked(ctx, false); err != nil {
		return nil, err
	}
	return j, nil
}

// continueFrom starts the journal on the stored snapshot file data, which
// holds the fold's base, instead of writing that snapshot again. The
// journal's header, which names data (by its MAC, or else its SHA-256)
// and is the first link of a keyed journal's chain of tags, is written
// just before the first entry (see start): an operation that records
// nothing — an unchanged rerun — then neither names the snapshot nor
// writes and syncs a journal, and a crash before the first entry leaves
// the snapshot alone, which is what a header with no entries would have
// replayed to.
func (j *journal) continueFrom(data []byte) error {
	j.base, j.inFlight = data, nil
	j.snapSize = len(data)
	j.size = 0
	j.limit = j.c.opts.limitFactor*int64(len(data)) + j.c.opts.limitExtra
	j.entries = 0
	return nil
}

// start writes the header of a journal on the snapshot file j.base (see
// continueFrom and checkpointLocked), replacing any journal there; in a
// keyed journal it is tagged, chained to nothing, and the next entry's tag
// chains to it. Called with j.mu held and no flush under way (nothing has
// been handed to storage since the checkpoint, whose flushLocked waited
// for the last flush); an error is sticky, as for every storage error.
func (j *journal) start() error {
	header := headerRecord(j.base, j.nextSeq, j.inFlight, j.mac)
	st := j.c.st
	err := st.replace(j.stack, fileJournal, header)
	if err == nil {
		j.app, err = st.openAppend(j.stack, fileJournal)
	}
	if err != nil {
		j.err = fmt.Errorf("starting the journal of stack %q: %w", j.stack, err)
		j.cond.Broadcast()
		return j.err
	}
	if j.mac != nil {
		copy(j.chain[:], header[len(header)-macSize:])
	}
	j.base, j.inFlight = nil, nil
	j.size += int64(len(header))
	return nil
}

// Append implements Journal.
func (j *journal) Append(ctx context.Context, e Entry) (uint64, error) {
	return j.await(ctx, e, settleLead)
}

// Record implements Journal.
func (j *journal) Record(ctx context.Context, e Entry) (uint64, error) {
	return j.await(ctx, e, settleWrite)
}

// AppendAsync implements AsyncJournal.
func (j *journal) AppendAsync(ctx context.Context, e Entry, done func(uint64, error)) {
	j.submit(ctx, e, settleDurable, done)
}

// Enqueue implements AsyncJournal.
func (j *journal) Enqueue(ctx context.Context, e Entry) (uint64, error) {
	return j.await(ctx, e, settleEnqueue)
}

// check refuses an entry before it is encoded: the operation is over, or
// the entry is malformed.
func (j *journal) check(ctx context.Context, e *Entry) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e.Seq = 0
	return e.validate()
}

// recycle returns an entry buffer to the pool, unless it grew too large to
// keep.
func recycle(buf *[]byte) {
	if cap(*buf) > 1<<20 {
		*buf = make([]byte, 0, 4096)
	}
	entryBuffers.Put(buf)
}

// ready is usable, for an entry about to be appended: it first writes the
// header of a continued journal that has none yet.
func (j *journal) ready() error {
	if err := j.usable(); err != nil {
		return err
	}
	if j.base != nil {
		return j.start()
	}
	return nil
}

// usable refuses an entry once the journal is closed or has failed.
func (j *journal) usable() error {
	if j.closed {
		return ErrJournalClosed
	}
	if j.err != nil {
		return fmt.Errorf("the journal of stack %q failed earlier and accepts no more entries: %w", j.stack, j.err)
	}
	return nil
}

// checkpointLocked folds the journal into a snapshot, writes it, then
// restarts the journal with a header that continues the Seq numbering and
// ties running steps to their pending operations. Called with j.mu held
// and the pipeline quiet (quiesceLocked), or before the journal is
// shared. Every entry folded is durable once it returns successfully:
// the snapshot holds it.
//
// With lazy set (Commit: the operation usually ends right after), the new
// header is written only before the next entry, if one comes (see start):
// until then the old journal, which names the snapshot replaced, is stale
// and Load ignores it, as it does after a crash between the two writes;
// Close removes it.
func (j *journal) checkpointLocked(ctx context.Context, lazy bool) (*Snapshot, error) {
	if j.err != nil {
		return nil, j.err
	}
	snap, inFlight := j.fold.Checkpoint()
	snap.Manifest = j.c.stamp()
	// Unknown values need no search: the base was checked when the journal
	// opened, and every entry's resources when it was applied.
	if err := snap.verifyIntegrity(true); err != nil {
		return nil, fmt.Errorf("not writing stack %q: %w", j.stack, err)
	}
	data, err := encodeSnapshot(ctx, snap, j.mgr, j.snapSize, &j.encoded)
	if err != nil {
		return nil, fmt.Errorf("encoding stack %q: %w", j.stack, err)
	}
	j.encoded.reset()
	if err := j.c.replaceSnapshot(j.stack, data); err != nil {
		return nil, fmt.Errorf("writing stack %q: %w", j.stack, err)
	}
	// From here on the old journal is stale: failing to start the new one
	// means no later entry could be replayed, so the journal stops.
	if j.app != nil {
		err := j.app.close()
		j.app = nil
		if err != nil {
			j.err = fmt.Errorf("restarting the journal of stack %q: %w", j.stack, err)
			j.cond.Broadcast()
			return nil, j.err
		}
	}
	j.fold.manifest = snap.Manifest
	// Everything folded is in the snapshot now: what was framed and not
	// yet written belongs to the journal just replaced.
	j.buf = j.buf[:0]
	j.written, j.durable = j.nextSeq-1, j.nextSeq-1
	j.snapSize = len(data)
	j.size = 0
	j.limit = j.c.opts.limitFactor*int64(len(data)) + j.c.opts.limitExtra
	j.entries = 0
	j.base, j.inFlight = data, inFlight
	if !lazy {
		if err := j.start(); err != nil {
			return nil, err
		}
	}
	return snap, nil
}

// Snapshot implements Journal.
func (j *journal) Snapshot() (*Snapshot, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return nil, ErrJournalClosed
	}
	return j.fold.Snapshot(), nil
}

// Commit implements Journal.
func (j *journal) Commit(ctx context.Context) (*Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	j.mu.Lock()
	if err := j.usable(); err != nil {
		j.mu.Unlock()
		return nil, err
	}
	j.quiesceLocked()
	var snap *Snapshot
	var err error
	switch {
	case j.pristine != nil:
		snap = j.pristine // nothing recorded: no need to sort the stack again
	case j.entries == 0 && (j.app != nil || j.base != nil):
		// Nothing since the last checkpoint: the stored snapshot is the
		// fold already, and rewriting it would make an unchanged rerun
		// cost a full snapshot write.
		snap = j.fold.Snapshot()
	default:
		snap, err = j.checkpointLocked(ctx, true)
	}
	ready := j.takeDurable()
	j.resumeLocked()
	j.mu.Unlock()
	deliver(ready)
	return snap, err
}

// Close implements Journal. Appends recorded before it are written and
// synced first; entries recorded from then on are refused with
// ErrJournalClosed.
func (j *journal) Close(ctx context.Context) error {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return nil
	}
	for j.writerRunning && j.err == nil {
		j.cond.Wait() // the writer finishes what was recorded
	}
	var err error
	if j.err == nil && j.app != nil {
		err = j.flushLocked()
	}
	j.closed = true
	j.cond.Broadcast()
	ready := j.failAwaiting()
	if j.app != nil {
		if cerr := j.app.close(); err == nil {
			err = cerr
		}
		j.app = nil
	}
	// A journal with no entries since its checkpoint adds nothing to the
	// snapshot; remove it to leave the stack tidy.
	if err == nil && j.err == nil && j.entries == 0 {
		err = j.c.st.remove(j.stack, fileJournal)
	}
	j.mu.Unlock()
	deliver(ready)
	j.pipes.Wait()
	j.c.journalClosed(j.stack, j)
	return err
}
