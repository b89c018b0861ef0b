package store

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

// journal is the Journal of every store: a Fold in memory, framed records
// in storage, and group commit between them (pipeline.go): whoever
// appends an entry encodes it, folds it and frames its record into the
// batch being gathered, whose first Append writes and syncs it once the
// batch ahead is written; then every Append it holds returns.
type journal struct {
	c     *core
	stack string
	mgr   secrets.Manager
	// mac tags the records when mgr can authenticate. An entry's record is
	// framed with room for its tag; write seals the batch in order,
	// chaining from chain, just before it is written, outside mu. mac's
	// state and chain belong to whoever writes: the Append flushing, or a
	// holder of mu while no flush runs.
	mac *format.RecordMAC

	mu   sync.Mutex
	fold *state.Fold
	app  appender
	// nextSeq is the Seq the next entry folded gets.
	nextSeq uint64
	// gathering is the batch whose records are being framed into buf;
	// flushing is the batch being written outside mu (nil for none).
	gathering, flushing *batch
	buf, spare          []byte // the records of gathering, and a spare
	err                 error  // sticky storage error
	closed              bool
	size                int64                // journal bytes written since the checkpoint
	limit               int64                // compact when size exceeds this
	snapSize            int                  // size of the last snapshot written
	entries             int                  // entries since the last checkpoint
	chain               [format.MACSize]byte // tag of the last record sealed (with mac)
	// base names the snapshot file the journal's header is still to be
	// written for (its BaseID), with the steps in flight in it (see
	// start); "" once it is.
	base     string
	inFlight []state.InFlight
	// encoded holds the snapshot encodings of the states entries recorded
	// since the last checkpoint, for the next one to copy.
	encoded format.EncodedStates
	// pristine is the snapshot the journal continues, until an entry is
	// recorded: the fold holds just that, in that order.
	pristine *state.Snapshot
}

var _ state.Journal = (*journal)(nil)

func openJournal(ctx context.Context, c *core, stack string, base *state.Snapshot) (*journal, error) {
	mgr, err := c.manager(ctx, stack, base.Secrets)
	if err != nil {
		return nil, err
	}
	j := &journal{c: c, stack: stack, mgr: mgr, nextSeq: 1, gathering: newBatch()}
	if j.mac, err = format.NewRecordMAC(mgr); err != nil {
		return nil, err
	}
	snap := *base
	if mgr != nil {
		snap.Secrets = &state.SecretsState{Type: mgr.Type(), State: mgr.State()}
	}
	if j.fold, err = state.NewFold(&snap, 0, nil); err != nil {
		return nil, err
	}
	if data, ok := c.continuing(ctx, stack, base, mgr); ok {
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
func (j *journal) continueFrom(data string) error {
	j.base, j.inFlight = format.BaseIDOfText(data), nil
	j.snapSize = len(data)
	j.size = 0
	j.limit = j.c.opts.JournalLimitFactor*int64(len(data)) + j.c.opts.JournalLimitExtra
	j.entries = 0
	return nil
}

// start writes the header of a journal on the snapshot file j.base names (see
// continueFrom and checkpointLocked), replacing any journal there; in a
// keyed journal it is tagged, chained to nothing, and the next entry's tag
// chains to it. Called with j.mu held and no flush under way (nothing has
// been handed to storage since the checkpoint, whose flushLocked waited
// for the last flush); an error is sticky, as for every storage error.
func (j *journal) start(ctx context.Context) error {
	header := format.HeaderRecord(j.base, j.nextSeq, j.inFlight, j.mac)
	st := j.c.st
	err := st.replace(ctx, j.stack, fileJournal, header)
	if err == nil {
		j.app, err = st.openAppend(ctx, j.stack, fileJournal)
	}
	if err != nil {
		j.err = fmt.Errorf("starting the journal of stack %q: %w", j.stack, err)
		return j.err
	}
	if j.mac != nil {
		copy(j.chain[:], header[len(header)-format.MACSize:])
	}
	j.base, j.inFlight = "", nil
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
func (j *journal) ready(ctx context.Context) error {
	if err := j.usable(); err != nil {
		return err
	}
	if j.base != "" {
		return j.start(ctx)
	}
	return nil
}

// usable refuses an entry once the journal is closed or has failed.
func (j *journal) usable() error {
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
func (j *journal) checkpointLocked(ctx context.Context, lazy bool) (*state.Snapshot, error) {
	if j.err != nil {
		return nil, j.err
	}
	snap, inFlight := j.fold.Checkpoint()
	snap.Manifest = j.c.stamp()
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
	if err := j.c.replaceSnapshot(ctx, j.stack, data); err != nil {
		return nil, fmt.Errorf("writing stack %q: %w", j.stack, err)
	}
	// From here on the old journal is stale: failing to start the new one
	// means no later entry could be replayed, so the journal stops.
	if j.app != nil {
		err := j.app.close()
		j.app = nil
		if err != nil {
			j.err = fmt.Errorf("restarting the journal of stack %q: %w", j.stack, err)
			return nil, j.err
		}
	}
	j.fold.SetManifest(snap.Manifest)
	// Everything folded is in the snapshot now: what was framed and not
	// yet written belongs to the journal just replaced, and the Appends
	// that wait for it are done.
	j.settleGathered()
	j.snapSize = len(data)
	j.size = 0
	j.limit = j.c.opts.JournalLimitFactor*int64(len(data)) + j.c.opts.JournalLimitExtra
	j.entries = 0
	j.base, j.inFlight = format.BaseID(data), inFlight
	if !lazy {
		if err := j.start(ctx); err != nil {
			return nil, err
		}
	}
	return snap, nil
}

// Snapshot implements Journal.
func (j *journal) Snapshot() (*state.Snapshot, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return nil, state.ErrJournalClosed
	}
	return j.fold.Snapshot(), nil
}

// Commit implements Journal.
func (j *journal) Commit(ctx context.Context) (*state.Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.usable(); err != nil {
		return nil, err
	}
	j.quiesceLocked()
	switch {
	case j.pristine != nil:
		return j.pristine, nil // nothing recorded: no need to sort the stack again
	}
	// Every step has ended: the operation's renames settle in the
	// snapshot it leaves.
	settled := j.fold.Settle()
	if !settled && j.entries == 0 && (j.app != nil || j.base != "") {
		// Nothing since the last checkpoint: the stored snapshot is the
		// fold already, and rewriting it would make an unchanged rerun
		// cost a full snapshot write.
		return j.fold.Snapshot(), nil
	}
	return j.checkpointLocked(ctx, true)
}

// Close implements Journal. Entries appended before it are written and
// synced first; entries appended from then on are refused with
// ErrJournalClosed.
func (j *journal) Close(ctx context.Context) error {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return nil
	}
	j.quiesceLocked()
	var err error
	if j.err == nil && j.app != nil {
		err = j.flushHeldLocked(context.WithoutCancel(ctx))
	}
	j.closed = true
	if j.app != nil {
		if cerr := j.app.close(); err == nil {
			err = cerr
		}
		j.app = nil
	}
	// A journal with no entries since its checkpoint adds nothing to the
	// snapshot; remove it to leave the stack tidy.
	if err == nil && j.err == nil && j.entries == 0 {
		err = j.c.st.remove(ctx, j.stack, fileJournal)
	}
	j.mu.Unlock()
	j.c.journalClosed(j.stack, j)
	return err
}
