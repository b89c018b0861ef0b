package storetest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// journalReplayAfterCrash: a client that dies mid-operation leaves its
// durable entries for the next Load to replay; steps that began and did not
// end come back as pending operations, which the next operation clears.
func (s *suite) journalReplayAfterCrash(t *testing.T) {
	stack := id("crash-replay")
	crashed := s.open(t)
	lock := mustLock(t, crashed, stack)
	base := chain(0)
	prov := base.Resources[0]
	j := mustOpenJournal(t, crashed, stack, base)
	a, b := newThing("a", prov), newThing("b", prov)
	create(t, j, a)
	begin(t, j, resource.OperationCreating, nil, b)
	a2 := a.Clone()
	a2.Outputs = resource.PropertyMap{"v": resource.NewNumber(2)}
	begin(t, j, resource.OperationUpdating, a, a2)
	live := mustSnapshot(t, j)

	// The client dies here: nothing is committed, closed or unlocked.
	// Another one loads the stack.
	got := mustLoad(t, s.open(t), stack)
	if diff := cmp.Diff(live, got, snapshotOpts); diff != "" {
		t.Errorf("the replayed state differs from the journal's own (-live +replayed):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"creating b", "updating a"}, pendingOf(got)); diff != "" {
		t.Errorf("pending operations (-want +got):\n%s", diff)
	}

	// The next operation inherits the pending operations and resolves
	// them. (The dead client's lock is released here; how a lock outlives
	// its holder is LeaseExpiryAndFencing's business.)
	if err := lock.Unlock(bg()); err != nil {
		t.Fatal(err)
	}
	next := s.open(t)
	mustLock(t, next, stack)
	j2 := mustOpenJournal(t, next, stack, got)
	mustAppend(t, j2, state.Entry{Kind: state.EntryClearPending, Op: resource.OperationCreating, Old: b})
	final, err := j2.Commit(bg())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"updating a"}, pendingOf(final)); diff != "" {
		t.Errorf("pending after clearing one (-want +got):\n%s", diff)
	}
	if err := j2.Close(bg()); err != nil {
		t.Fatal(err)
	}
	if data := s.h.Journal(t, stack); len(data) > 0 {
		t.Errorf("Close after Commit left a journal of %d bytes with no entries behind", len(data))
	}
	if reloaded := mustLoad(t, s.open(t), stack); !cmp.Equal(final, reloaded, snapshotOpts) {
		t.Errorf("Load after Commit:\n%s", cmp.Diff(final, reloaded, snapshotOpts))
	}
}

// journalWithTail records some steps on the stack and returns the journal
// as it was before its last entry and after it, with the states expected
// from each.
func (s *suite) journalWithTail(t *testing.T, stack state.StackID) (before, after []byte, without, with *state.Snapshot) {
	t.Helper()
	st := s.open(t)
	mustLock(t, st, stack)
	base := chain(1)
	j := mustOpenJournal(t, st, stack, base)
	create(t, j, newThing("a", base.Resources[0]))
	c := newThing("c", base.Resources[0])
	c.Outputs["secret"] = resource.NewSecret(resource.NewString("x"))
	seq := begin(t, j, resource.OperationCreating, nil, c)
	without = mustSnapshot(t, j)
	before = s.h.Journal(t, stack)
	mustAppend(t, j, state.Entry{Kind: state.EntrySuccess, Begin: seq, New: c})
	with = mustSnapshot(t, j)
	after = s.h.Journal(t, stack)
	if len(after) <= len(before) || !bytes.HasPrefix(after, before) {
		t.Fatalf("storetest: the journal (%d bytes) did not grow by appending to its %d bytes", len(after), len(before))
	}
	return before, after, without, with
}

// cuts returns offsets from lo to hi (both included): every one when
// there are few, else the first and last few and an even spread between,
// so a slow store is not loaded thousands of times.
func cuts(lo, hi int) []int {
	const most = 160
	var out []int
	for i := lo; i <= hi; {
		out = append(out, i)
		switch {
		case hi-lo <= most, i-lo < 24, hi-i <= 24:
			i++
		default:
			i += max(1, (hi-lo)/most)
			if hi-i < 24 {
				i = hi - 24
			}
		}
	}
	return out
}

// tornFinalEntry: a journal whose last entry was cut short — by a crash
// in the middle of its write, or a tail that never reached the disk —
// loads without that entry.
func (s *suite) tornFinalEntry(t *testing.T) {
	stack := id("torn-tail")
	before, after, without, with := s.journalWithTail(t, stack)
	loader := s.open(t)
	for _, cut := range cuts(len(before), len(after)) {
		s.h.SetJournal(t, stack, after[:cut])
		got, err := loader.Load(bg(), stack)
		if err != nil {
			t.Fatalf("journal cut at byte %d of %d: %v", cut, len(after), err)
		}
		want := without
		if cut == len(after) {
			want = with
		}
		if diff := cmp.Diff(want, got, snapshotOpts); diff != "" {
			t.Fatalf("journal cut at byte %d of %d (-want +got):\n%s", cut, len(after), diff)
		}
	}
	zeros := append(bytes.Clone(before), make([]byte, 300)...)
	s.h.SetJournal(t, stack, zeros)
	if got, err := loader.Load(bg(), stack); err != nil || !cmp.Equal(without, got, snapshotOpts) {
		t.Errorf("journal with a tail of zeros: Load = %v, %v; want the state without its last entry", names(got), err)
	}
	s.h.SetJournal(t, stack, after)
}

// damagedJournal: damage before the last entry is not a torn write; Load
// fails with *CorruptJournalError and leaves the journal alone.
func (s *suite) damagedJournal(t *testing.T) {
	stack := id("damaged-journal")
	before, after, _, _ := s.journalWithTail(t, stack)
	loader := s.open(t)
	for _, i := range cuts(0, len(before)-1) {
		damaged := bytes.Clone(after)
		damaged[i] ^= 0x20
		s.h.SetJournal(t, stack, damaged)
		var ce *state.CorruptJournalError
		if _, err := loader.Load(bg(), stack); !errors.As(err, &ce) {
			t.Fatalf("byte %d of %d flipped: Load = %v; want *CorruptJournalError", i, len(after), err)
		}
		if got := s.h.Journal(t, stack); !bytes.Equal(got, damaged) {
			t.Fatalf("byte %d flipped: Load changed the damaged journal", i)
		}
	}
	s.h.SetJournal(t, stack, after)
}

// editedJournal: a journal whose records were edited after they were
// written, their checksums recomputed so that only their MACs tell — a
// plain value changed, a whole step removed from the middle — fails Load
// with *state.AuthenticationError, and Load leaves the journal alone.
func (s *suite) editedJournal(t *testing.T) {
	stack := id("edited-journal")
	_, after, _, _ := s.journalWithTail(t, stack)
	frames := journalFrames(t, after)
	if len(frames) != 5 {
		t.Fatalf("storetest: want a journal of a header and 4 entries; it has %d records", len(frames))
	}
	i := bytes.Index(after, []byte(`"arn:a"`))
	if i < 0 {
		t.Fatalf("storetest: no \"arn:a\" in the journal")
	}
	edited := bytes.Clone(after)
	edited[i+len(`"arn:`)] = 'b'
	fixChecksums(edited)
	// The journal without the two records of the step that created "a".
	dropped := append(bytes.Clone(after[:frames[1]]), after[frames[3]:]...)
	loader := s.open(t)
	for _, c := range []struct {
		what    string
		journal []byte
	}{{"a plain value edited", edited}, {"a step removed", dropped}} {
		s.h.SetJournal(t, stack, c.journal)
		var ae *state.AuthenticationError
		if _, err := loader.Load(bg(), stack); !errors.As(err, &ae) || ae.File != "journal" || ae.Stack != stack {
			t.Errorf("journal with %s: Load = %v; want *state.AuthenticationError", c.what, err)
		}
		if got := s.h.Journal(t, stack); !bytes.Equal(got, c.journal) {
			t.Errorf("journal with %s: Load changed it", c.what)
		}
	}
	s.h.SetJournal(t, stack, after)
}

// journalFrames returns the offset of each record of a journal
// (state/FORMAT.md: a 12-byte frame header whose first 4 bytes are the
// body's length, then the body).
func journalFrames(t *testing.T, journal []byte) []int {
	t.Helper()
	var out []int
	for off := 0; off < len(journal); {
		if len(journal)-off < 12 {
			t.Fatalf("storetest: the journal ends with %d stray bytes", len(journal)-off)
		}
		out = append(out, off)
		off += 12 + int(binary.LittleEndian.Uint32(journal[off:]))
	}
	return out
}

// fixChecksums recomputes the body checksum (CRC-32C, bytes 8-11 of each
// frame) of every record of a journal, as someone editing it would.
func fixChecksums(journal []byte) {
	table := crc32.MakeTable(crc32.Castagnoli)
	for off := 0; off+12 <= len(journal); {
		n := int(binary.LittleEndian.Uint32(journal[off:]))
		if off+12+n > len(journal) {
			return
		}
		binary.LittleEndian.PutUint32(journal[off+8:], crc32.Checksum(journal[off+12:off+12+n], table))
		off += 12 + n
	}
}

// staleJournal: a journal written against an earlier snapshot — what a
// crash between writing a snapshot and restarting the journal would leave
// in a store that cannot do both at once — is ignored by a store that
// keeps the snapshot it replaced (state.SnapshotKeeper), which proves the
// journal stale, and refused by any other: it is never replayed onto the
// newer snapshot.
func (s *suite) staleJournal(t *testing.T) {
	stack := id("stale-journal")
	st := s.open(t)
	mustLock(t, st, stack)
	base := chain(1)
	j := mustOpenJournal(t, st, stack, base)
	create(t, j, newThing("a", base.Resources[0]))
	old := s.h.Journal(t, stack)
	committed, err := j.Commit(bg())
	if err != nil {
		t.Fatal(err)
	}
	s.h.SetJournal(t, stack, old)
	got, err := s.open(t).Load(bg(), stack)
	var me *state.JournalMismatchError
	switch {
	case errors.As(err, &me):
		if me.Stack != stack || me.NoSnapshot {
			t.Errorf("Load refused the stale journal with %+v; want the stack named, as a journal that follows another snapshot", me)
		}
	case err != nil:
		t.Fatalf("Load: %v; want the committed snapshot or a *state.JournalMismatchError", err)
	case !cmp.Equal(committed, got, snapshotOpts):
		t.Errorf("(-committed +loaded):\n%s", cmp.Diff(committed, got, snapshotOpts))
	}
}

// editedSnapshotUnderJournal: a snapshot changed after the journal that
// follows it was written — a final newline added or removed, as an editor
// does — is never loaded with the journal ignored (the journal's creates
// forgotten, its deletes back): Load replays the journal (when the change
// leaves the snapshot's identity as the journal names it) or refuses with
// *state.JournalMismatchError.
func (s *suite) editedSnapshotUnderJournal(t *testing.T) {
	for _, c := range []struct {
		name   string
		keyed  bool
		change func([]byte) []byte
	}{
		{"newline added, passphrase", true, func(b []byte) []byte { return append(b, '\n') }},
		{"newline removed, passphrase", true, func(b []byte) []byte { return bytes.TrimSuffix(b, []byte("\n")) }},
		{"newline added, no passphrase", false, func(b []byte) []byte { return append(b, '\n') }},
		{"newline removed, no passphrase", false, func(b []byte) []byte { return bytes.TrimSuffix(b, []byte("\n")) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			stack := id("edited-" + strconv.FormatBool(c.keyed) + strconv.Itoa(len(c.change([]byte("x")))))
			open := func() state.Store { return s.h.Open(t) }
			if c.keyed {
				open = func() state.Store { return s.open(t) }
			}
			st := open()
			lock := mustLock(t, st, stack)
			base := chain(1)
			prov := base.Resources[0]
			j := mustOpenJournal(t, st, stack, base)
			// The snapshot of the operation, with a newline at its end
			// whichever way the store wrote it.
			mustCommit(t, j)
			snap := bytes.TrimSuffix(s.h.Snapshot(t, stack), []byte("\n"))
			s.h.SetSnapshot(t, stack, append(snap, '\n'))
			if err := j.Close(bg()); err != nil {
				t.Fatal(err)
			}
			if err := lock.Unlock(bg()); err != nil {
				t.Fatal(err)
			}
			st = open()
			lock = mustLock(t, st, stack)
			loaded := mustLoad(t, st, stack)
			j = mustOpenJournal(t, st, stack, loaded)
			create(t, j, newThing("created", prov))
			mustAppend(t, j, state.Entry{Kind: state.EntryWrite, Old: loaded.Resources[1]})
			live := mustSnapshot(t, j)
			// The operation dies here; the snapshot is edited.
			written := s.h.Snapshot(t, stack)
			edited := c.change(written)
			if bytes.Equal(edited, written) {
				t.Fatalf("storetest: the edit changes nothing in a snapshot ending %q", written[max(0, len(written)-8):])
			}
			s.h.SetSnapshot(t, stack, edited)
			got, err := open().Load(bg(), stack)
			var me *state.JournalMismatchError
			switch {
			case errors.As(err, &me):
				if me.Stack != stack || me.NoSnapshot {
					t.Errorf("refused with %+v; want the stack named, as a journal that follows another snapshot", me)
				}
			case err != nil:
				t.Fatalf("Load: %v; want the journal replayed or a *state.JournalMismatchError", err)
			case !cmp.Equal(live, got, snapshotOpts):
				t.Errorf("Load ignored the journal (-live +loaded):\n%s", cmp.Diff(live, got, snapshotOpts))
			}
			_ = lock
		})
	}
}

// journalWithoutSnapshot: a stack whose snapshot was removed and whose
// journal was kept is refused (*state.JournalMismatchError with
// NoSnapshot), not loaded as an empty stack.
func (s *suite) journalWithoutSnapshot(t *testing.T) {
	stack := id("journal-without-snapshot")
	st := s.open(t)
	mustLock(t, st, stack)
	base := chain(1)
	j := mustOpenJournal(t, st, stack, base)
	create(t, j, newThing("a", base.Resources[0]))
	s.h.SetSnapshot(t, stack, nil)
	_, err := s.open(t).Load(bg(), stack)
	var me *state.JournalMismatchError
	if !errors.As(err, &me) || !me.NoSnapshot || me.Stack != stack {
		t.Fatalf("Load of a stack with a journal and no snapshot = %v; want a *state.JournalMismatchError with NoSnapshot", err)
	}
}

// compactionMidOperation: a journal that outgrows its bound is folded into
// a new snapshot while steps are running; a step that began before the
// compaction ends after it, and a crash after it replays correctly.
func (s *suite) compactionMidOperation(t *testing.T) {
	stack := id("compaction")
	st := s.open(t, state.WithJournalLimit(0, 4096))
	mustLock(t, st, stack)
	base := chain(1)
	prov := base.Resources[0]
	j := mustOpenJournal(t, st, stack, base)
	slow, stuck := newThing("slow", prov), newThing("stuck", prov)
	slowBegin := begin(t, j, resource.OperationCreating, nil, slow)
	begin(t, j, resource.OperationCreating, nil, stuck)
	first := s.h.Snapshot(t, stack)
	for i := range 60 {
		create(t, j, newThing("n"+strconv.Itoa(i), prov))
	}
	if bytes.Equal(first, s.h.Snapshot(t, stack)) {
		t.Fatal("the journal was never compacted into a new snapshot")
	}
	if n := len(s.h.Journal(t, stack)); n > 8192 {
		t.Errorf("the journal holds %d bytes after compaction; want it bounded near 4096", n)
	}
	mustAppend(t, j, state.Entry{Kind: state.EntrySuccess, Begin: slowBegin, New: slow})
	live := mustSnapshot(t, j)
	got := mustLoad(t, s.open(t), stack)
	if diff := cmp.Diff(live, got, snapshotOpts); diff != "" {
		t.Errorf("(-live +replayed):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"creating stuck"}, pendingOf(got)); diff != "" {
		t.Errorf("pending (-want +got):\n%s", diff)
	}
	if len(got.Resources) != 2+60+1 {
		t.Errorf("%d resources; want %d", len(got.Resources), 2+60+1)
	}
}

// concurrentAppends: steps recorded from many goroutines at once are all
// durable and replay to the same state.
func (s *suite) concurrentAppends(t *testing.T) {
	const workers, steps = 8, 20
	stack := id("concurrent")
	st := s.open(t)
	mustLock(t, st, stack)
	base := chain(0)
	j := mustOpenJournal(t, st, stack, base)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range steps {
				r := newThing("w"+strconv.Itoa(w)+"-"+strconv.Itoa(i), base.Resources[0])
				seq, err := j.Append(bg(), state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: r})
				if err == nil {
					_, err = j.Append(bg(), state.Entry{Kind: state.EntrySuccess, Begin: seq, New: r})
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	live := mustSnapshot(t, j)
	got := mustLoad(t, s.open(t), stack)
	if len(got.Resources) != 1+workers*steps || len(got.PendingOperations) != 0 {
		t.Errorf("replayed %d resources and %d pending operations; want %d and none", len(got.Resources), len(got.PendingOperations), 1+workers*steps)
	}
	if diff := cmp.Diff(live, got, snapshotOpts); diff != "" {
		t.Errorf("(-live +replayed):\n%s", diff)
	}
}

// journalRules: entries that do not fit are refused without being
// written; a stack has one journal at a time, opened under its lock; a
// closed journal takes no more entries.
func (s *suite) journalRules(t *testing.T) {
	stack := id("journal-rules")
	st := s.open(t)
	mustLock(t, st, stack)
	base := chain(1)
	j := mustOpenJournal(t, st, stack, base)
	before := s.h.Journal(t, stack)
	var ee *state.EntryError
	if _, err := j.Append(bg(), state.Entry{Kind: state.EntrySuccess, Begin: 42, New: base.Resources[1]}); !errors.As(err, &ee) {
		t.Errorf("Append of an end without its begin = %v; want *EntryError", err)
	}
	if _, err := j.Append(bg(), state.Entry{Kind: state.EntryWrite, Old: newThing("nope", base.Resources[0])}); !errors.As(err, &ee) {
		t.Errorf("Append with an Old that is not recorded = %v; want *EntryError", err)
	}
	if after := s.h.Journal(t, stack); !bytes.Equal(before, after) {
		t.Error("a refused entry was written")
	}
	if j2, err := st.OpenJournal(bg(), stack, base); !errors.Is(err, state.ErrJournalOpen) {
		t.Errorf("a second OpenJournal = %v; want ErrJournalOpen", err)
		if j2 != nil {
			j2.Close(bg())
		}
	}
	if err := st.Save(bg(), stack, base); !errors.Is(err, state.ErrJournalOpen) {
		t.Errorf("Save while a journal is open = %v; want ErrJournalOpen", err)
	}
	if j2, err := s.open(t).OpenJournal(bg(), stack, base); !errors.Is(err, state.ErrNotLocked) {
		t.Errorf("OpenJournal without the lock = %v; want ErrNotLocked", err)
		if j2 != nil {
			j2.Close(bg())
		}
	}
	if err := j.Close(bg()); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(bg()); err != nil {
		t.Errorf("a second Close = %v; want nil", err)
	}
	if _, err := j.Append(bg(), state.Entry{Kind: state.EntryWrite, New: newThing("x", base.Resources[0])}); !errors.Is(err, state.ErrJournalClosed) {
		t.Errorf("Append after Close = %v; want ErrJournalClosed", err)
	}
	if _, err := j.Commit(bg()); !errors.Is(err, state.ErrJournalClosed) {
		t.Errorf("Commit after Close = %v; want ErrJournalClosed", err)
	}
}
