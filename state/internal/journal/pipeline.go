package journal

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/internal/format"
)

// This file is how entries reach storage: one path, which AppendAsync and
// Append share. Whoever appends encodes the entry on its own goroutine,
// then, holding the journal's mutex only for that, folds it and frames its
// record into the batch being gathered, and returns (AppendAsync) or waits
// for the batch (Append). The journal's writer, a goroutine of its own,
// takes the batch — the records of every append that arrived since the
// last one was taken — writes it outside the mutex in one
// Storage.AppendJournal, durable when it returns (one fsync for the file
// store), settles it, and goes on with the batch gathered meanwhile. It is
// started by the append that finds no batch being written, stops once a
// batch it took is settled and none has been gathered since, and Close
// waits for it. Concurrent steps therefore share one sync per batch (group
// commit), and no appender ever writes: a step that hands its entry to
// the journal is free to do other work while the batch is synced.
//
// Settling a batch closes its done channel, which returns every Append
// waiting in it, and calls the callbacks of the AppendAsyncs it holds: an
// entry waiting for durability holds a goroutine only when its appender
// chose to wait (Append).

// batch is a group of records written and synced together.
type batch struct {
	done    chan struct{} // closed once the batch is durable, or failed
	err     error         // why it failed; read after done is closed
	records int           // records framed into it
	// waiting are the AppendAsyncs whose records it holds.
	waiting []waiter
}

// waiter is an AppendAsync waiting for its entry's batch.
type waiter struct {
	seq  uint64
	done func(seq uint64, err error)
}

// newBatch starts the next batch, its waiters gathered into the slice
// of a batch already settled (see notify). Called with j.mu held.
func (j *Journal) newBatch() *batch {
	b := &batch{done: make(chan struct{}), waiting: j.spareWaiting}
	j.spareWaiting = nil
	return b
}

// notify tells b's AppendAsyncs how b was settled, and returns b's
// waiters emptied, for a later batch to gather into.
func (b *batch) notify() []waiter {
	for _, w := range b.waiting {
		if b.err != nil {
			w.done(0, b.err)
		} else {
			w.done(w.seq, nil)
		}
	}
	ws := b.waiting
	clear(ws) // the callbacks and what they hold go with their batch
	b.waiting = nil
	return ws[:0]
}

// Append implements state.Journal: it returns once e is durable. The
// write it waits for is shared with the entries of other steps, so it is
// made with ctx stripped of its cancellation (context.WithoutCancel): a
// cancelled caller does not cut it short for the others.
func (j *Journal) Append(ctx context.Context, e state.Entry) (uint64, error) {
	seq, b, err := j.enter(ctx, &e, nil)
	if err != nil {
		return 0, err
	}
	<-b.done
	if b.err != nil {
		return 0, b.err
	}
	return seq, nil
}

// AppendAsync records e as Append does, without waiting for it: done is
// called exactly once, with e's Seq once e is durable, or with the error
// that refused or lost it. It is called before AppendAsync returns for an
// entry refused at once, and otherwise on the goroutine that wrote or
// settled e's batch (the journal's writer, or a Commit or Close that
// wrote it), possibly with the journal's mutex held: done must return
// quickly and must not call the journal.
func (j *Journal) AppendAsync(ctx context.Context, e state.Entry, done func(seq uint64, err error)) {
	if _, _, err := j.enter(ctx, &e, done); err != nil {
		done(0, err)
	}
}

// enter encodes e, folds it and frames its record into the batch being
// gathered, and returns its Seq and that batch. done, when not nil, is
// called once the batch is settled. If no batch is being written, it
// starts the journal's writer.
func (j *Journal) enter(ctx context.Context, e *state.Entry, done func(uint64, error)) (uint64, *batch, error) {
	if err := ctx.Err(); err != nil {
		return 0, nil, err
	}
	e.Seq = 0
	if err := e.Validate(); err != nil {
		return 0, nil, err
	}
	buf := entryBuffers.Get().(*[]byte)
	defer recycle(buf)
	payload, newAt, unknowns, err := format.EncodeEntry(ctx, (*buf)[:0], e, j.mgr)
	*buf = payload
	if err != nil {
		return 0, nil, fmt.Errorf("encoding a journal entry: %w", err)
	}
	j.mu.Lock()
	seq, err := j.enterLocked(ctx, e, payload, newAt, !unknowns)
	if err != nil {
		j.mu.Unlock()
		return 0, nil, err
	}
	b := j.gathering
	if done != nil {
		b.waiting = append(b.waiting, waiter{seq: seq, done: done})
	}
	if !j.writing {
		j.writing = true
		j.writer.Add(1)
		// The entry's record is written with other steps' entries: the
		// caller's cancellation must not cut that write short.
		go j.writeLoop(context.WithoutCancel(ctx))
	}
	j.mu.Unlock()
	return seq, b, nil
}

// enterLocked folds the encoded entry e (payload) and frames its record
// into the batch being gathered, and returns its Seq. newAt is where
// payload holds New as a snapshot encodes it (see EncodeEntry), or -1;
// known says e's resources hold no unknown value. Called with j.mu held.
func (j *Journal) enterLocked(ctx context.Context, e *state.Entry, payload []byte, newAt int, known bool) (uint64, error) {
	if err := j.ready(ctx); err != nil {
		return 0, err
	}
	e.Seq = j.nextSeq
	if err := apply(j.fold, e, known); err != nil {
		return 0, err
	}
	seq := j.nextSeq
	j.nextSeq++
	j.entries++
	j.pristine = nil
	if newAt >= 0 && known {
		j.encoded.Put(e.New, payload[newAt:len(payload)-1])
	}
	j.frame(seq, payload)
	j.gathering.records++
	return seq, nil
}

// writeLoop is the journal's writer goroutine: it writes the batch being
// gathered, then each batch gathered while it wrote, until none holds a
// record (a checkpoint or Close may have written them first), and tells
// each batch's appenders. Started by the appender that set j.writing;
// Close waits for it (j.writer).
func (j *Journal) writeLoop(ctx context.Context) {
	defer j.writer.Done()
	j.mu.Lock()
	for j.gathering.records > 0 {
		b := j.flushLocked(ctx)
		j.mu.Unlock()
		spare := b.notify()
		j.mu.Lock()
		j.spareWaiting = spare
	}
	j.writing = false
	j.mu.Unlock()
}

// flushLocked writes and syncs the batch being gathered, outside the
// mutex, then compacts the journal if it outgrew its bound, and returns
// the batch, settled. Called with j.mu held and no batch being written;
// returns with it held.
func (j *Journal) flushLocked(ctx context.Context) *batch {
	b, data := j.gathering, j.buf
	j.gathering, j.buf, j.spare = j.newBatch(), j.spare[:0], nil
	if j.err != nil {
		j.settle(b, j.err) // nothing more reaches storage
		return b
	}
	j.flushing = b
	j.mu.Unlock()
	err := j.write(ctx, data)
	j.mu.Lock()
	j.flushing = nil
	j.largest = max(j.largest, len(data))
	j.keepSpare(data)
	if err != nil {
		j.fail(err)
	} else {
		j.size += int64(len(data))
	}
	j.settle(b, err)
	j.compactIfDue(ctx)
	return b
}

// settle ends batch b: durable when err is nil, failed otherwise.
// Called with j.mu held.
func (j *Journal) settle(b *batch, err error) {
	if err != nil {
		b.err = fmt.Errorf("the journal of stack %q failed before the entry was durable: %w", j.stack, err)
	}
	close(b.done)
}

// flushHeldLocked writes and syncs the batch being gathered, holding the
// mutex, for Close, which holds it once no batch is being written
// (quiesceLocked).
func (j *Journal) flushHeldLocked(ctx context.Context) error {
	if j.err != nil {
		return j.err
	}
	if len(j.buf) == 0 { // a backend refuses an empty append
		j.settleGathered()
		return nil
	}
	err := j.write(ctx, j.buf)
	if err != nil {
		j.fail(err)
	} else {
		j.size += int64(len(j.buf))
	}
	j.settle(j.gathering, err)
	j.spareWaiting = j.gathering.notify()
	j.gathering, j.buf = j.newBatch(), j.buf[:0]
	return err
}

// compactIfDue folds a journal that has outgrown its bound into a new
// snapshot. A failed compaction changes nothing durable; it is tried again
// once the journal has doubled, and Commit reports a lasting problem.
// Called by the writer that just flushed, with j.mu held and no batch
// being written.
func (j *Journal) compactIfDue(ctx context.Context) {
	if j.size <= j.limit || j.closed || j.err != nil {
		return
	}
	if _, err := j.checkpointLocked(ctx, false); err != nil && j.err == nil {
		j.limit = 2 * j.size
	}
}

// fail records a storage error: it is sticky, and the journal accepts no
// more entries. Called with j.mu held.
func (j *Journal) fail(err error) {
	if j.err == nil {
		j.err = err
	}
}

// quiesceLocked returns, with j.mu held, once no batch is being written
// outside the mutex: until the caller releases j.mu, storage is its alone.
func (j *Journal) quiesceLocked() {
	for j.flushing != nil {
		b := j.flushing
		j.mu.Unlock()
		<-b.done
		j.mu.Lock()
	}
}

// settleGathered ends the batch being gathered as durable, after a
// checkpoint wrote everything folded into a snapshot. Called with j.mu
// held and no batch being written.
func (j *Journal) settleGathered() {
	j.settle(j.gathering, nil)
	j.spareWaiting = j.gathering.notify()
	j.gathering, j.buf = j.newBatch(), j.buf[:0]
}

// frame appends the record of entry seq to the batch: when the journal
// is keyed, with room for a tag that write fills in. Called with j.mu
// held, in Seq order.
func (j *Journal) frame(seq uint64, payload []byte) {
	j.reserve(format.RecordSize(len(payload), j.mac != nil))
	if j.mac == nil {
		j.buf = format.AppendRecord(j.buf, format.RecordEntry, seq, payload)
		return
	}
	j.buf = format.AppendUnsealed(j.buf, format.RecordTaggedEntry, seq, payload)
}

// reserve makes room in the batch being gathered for n more bytes. A
// buffer that must grow grows at once to the largest batch written so
// far (up to the size of a spare kept), or else to twice its size:
// batches grow from one record to thousands as steps begin by the
// thousand, and a buffer grown by append's quarter steps would be copied
// many times over on the way. Called with j.mu held.
func (j *Journal) reserve(n int) {
	if cap(j.buf)-len(j.buf) >= n {
		return
	}
	size := max(len(j.buf)+n, 2*cap(j.buf), min(j.largest, maxSpareBatch), minBatch)
	buf := make([]byte, len(j.buf), size)
	copy(buf, j.buf)
	j.buf = buf
}

// write seals a batch of records — when the journal is keyed, fills in
// their tags, chained to the records written before them — and appends
// it to the stored journal, which makes it durable.
// Called by the Append flushing, outside the mutex, or with j.mu held
// while no flush runs.
func (j *Journal) write(ctx context.Context, batch []byte) error {
	if j.mac != nil {
		format.SealRecords(batch, j.mac, &j.chain)
	}
	return j.st.AppendJournal(ctx, batch)
}

// keepSpare keeps a written batch's buffer for the batch after next: when
// thousands of steps begin at once a batch holds megabytes, and growing a
// fresh buffer to that size again was most of AppendRecord's time.
func (j *Journal) keepSpare(batch []byte) {
	if cap(batch) <= maxSpareBatch {
		j.spare = batch[:0]
	}
}

// apply folds e into f, sparing the search for unknown values when known
// says e's resources hold none.
func apply(f *state.Fold, e *state.Entry, known bool) error {
	if known {
		return f.ApplyKnown(e)
	}
	return f.Apply(*e)
}
