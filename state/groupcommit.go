package state

// This file is how the journal's records reach storage: framing them into
// the batch, sealing a keyed batch's tags, the group commit (one writer
// at a time writes and syncs everything buffered, and the others wait for
// it), and Record's hand-off of its records to the operating system.

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
// Called by the one goroutine that writes: the one that set flushing, or
// one holding j.mu while no flush is under way.
func (j *journal) write(batch []byte) error {
	if j.mac != nil {
		sealRecords(batch, j.mac, &j.chain)
	}
	return j.app.write(batch)
}

// settle makes the record with this seq durable (wait) or, under
// GroupCommit without wait, hands the buffer to the operating system: at
// once, or when the leader flushing now is done (handOffLocked). A
// backend has nothing between memory and durable, so there it waits.
// Called with j.mu held.
func (j *journal) settle(seq uint64, wait bool) error {
	if wait || j.c.opts.sync != GroupCommit {
		return j.waitDurable(seq)
	}
	if _, ok := j.app.(backendAppender); ok {
		// A backend's write is its commit: there is no ordered but not
		// yet durable place to hand the entry to, and one left in memory
		// would be lost if the operation then stalled.
		return j.waitDurable(seq)
	}
	if j.flushing {
		j.handOff = true // the writer writes it when its flush is done
		return nil
	}
	if len(j.buf) == 0 {
		return nil
	}
	return j.handOut()
}

// handOut writes the buffer, which is not empty, without a sync. Called
// with j.mu held and no flush under way.
//
// An unkeyed journal writes it under the mutex: handing bytes to the
// operating system is short. A keyed one must seal them first, and the
// HMAC is not to run under the mutex (see journal.mac): it takes the
// buffer and writes it outside the mutex as a leader does, flushing set,
// so that entries keep arriving meanwhile. What Record leaves in the
// buffer during that write (handOff) is written next, in turn; an Append
// that arrives meanwhile waits for the write and then leads its own flush,
// which syncs whatever came before it.
func (j *journal) handOut() error {
	if j.mac == nil {
		if err := j.app.write(j.buf); err != nil {
			j.err = err
			j.cond.Broadcast()
			return err
		}
		j.buf = j.buf[:0]
		return nil
	}
	for {
		batch := j.buf
		j.buf, j.spare = j.spare[:0], nil
		j.flushing = true
		j.mu.Unlock()
		err := j.write(batch)
		j.mu.Lock()
		j.keepSpare(batch)
		j.flushing = false
		j.cond.Broadcast()
		if err != nil {
			j.err = err
			return err
		}
		if !j.handOff || len(j.buf) == 0 {
			return nil
		}
		j.handOff = false
	}
}

// keepSpare keeps a written batch's buffer for the batch after next: when
// thousands of steps begin at once a batch holds megabytes, and growing a
// fresh buffer to that size again was most of appendRecord's time.
func (j *journal) keepSpare(batch []byte) {
	if cap(batch) <= maxSpareBatch {
		j.spare = batch[:0]
	}
}

// waitDurable returns once the record with this seq is durable. Under
// GroupCommit, the first waiter becomes the leader: it takes the whole
// buffer, writes and syncs it outside the mutex, and wakes everyone; the
// records that arrive meanwhile form the next batch. Called with j.mu held.
func (j *journal) waitDurable(seq uint64) error {
	if j.c.opts.sync != GroupCommit {
		return j.flushLocked()
	}
	for j.durable < seq {
		if j.err != nil {
			return j.err
		}
		if j.flushing {
			j.cond.Wait()
			continue
		}
		j.flushing = true
		// The spare buffer becomes the batch being gathered, and stops
		// being the spare: left there, it would still be handed out after
		// a batch too large to keep as the next spare, while in use.
		batch, upTo := j.buf, j.nextSeq-1
		j.buf, j.spare = j.spare[:0], nil
		j.mu.Unlock()
		err := j.write(batch)
		if err == nil {
			err = j.app.sync()
		}
		j.mu.Lock()
		j.keepSpare(batch)
		j.flushing = false
		if err != nil {
			j.err = err
		} else {
			j.durable = upTo
		}
		j.cond.Broadcast()
		if err == nil {
			// An error here is sticky; this record is durable all the same.
			_ = j.handOffLocked()
		}
	}
	return nil
}

// handOffLocked writes (without a sync) what Record left in the buffer
// while a flush was under way, so that it reaches the operating system
// now rather than with whatever Append comes next, which may be a long
// time away (a step waiting on a slow provider). A later sync covers it.
func (j *journal) handOffLocked() error {
	if !j.handOff || j.flushing || len(j.buf) == 0 {
		return nil
	}
	j.handOff = false
	return j.handOut()
}

// flushLocked writes the buffer while holding the mutex, after any leader
// has finished, and syncs unless the policy is SyncNever.
func (j *journal) flushLocked() error {
	for j.flushing {
		j.cond.Wait()
	}
	if j.err != nil {
		return j.err
	}
	if len(j.buf) > 0 {
		err := j.write(j.buf)
		if err == nil && j.c.opts.sync != SyncNever {
			err = j.app.sync()
		}
		if err != nil {
			j.err = err
			j.cond.Broadcast()
			return err
		}
		j.buf = j.buf[:0]
	}
	j.durable = j.nextSeq - 1
	j.cond.Broadcast()
	return nil
}
