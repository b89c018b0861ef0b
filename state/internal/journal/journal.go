package journal

import (
	"context"
	"fmt"
	"sync"

	"github.com/groundwork-iac/groundwork/state"

	"github.com/groundwork-iac/groundwork/state/internal/format"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// entryBuffers recycles the buffers entries are encoded into; each one
// comes back once its entry is framed into the batch.
var entryBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// maxSpareBatch bounds the buffer a journal keeps between batches.
const maxSpareBatch = 8 << 20

// minBatch is the least a batch's buffer holds once it holds a record.
const minBatch = 4 << 10

// Storage is where a journal keeps its stack: the stack's snapshot and
// journal, written under the lock its store holds. Each write is atomic
// and durable when it returns. A journal makes one call at a time, with
// the context of the call it serves (see Append for the exception).
type Storage interface {
	// WriteSnapshot replaces the stack's snapshot with data and empties
	// its journal, which was written against the snapshot replaced.
	WriteSnapshot(ctx context.Context, data []byte) error
	// WriteJournal replaces the stack's journal with data (nil: no
	// journal).
	WriteJournal(ctx context.Context, data []byte) error
	// AppendJournal adds data at the end of the stack's journal.
	AppendJournal(ctx context.Context, data []byte) error
}

// Config is what a journal is opened with.
type Config struct {
	// Stack names the stack in errors.
	Stack state.StackID
	// Base is the snapshot the journal records an operation on.
	Base *state.Snapshot
	// Secrets encrypts the entries' secret values and, when it can
	// authenticate, keys the records' tags; nil for none.
	Secrets secrets.Manager
	// Storage is where the journal writes.
	Storage Storage
	// Stamp returns the manifest of a snapshot about to be written.
	Stamp func() state.Manifest
	// LimitFactor and LimitExtra bound the journal before it is
	// compacted: LimitFactor times the size of the last snapshot
	// written, plus LimitExtra bytes (state.WithJournalLimit).
	LimitFactor, LimitExtra int64
	// Continue is the text of the stored snapshot when it holds Base
	// exactly as is, encoded with the MAC the journal's records would
	// carry: the journal then continues it instead of writing Base
	// again. Empty otherwise.
	Continue string
}

// Journal is the state.Journal of every store: a Fold in memory, framed
// records in Storage, and group commit between them (pipeline.go):
// whoever appends an entry encodes it, folds it and frames its record
// into the batch being gathered; the journal's writer goroutine writes the
// batches gathered until none is left, and each batch's appenders are told
// once it is durable.
type Journal struct {
	st    Storage
	stack state.StackID
	stamp func() state.Manifest
	// limitFactor and limitExtra are Config's.
	limitFactor, limitExtra int64
	mgr                     secrets.Manager
	// mac tags the records when mgr can authenticate. An entry's record is
	// framed with room for its tag; write seals the batch in order,
	// chaining from chain, just before it is written, outside mu. mac's
	// state and chain belong to whoever writes: the writer (writeLoop),
	// or a holder of mu while no flush runs.
	mac *format.RecordMAC

	mu   sync.Mutex
	fold *state.Fold
	// nextSeq is the Seq the next entry folded gets.
	nextSeq uint64
	// gathering is the batch whose records are being framed into buf;
	// flushing is the batch being written outside mu (nil for none).
	gathering, flushing *batch
	// writing is set while the writer goroutine runs (see writeLoop);
	// writer counts it, for Close to wait for.
	writing    bool
	writer     sync.WaitGroup
	buf, spare []byte // the records of gathering, and a spare
	// spareWaiting is the emptied waiters of a batch settled, for the
	// next batch to gather into.
	spareWaiting []waiter
	largest      int   // the size of the largest batch written (see reserve)
	err          error // sticky storage error
	closed       bool
	started      bool                 // the journal's header is written
	size         int64                // journal bytes written since the checkpoint
	limit        int64                // compact when size exceeds this
	snapSize     int                  // size of the last snapshot written
	entries      int                  // entries since the last checkpoint
	chain        [format.MACSize]byte // tag of the last record sealed (with mac)
	// base is the snapshot file the journal's header is still to be
	// written for, with the steps in flight in it (see start); nil once
	// it is.
	base     *snapshotFile
	inFlight []state.InFlight
	// encoded holds the snapshot encodings of the states entries recorded
	// since the last checkpoint, for the next one to copy.
	encoded format.EncodedStates
	// pristine is the snapshot the journal continues, until an entry is
	// recorded: the fold holds just that, in that order.
	pristine *state.Snapshot
}

var _ state.Journal = (*Journal)(nil)

// Open starts a journal on cfg.Base: it continues the stored snapshot
// (cfg.Continue), or else writes Base as the stack's snapshot and starts
// an empty journal after it.
func Open(ctx context.Context, cfg Config) (*Journal, error) {
	mgr := cfg.Secrets
	j := &Journal{st: cfg.Storage, stack: cfg.Stack, stamp: cfg.Stamp, limitFactor: cfg.LimitFactor, limitExtra: cfg.LimitExtra,
		mgr: mgr, nextSeq: 1}
	j.gathering = j.newBatch()
	var err error
	if j.mac, err = format.NewRecordMAC(mgr); err != nil {
		return nil, err
	}
	snap := *cfg.Base
	if mgr != nil {
		snap.Secrets = &state.SecretsState{Type: mgr.Type(), State: mgr.State()}
	}
	if j.fold, err = state.NewFold(&snap, 0, nil); err != nil {
		return nil, err
	}
	if cfg.Continue != "" {
		j.continueFrom(cfg.Continue)
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
func (j *Journal) continueFrom(data string) {
	j.base, j.inFlight = &snapshotFile{text: data}, nil
	j.snapSize = len(data)
	j.size = 0
	j.limit = j.limitFactor*int64(len(data)) + j.limitExtra
	j.entries = 0
}

// snapshotFile holds the bytes of a stored snapshot file, as read (text)
// or as written (data), for the header of the journal that continues it.
// The header names the file by its BaseID, which is computed only when
// the header is written: for a snapshot with no MAC that is a hash of the
// whole file, which an operation that records nothing never needs.
type snapshotFile struct {
	text string
	data []byte
}

// id is the file's BaseID.
func (f *snapshotFile) id() string {
	if f.data != nil {
		return format.BaseID(f.data)
	}
	return format.BaseIDOfText(f.text)
}

// start writes the header of a journal on the snapshot file j.base names (see
// continueFrom and checkpointLocked), replacing any journal there; in a
// keyed journal it is tagged, chained to nothing, and the next entry's tag
// chains to it. Called with j.mu held and no flush under way (nothing has
// been handed to storage since the checkpoint, whose flushLocked waited
// for the last flush); an error is sticky, as for every storage error.
func (j *Journal) start(ctx context.Context) error {
	header := format.HeaderRecord(j.base.id(), j.nextSeq, j.inFlight, j.mac)
	if err := j.st.WriteJournal(ctx, header); err != nil {
		j.err = fmt.Errorf("starting the journal of stack %q: %w", j.stack, err)
		return j.err
	}
	if j.mac != nil {
		copy(j.chain[:], header[len(header)-format.MACSize:])
	}
	j.started = true
	j.base, j.inFlight = nil, nil
	j.size += int64(len(header))
	return nil
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
func (j *Journal) ready(ctx context.Context) error {
	if err := j.usable(); err != nil {
		return err
	}
	if j.base != nil {
		// The header is the first record of the journal every later entry
		// is written to: the caller's cancellation must not cut it short.
		return j.start(context.WithoutCancel(ctx))
	}
	return nil
}

// usable refuses an entry once the journal is closed or has failed.
func (j *Journal) usable() error {
	if j.closed {
		return state.ErrJournalClosed
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
func (j *Journal) checkpointLocked(ctx context.Context, lazy bool) (*state.Snapshot, error) {
	if j.err != nil {
		return nil, j.err
	}
	snap, inFlight := j.fold.Checkpoint()
	snap.Manifest = j.stamp()
	// Unknown values need no search: the base was checked when the journal
	// opened, and every entry's resources when it was applied.
	if err := snap.VerifyKnownIntegrity(); err != nil {
		return nil, fmt.Errorf("not writing stack %q: %w", j.stack, err)
	}
	data, err := format.EncodeSnapshot(ctx, snap, j.mgr, j.snapSize, &j.encoded)
	if err != nil {
		return nil, fmt.Errorf("encoding stack %q: %w", j.stack, err)
	}
	j.encoded.Reset()
	if err := j.st.WriteSnapshot(ctx, data); err != nil {
		return nil, fmt.Errorf("writing stack %q: %w", j.stack, err)
	}
	// From here on the journal is empty: failing to start it again means
	// no later entry could be replayed, so the journal stops (see start).
	j.started = false
	j.fold.SetManifest(snap.Manifest)
	// Everything folded is in the snapshot now: what was framed and not
	// yet written belongs to the journal just replaced, and the Appends
	// that wait for it are done.
	j.settleGathered()
	j.snapSize = len(data)
	j.size = 0
	j.limit = j.limitFactor*int64(len(data)) + j.limitExtra
	j.entries = 0
	j.base, j.inFlight = &snapshotFile{data: data}, inFlight
	if !lazy {
		if err := j.start(ctx); err != nil {
			return nil, err
		}
	}
	return snap, nil
}

// Snapshot implements Journal.
func (j *Journal) Snapshot() (*state.Snapshot, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return nil, state.ErrJournalClosed
	}
	return j.fold.Snapshot(), nil
}

// Commit implements Journal.
func (j *Journal) Commit(ctx context.Context) (*state.Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.usable(); err != nil {
		return nil, err
	}
	j.quiesceLocked()
	if j.pristine != nil {
		return j.pristine, nil // nothing recorded: no need to sort the stack again
	}
	// Every step has ended: the operation's renames settle in the
	// snapshot it leaves.
	settled := j.fold.Settle()
	if !settled && j.entries == 0 && (j.started || j.base != nil) {
		// Nothing since the last checkpoint: the stored snapshot is the
		// fold already, and rewriting it would make an unchanged rerun
		// cost a full snapshot write.
		return j.fold.Snapshot(), nil
	}
	return j.checkpointLocked(ctx, true)
}

// Close implements Journal. Entries appended before it are written and
// synced first; entries appended from then on are refused with
// ErrJournalClosed. It returns once the journal's writer has stopped, its
// appenders told.
func (j *Journal) Close(ctx context.Context) error {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return nil
	}
	j.quiesceLocked()
	var err error
	if j.err == nil && j.started {
		// The batch is shared by the entries of many steps: the caller's
		// cancellation must not cut its write short.
		err = j.flushHeldLocked(context.WithoutCancel(ctx))
	}
	j.closed = true
	// A journal with no entries since its checkpoint adds nothing to the
	// snapshot; remove it to leave the stack tidy.
	if err == nil && j.err == nil && j.entries == 0 {
		err = j.st.WriteJournal(ctx, nil)
	}
	j.mu.Unlock()
	j.writer.Wait()
	return err
}
