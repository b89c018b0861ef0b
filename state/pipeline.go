package state

import (
	"context"
	"fmt"
	"sync"
)

// This file is how entries reach storage. Whoever records an entry encodes
// it on its own goroutine and folds it under the journal's mutex, which is
// held for the fold and the framing only, never for I/O. What has been
// framed is then written in order by one writer at a time (writing), and
// made durable by syncs that may overlap the next write (syncing):
//
//   - Record writes its own entry, outside the mutex, unless a write is
//     under way: another Record writing hands its batch on and writes this
//     one too before it returns; the writer goroutine's write is waited
//     for. Either way every entry is written once all Records recording
//     it have returned, and none waits for a sync.
//   - Enqueue (the engine's step ends) only folds: the writer goroutine
//     writes the entry next, after Enqueue has returned.
//   - AppendAsync leaves its entry to the writer goroutine, which writes
//     it and then syncs everything written so far, and calls back every
//     Append the sync made durable: all the Appends that arrived during
//     one sync share the next (group commit). Append does the same, but
//     when no writer runs it takes the writer's part itself until its
//     entry is durable, rather than start one and wait for it.
//
// The writer goroutine starts when it has work and ends when it has none;
// Close waits for it. Under SyncEveryEntry there is no writer: each entry
// is written and synced on its own, under the mutex. Under SyncNever, and
// on a backend (whose write is its commit), an entry is as durable as it
// gets once it is written.

// waiter is an Append waiting for its entry to be durable.
type waiter struct {
	seq  uint64
	done func(seq uint64, err error)
}

// How an entry is settled once it is folded.
const (
	settleWrite   = iota // Record: written before the call returns
	settleEnqueue        // Enqueue: left to the writer goroutine
	settleDurable        // AppendAsync: done once durable, called back
	settleLead           // Append: done once durable, on the caller's goroutine
)

// submit encodes e and folds it, then settles it as how says. done is
// called exactly once with the outcome: before submit returns if e is
// refused or needs no more, else from the writer goroutine.
func (j *journal) submit(ctx context.Context, e Entry, how int, done func(uint64, error)) {
	if err := j.check(ctx, &e); err != nil {
		done(0, err)
		return
	}
	buf := entryBuffers.Get().(*[]byte)
	payload, newAt, unknowns, err := encodeEntry(ctx, (*buf)[:0], &e, j.mgr)
	if err != nil {
		done(0, encodeFailed(buf, err))
		return
	}
	*buf = payload
	j.enter(&e, buf, newAt, !unknowns, how, done)
}

// enter folds the encoded entry e (its payload in buf, which it recycles)
// and frames its record, then settles it. newAt is where the payload holds
// New as a snapshot encodes it (see encodeEntry), or -1.
func (j *journal) enter(e *Entry, buf *[]byte, newAt int, known bool, how int, done func(uint64, error)) {
	j.mu.Lock()
	if err := j.ready(); err != nil {
		j.mu.Unlock()
		recycle(buf)
		done(0, err)
		return
	}
	e.Seq = j.nextSeq
	if err := j.fold.apply(e, known); err != nil {
		j.mu.Unlock()
		recycle(buf)
		done(0, err)
		return
	}
	seq := j.nextSeq
	j.nextSeq++
	j.entries++
	j.pristine = nil
	if newAt >= 0 && known {
		j.encoded.put(e.New, (*buf)[newAt:len(*buf)-1])
	}
	j.frame(seq, *buf)
	recycle(buf)
	var err error
	switch {
	case j.c.opts.sync == SyncEveryEntry:
		err = j.flushLocked()
	case how == settleLead && !j.writerRunning:
		// The caller waits anyway: it writes and syncs itself, as the
		// writer would, rather than wake the writer and wait for it.
		j.awaiting = append(j.awaiting, waiter{seq: seq, done: done})
		ready := j.leadLocked(seq)
		j.mu.Unlock()
		deliver(ready)
		return
	case how >= settleDurable || j.isBackend():
		// A backend has nothing between memory and durable: a Record is
		// not ordered until it is committed, like an Append.
		j.awaiting = append(j.awaiting, waiter{seq: seq, done: done})
		j.wakeWriter()
		j.mu.Unlock()
		return
	case how == settleEnqueue:
		j.wakeWriter()
	default:
		err = j.writeOwnLocked()
	}
	j.mu.Unlock()
	done(seqOrZero(seq, err), err)
}

func seqOrZero(seq uint64, err error) uint64 {
	if err != nil {
		return 0
	}
	return seq
}

// isBackend reports whether the journal writes to a backend, whose write
// is its commit. Called with j.mu held.
func (j *journal) isBackend() bool {
	_, backend := j.app.(backendAppender)
	return backend
}

// wakeWriter starts the writer goroutine unless it runs. Called with j.mu
// held.
func (j *journal) wakeWriter() {
	if !j.writerRunning {
		j.writerRunning = true
		j.pipes.Add(1)
		go j.writeLoop()
	}
}

// writeOwnLocked makes sure a Record's entry, framed into the batch, is
// written before the Record returns: it writes the batch itself, outside
// the mutex, and again whatever other Records hand on to it meanwhile —
// unless another Record is writing, which then writes this one too. A
// write of the writer goroutine is waited for; a sync is not. Called with
// j.mu held; returns with it held.
func (j *journal) writeOwnLocked() error {
	for j.writing {
		if j.writingRecord {
			return nil // it writes the batch before its Record returns
		}
		j.cond.Wait()
	}
	if j.paused {
		return nil // a checkpoint holds the entry, or the writer writes it
	}
	j.writingRecord = true
	for len(j.buf) > 0 && j.err == nil {
		j.writeBufLocked()
	}
	j.writingRecord = false
	if j.needsSync() {
		j.wakeWriter() // an Append waits for what was written
	}
	return j.err
}

// writeLoop is the writer goroutine: it writes what has been framed and
// syncs what Appends wait for, calling them back, until there is nothing
// left to do.
func (j *journal) writeLoop() {
	defer j.pipes.Done()
	j.mu.Lock()
	for {
		for j.paused || j.writing {
			j.cond.Wait()
		}
		if j.err != nil || j.closed {
			ready := j.failAwaiting()
			j.writerRunning = false
			j.cond.Broadcast()
			j.mu.Unlock()
			deliver(ready)
			return
		}
		wrote := len(j.buf) > 0
		if wrote {
			j.writeBufLocked()
			j.compactIfDue()
		}
		if j.needsSync() {
			j.syncLocked()
		} else if j.app != nil && j.writeIsDurable() {
			j.durable = j.written
		}
		ready := j.takeDurable()
		if !wrote && len(ready) == 0 && len(j.buf) == 0 && !j.needsSync() {
			j.writerRunning = false
			j.cond.Broadcast()
			j.mu.Unlock()
			return
		}
		j.mu.Unlock()
		deliver(ready)
		j.mu.Lock()
	}
}

// leadLocked takes the writer's part on the caller's goroutine until the
// entry seq is durable, then hands whatever remains to the writer
// goroutine, and returns the Appends that are done. Called with j.mu held
// and no writer running; returns with it held.
func (j *journal) leadLocked(seq uint64) []waiter {
	j.writerRunning = true
	for j.durable < seq && j.err == nil && !j.closed {
		if j.paused || j.writing {
			j.cond.Wait()
			continue
		}
		if len(j.buf) > 0 {
			j.writeBufLocked()
			j.compactIfDue()
			continue
		}
		if j.needsSync() {
			j.syncLocked()
		} else if j.writeIsDurable() {
			j.durable = j.written
		}
	}
	ready := j.takeDurable()
	if j.err != nil || j.closed {
		ready = append(ready, j.failAwaiting()...)
	}
	j.writerRunning = false
	j.cond.Broadcast()
	if len(j.buf) > 0 || len(j.awaiting) > 0 {
		j.wakeWriter()
	}
	return ready
}

// compactIfDue folds a journal that has outgrown its bound into a new
// snapshot. A failed compaction changes nothing durable; it is tried again
// once the journal has doubled, and Commit reports a lasting problem.
// Called by the writer (or an Append leading) with j.mu held.
func (j *journal) compactIfDue() {
	if j.size <= j.limit || j.closed || j.err != nil {
		return
	}
	j.quiesceLocked()
	if _, err := j.checkpointLocked(context.Background(), false); err != nil && j.err == nil {
		j.limit = 2 * j.size
	}
	j.paused = false
	j.cond.Broadcast()
}

// needsSync reports whether an Append waits for an entry that is written
// but not durable. Called with j.mu held.
func (j *journal) needsSync() bool {
	return len(j.awaiting) > 0 && j.awaiting[0].seq <= j.written && j.written > j.durable &&
		j.app != nil && !j.writeIsDurable()
}

// writeBufLocked writes the framed batch outside the mutex (writing set:
// one write at a time, and a checkpoint waits for it) and records how far
// the journal is written. Called with j.mu held; returns with it held.
func (j *journal) writeBufLocked() {
	data := j.buf
	j.buf, j.spare = j.spare[:0], nil
	last := j.nextSeq - 1
	j.size += int64(len(data))
	j.writing = true
	j.mu.Unlock()
	err := j.write(data)
	j.mu.Lock()
	j.writing = false
	j.keepSpare(data)
	if err != nil {
		j.fail(err)
	} else {
		j.written = last
	}
	j.cond.Broadcast()
}

// syncLocked syncs everything written so far, outside the mutex (syncing
// set; writes may go on meanwhile). Called by the writer goroutine with
// j.mu held; returns with it held.
func (j *journal) syncLocked() {
	target, app := j.written, j.app
	j.syncing = true
	j.mu.Unlock()
	err := app.sync()
	j.mu.Lock()
	j.syncing = false
	if err != nil {
		j.fail(err)
	} else if target > j.durable {
		j.durable = target
	}
	j.cond.Broadcast()
}

// fail records a storage error: it is sticky, and the journal accepts no
// more entries. Called with j.mu held.
func (j *journal) fail(err error) {
	if j.err == nil {
		j.err = err
	}
}

// writeIsDurable reports whether a written entry needs no sync to count
// as durable under the journal's policy and storage.
func (j *journal) writeIsDurable() bool {
	return j.c.opts.sync == SyncNever || j.isBackend()
}

// takeDurable removes and returns the waiting Appends that are durable
// now. Called with j.mu held.
func (j *journal) takeDurable() []waiter {
	n := 0
	for n < len(j.awaiting) && j.awaiting[n].seq <= j.durable {
		n++
	}
	if n == 0 {
		return nil
	}
	out := make([]waiter, n)
	copy(out, j.awaiting[:n])
	rest := copy(j.awaiting, j.awaiting[n:])
	clear(j.awaiting[rest:])
	j.awaiting = j.awaiting[:rest]
	return out
}

// failAwaiting fails every waiting Append — with the journal's sticky
// error, or ErrJournalClosed — and returns them. Called with j.mu held.
func (j *journal) failAwaiting() []waiter {
	if len(j.awaiting) == 0 {
		return nil
	}
	err := j.err
	if err == nil {
		err = ErrJournalClosed
	}
	out := make([]waiter, len(j.awaiting))
	for i, w := range j.awaiting {
		out[i] = waiter{done: func(uint64, error) { w.done(0, err) }}
	}
	clear(j.awaiting)
	j.awaiting = j.awaiting[:0]
	return out
}

// deliver calls back Appends that are done, in order. It runs without
// locks: a callback may record the next entry.
func deliver(ws []waiter) {
	for _, w := range ws {
		w.done(w.seq, nil)
	}
}

// quiesceLocked holds the pipeline still: it returns, with j.mu held and
// paused set, once no write or sync runs outside the mutex. The caller
// clears paused with resumeLocked.
func (j *journal) quiesceLocked() {
	j.paused = true
	for j.writing || j.syncing {
		j.cond.Wait()
	}
}

// resumeLocked lets the pipeline go on after quiesceLocked, waking the
// writer for what was framed or awaited meanwhile.
func (j *journal) resumeLocked() {
	j.paused = false
	j.cond.Broadcast()
	if len(j.buf) > 0 || len(j.awaiting) > 0 {
		j.wakeWriter()
	}
}

// flushLocked writes and syncs (unless the policy is SyncNever) everything
// framed, holding the mutex, once no write or sync runs outside it.
func (j *journal) flushLocked() error {
	for j.writing || j.syncing {
		j.cond.Wait()
	}
	if j.err != nil {
		return j.err
	}
	if len(j.buf) > 0 {
		if err := j.write(j.buf); err != nil {
			j.fail(err)
			return err
		}
		j.size += int64(len(j.buf))
		j.buf = j.buf[:0]
	}
	j.written = j.nextSeq - 1
	if j.written > j.durable && j.c.opts.sync != SyncNever {
		if err := j.app.sync(); err != nil {
			j.fail(err)
			return err
		}
	}
	j.durable = j.written
	return nil
}

// frame appends the record of entry seq to the batch: when the journal
// is keyed, with room for a tag that write fills in. Called with j.mu
// held, in Seq order.
func (j *journal) frame(seq uint64, payload []byte) {
	if j.mac == nil {
		j.buf = appendRecord(j.buf, recordEntry, seq, payload)
		return
	}
	j.buf = appendUnsealed(j.buf, recordTaggedEntry, seq, payload)
}

// write seals a batch of records — when the journal is keyed, fills in
// their tags, chained to the records written before them — and writes it.
// Called by the writer outside the mutex (writing set), or with j.mu held
// while the writer is quiet.
func (j *journal) write(batch []byte) error {
	if j.mac != nil {
		sealRecords(batch, j.mac, &j.chain)
	}
	return j.app.write(batch)
}

// keepSpare keeps a written batch's buffer for the batch after next: when
// thousands of steps begin at once a batch holds megabytes, and growing a
// fresh buffer to that size again was most of appendRecord's time.
func (j *journal) keepSpare(batch []byte) {
	if cap(batch) <= maxSpareBatch {
		j.spare = batch[:0]
	}
}

// syncWaiter turns a callback into a wait, for Append and Record.
type syncWaiter struct {
	ch  chan struct{}
	fn  func(uint64, error)
	seq uint64
	err error
}

var syncWaiters = sync.Pool{New: func() any {
	w := &syncWaiter{ch: make(chan struct{}, 1)}
	w.fn = func(seq uint64, err error) {
		w.seq, w.err = seq, err
		w.ch <- struct{}{}
	}
	return w
}}

// await records e, settled as how says, and waits until it is done.
func (j *journal) await(ctx context.Context, e Entry, how int) (uint64, error) {
	w := syncWaiters.Get().(*syncWaiter)
	j.submit(ctx, e, how, w.fn)
	<-w.ch
	seq, err := w.seq, w.err
	w.seq, w.err = 0, nil
	syncWaiters.Put(w)
	return seq, err
}

// encodeFailed returns the buffer an entry failed to encode into to the
// pool and wraps the failure.
func encodeFailed(buf *[]byte, err error) error {
	entryBuffers.Put(buf)
	return fmt.Errorf("encoding a journal entry: %w", err)
}
