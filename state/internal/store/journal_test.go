package store_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/internal/format"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/backendstore"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

func openJournalT(t *testing.T, s state.Store, stack state.StackID, base *state.Snapshot) state.Journal {
	t.Helper()
	j, err := s.OpenJournal(context.Background(), stack, base)
	if err != nil {
		t.Fatalf("OpenJournal: %v", err)
	}
	return j
}

func pendingOf(s *state.Snapshot) []string {
	var out []string
	for _, op := range s.PendingOperations {
		out = append(out, string(op.Kind)+" "+op.Resource.URN.Name())
	}
	return out
}

func TestJournalCrashReplay(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, h harness) {
		s := h.open()
		lock := mustLock(t, s, dev)
		base := chainStack(0)
		prov := base.Resources[0]
		j := openJournalT(t, s, dev, base)
		a, b := newBucket("a", prov), newBucket("b", prov)
		create(t, j, a)
		mustAppend(t, j, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: b})
		a2 := a.Clone()
		a2.Outputs = resource.PropertyMap{"v": resource.NewNumber(2)}
		mustAppend(t, j, state.Entry{Kind: state.EntryBegin, Op: resource.OperationUpdating, Old: a, New: a2})
		live, _ := j.Snapshot()

		// The process dies here: nothing is committed or closed. Another
		// process loads the stack.
		got, err := h.open().Load(ctx, dev)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(live, got, snapshotOpts, propertyOpts); diff != "" {
			t.Errorf("replayed state differs from the journal's own (-live +replayed):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"creating b", "updating a"}, pendingOf(got)); diff != "" {
			t.Errorf("pending operations (-want +got):\n%s", diff)
		}

		// The next run inherits the pending operations and resolves them.
		if err := lock.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		s2 := h.open()
		mustLock(t, s2, dev)
		j2 := openJournalT(t, s2, dev, got)
		mustAppend(t, j2, state.Entry{Kind: state.EntryClearPending, Op: resource.OperationCreating, Old: b})
		final, err := j2.Commit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"updating a"}, pendingOf(final)); diff != "" {
			t.Errorf("pending after clearing (-want +got):\n%s", diff)
		}
		if err := j2.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if _, ok := h.files(dev)[fileJournal]; ok {
			t.Error("Close after Commit left a journal with no entries behind")
		}
		reloaded, err := h.open().Load(ctx, dev)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(final, reloaded, snapshotOpts, propertyOpts); diff != "" {
			t.Errorf("Load after Commit (-committed +loaded):\n%s", diff)
		}
	})
}

// journalWithTail records some steps and returns the journal bytes and the
// offset where the last record begins, plus the states expected with and
// without that record.
func journalWithTail(t *testing.T, h harness) (journal []byte, lastStart int, with, without *state.Snapshot) {
	t.Helper()
	s := h.open()
	mustLock(t, s, dev)
	base := chainStack(1)
	j := openJournalT(t, s, dev, base)
	create(t, j, newBucket("a", base.Resources[0]))
	c := newBucket("c", base.Resources[0])
	c.Outputs["secret"] = resource.NewSecret(resource.NewString("x"))
	b := mustAppend(t, j, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: c})
	without, _ = j.Snapshot()
	mustAppend(t, j, state.Entry{Kind: state.EntrySuccess, Begin: b, New: c})
	with, _ = j.Snapshot()
	journal = h.files(dev)[fileJournal]
	if _, err := format.ScanRecords(journal, func(r format.Record) error { lastStart = int(r.Offset); return nil }); err != nil {
		t.Fatal(err)
	}
	return journal, lastStart, with, without
}

func TestJournalTornTailIsIgnored(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, h harness) {
		journal, lastStart, with, without := journalWithTail(t, h)
		loader := h.open()
		for cut := lastStart; cut <= len(journal); cut++ {
			h.setFile(dev, fileJournal, journal[:cut])
			got, err := loader.Load(ctx, dev)
			if err != nil {
				t.Fatalf("cut at %d of %d: %v", cut, len(journal), err)
			}
			want := without
			if cut == len(journal) {
				want = with
			}
			if diff := cmp.Diff(want, got, snapshotOpts, propertyOpts); diff != "" {
				t.Fatalf("cut at %d of %d (-want +got):\n%s", cut, len(journal), diff)
			}
		}
		// A tail of zeros (the file grew but the data never landed) is torn
		// too.
		h.setFile(dev, fileJournal, append(journal[:lastStart:lastStart], make([]byte, 300)...))
		if got, err := loader.Load(ctx, dev); err != nil || !cmp.Equal(without, got, snapshotOpts, propertyOpts) {
			t.Errorf("zero-filled tail: %v", err)
		}
	})
}

func TestJournalDamageMidFileIsAnError(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, h harness) {
		journal, lastStart, _, _ := journalWithTail(t, h)
		loader := h.open()
		// Flip every byte of every record but the last, one at a time.
		for i := 0; i < lastStart; i++ {
			damaged := append([]byte(nil), journal...)
			damaged[i] ^= 0x20
			h.setFile(dev, fileJournal, damaged)
			_, err := loader.Load(ctx, dev)
			var ce *state.CorruptJournalError
			if !errors.As(err, &ce) {
				t.Fatalf("byte %d flipped: Load = %v; want *CorruptJournalError", i, err)
			}
		}
	})
}

func TestJournalRejectsBadEntriesWithoutWriting(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, h harness) {
		s := h.open()
		mustLock(t, s, dev)
		base := chainStack(1)
		j := openJournalT(t, s, dev, base)
		before := h.files(dev)[fileJournal]
		var ee *state.EntryError
		if _, err := j.Append(ctx, state.Entry{Kind: state.EntrySuccess, Begin: 42, New: base.Resources[1]}); !errors.As(err, &ee) {
			t.Errorf("Append of an end without begin = %v; want *EntryError", err)
		}
		if _, err := j.Append(ctx, state.Entry{Kind: state.EntryWrite, Old: newBucket("nope", base.Resources[0])}); !errors.As(err, &ee) {
			t.Errorf("Append with an unknown Old = %v; want *EntryError", err)
		}
		if after := h.files(dev)[fileJournal]; !cmp.Equal(before, after) {
			t.Error("a rejected entry was written")
		}
		if _, err := s.OpenJournal(ctx, dev, base); !errors.Is(err, state.ErrJournalOpen) {
			t.Errorf("second OpenJournal = %v; want ErrJournalOpen", err)
		}
		if err := s.Save(ctx, dev, base); !errors.Is(err, state.ErrJournalOpen) {
			t.Errorf("Save during a journal = %v; want ErrJournalOpen", err)
		}
		if _, err := h.open().OpenJournal(ctx, dev, base); !errors.Is(err, state.ErrNotLocked) {
			t.Errorf("OpenJournal without the lock = %v; want ErrNotLocked", err)
		}
		j.Close(ctx)
		if _, err := j.Append(ctx, state.Entry{Kind: state.EntryWrite, New: newBucket("x", base.Resources[0])}); !errors.Is(err, state.ErrJournalClosed) {
			t.Errorf("Append after Close = %v; want ErrJournalClosed", err)
		}
	})
}

// TestStaleJournalIsIgnored: the journal a crash leaves after the snapshot
// that replaced the one it follows is ignored by the file store, whose
// backup of that snapshot proves the journal stale; the memory store,
// whose snapshot writes empty the journal at once, never leaves one and
// refuses it.
func TestStaleJournalIsIgnored(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, h harness) {
		_, keeps := h.open().(*filestore.Store)
		s := h.open()
		mustLock(t, s, dev)
		base := chainStack(1)
		j := openJournalT(t, s, dev, base)
		create(t, j, newBucket("a", base.Resources[0]))
		old := h.files(dev)[fileJournal]
		committed, err := j.Commit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// A crash between writing the snapshot and restarting the journal
		// leaves the old journal next to the new snapshot.
		h.setFile(dev, fileJournal, old)
		got, err := h.open().Load(ctx, dev)
		if !keeps {
			if me := (*state.JournalMismatchError)(nil); !errors.As(err, &me) {
				t.Fatalf("Load = %v; want a *state.JournalMismatchError", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(committed, got, snapshotOpts, propertyOpts); diff != "" {
			t.Errorf("(-committed +loaded):\n%s", diff)
		}
	})
}

func TestCompactionMidOperation(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, h harness) {
		s := h.open(state.WithJournalLimit(0, 4096))
		mustLock(t, s, dev)
		base := chainStack(1)
		prov := base.Resources[0]
		j := openJournalT(t, s, dev, base)
		slow := newBucket("slow", prov)
		stuck := newBucket("stuck", prov)
		slowBegin := mustAppend(t, j, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: slow})
		mustAppend(t, j, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: stuck})
		firstSnapshot := h.files(dev)[fileSnapshot]
		for i := range 60 {
			create(t, j, newBucket("n"+name(i), prov))
		}
		if cmp.Equal(firstSnapshot, h.files(dev)[fileSnapshot]) {
			t.Fatal("the journal was never compacted")
		}
		if n := len(h.files(dev)[fileJournal]); n > 8192 {
			t.Errorf("journal holds %d bytes after compaction; want it bounded", n)
		}
		// The step that began before the compaction ends after it.
		mustAppend(t, j, state.Entry{Kind: state.EntrySuccess, Begin: slowBegin, New: slow})
		live, _ := j.Snapshot()

		got, err := h.open().Load(ctx, dev)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(live, got, snapshotOpts, propertyOpts); diff != "" {
			t.Errorf("(-live +replayed):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"creating stuck"}, pendingOf(got)); diff != "" {
			t.Errorf("pending (-want +got):\n%s", diff)
		}
		if len(got.Resources) != 2+60+1 {
			t.Errorf("%d resources; want %d", len(got.Resources), 63)
		}
	})
}

// countingBackend makes journal appends slow, as syncs are, and counts
// them and the records they write.
type countingBackend struct {
	state.Backend
	syncs, writes atomic.Int64
}

func (c *countingBackend) AppendJournal(ctx context.Context, stack state.StackID, token string, p []byte) error {
	_, _ = format.ScanRecords(p, func(format.Record) error { c.writes.Add(1); return nil })
	c.syncs.Add(1)
	time.Sleep(2 * time.Millisecond)
	return c.Backend.AppendJournal(ctx, stack, token, p)
}

func TestGroupCommitBatchesConcurrentAppends(t *testing.T) {
	ctx := context.Background()
	cs := &countingBackend{Backend: memstore.NewBackend()}
	s := backendstore.New(cs, fastSecrets())
	mustLock(t, s, dev)
	base := chainStack(0)
	j := openJournalT(t, s, dev, base)
	cs.syncs.Store(0)
	const workers, steps = 16, 40
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range steps {
				r := newBucket("w"+name(w)+"-"+name(i), base.Resources[0])
				b, err := j.Append(ctx, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: r})
				if err == nil {
					_, err = j.Append(ctx, state.Entry{Kind: state.EntrySuccess, Begin: b, New: r})
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	appends := int64(workers * steps * 2)
	if syncs := cs.syncs.Load(); syncs*4 > appends {
		t.Errorf("%d syncs for %d appends; group commit should share them", syncs, appends)
	} else {
		t.Logf("%d syncs for %d appends", syncs, appends)
	}
	got, err := s.Load(ctx, dev)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Resources) != 1+workers*steps || len(got.PendingOperations) != 0 {
		t.Errorf("replayed %d resources, %d pending", len(got.Resources), len(got.PendingOperations))
	}
}

// A group-commit batch too large to keep as the spare buffer (over 1 MiB)
// used to leave that buffer handed out twice: the next leader wrote — and,
// in a keyed journal, sealed — a batch that appenders were overwriting.
// Under -race that is a data race; without, the journal did not replay.
func TestGroupCommitLargeBatches(t *testing.T) {
	for _, tt := range []struct {
		name string
		opt  state.Option
	}{{"keyed", fastSecrets()}, {"unkeyed", state.WithSecrets(nil)}} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			cs := &countingBackend{Backend: memstore.NewBackend()}
			s := backendstore.New(cs, tt.opt)
			mustLock(t, s, dev)
			base := chainStack(0)
			j := openJournalT(t, s, dev, base)
			blob := resource.NewString(strings.Repeat("x", 640<<10)) // 16 entries of it outgrow maxSpareBatch
			const workers, steps = 16, 4
			var wg sync.WaitGroup
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range steps {
						r := newBucket("w"+name(w)+"-"+name(i), base.Resources[0])
						r.Inputs["blob"] = blob
						b, err := j.Append(ctx, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: r})
						if err == nil {
							_, err = j.Append(ctx, state.Entry{Kind: state.EntrySuccess, Begin: b, New: r})
						}
						if err != nil {
							t.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			got, err := s.Load(ctx, dev)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if len(got.Resources) != 1+workers*steps || len(got.PendingOperations) != 0 {
				t.Errorf("replayed %d resources, %d pending", len(got.Resources), len(got.PendingOperations))
			}
		})
	}
}

func TestSyncPolicies(t *testing.T) {
	ctx := context.Background()
	for _, p := range []state.SyncPolicy{state.GroupCommit, state.SyncNever} {
		s, err := filestore.New(t.TempDir(), fastSecrets(), state.WithSync(p))
		if err != nil {
			t.Fatal(err)
		}
		mustLock(t, s, dev)
		base := chainStack(0)
		j := openJournalT(t, s, dev, base)
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 10 {
					r := newBucket("w"+name(w)+"-"+name(i), base.Resources[0])
					b, err := j.Append(ctx, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: r})
					if err == nil {
						_, err = j.Append(ctx, state.Entry{Kind: state.EntrySuccess, Begin: b, New: r})
					}
					if err != nil {
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		got, err := s.Load(ctx, dev)
		if err != nil || len(got.Resources) != 41 {
			t.Errorf("policy %d: Load = %d resources, %v", p, len(got.Resources), err)
		}
		j.Close(ctx)
	}
}

// TestJournalOnLoadedSnapshot covers a journal opened on the snapshot Load
// just returned: it continues the snapshot file rather than writing it
// again, and writes nothing at all — not even its header — until its first
// entry, so an operation that changes nothing leaves the stack's files as
// they were. A crash after that entry replays it.
func TestJournalOnLoadedSnapshot(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, h harness) {
		s := h.open()
		if err := s.Save(ctx, dev, chainStack(3)); err != nil {
			t.Fatal(err)
		}
		snapFile := h.files(dev)[fileSnapshot]

		mustLock(t, s, dev)
		loaded, err := s.Load(ctx, dev)
		if err != nil {
			t.Fatal(err)
		}
		j := openJournalT(t, s, dev, loaded)
		committed, err := j.Commit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(loaded, committed, snapshotOpts, propertyOpts); diff != "" {
			t.Errorf("Commit with no entries (-loaded +committed):\n%s", diff)
		}
		if err := j.Close(ctx); err != nil {
			t.Fatal(err)
		}
		files := h.files(dev)
		if _, ok := files[fileJournal]; ok {
			t.Error("a journal with no entries was written")
		}
		if !cmp.Equal(files[fileSnapshot], snapFile) {
			t.Error("the snapshot file changed though nothing was recorded")
		}

		loaded, err = s.Load(ctx, dev)
		if err != nil {
			t.Fatal(err)
		}
		j = openJournalT(t, s, dev, loaded)
		if _, ok := h.files(dev)[fileJournal]; ok {
			t.Error("the journal was written before its first entry")
		}
		extra := newBucket("extra", loaded.Resources[0])
		create(t, j, extra)
		journal := h.files(dev)[fileJournal]
		var header *format.JournalHeader
		if _, err := format.ScanRecords(journal, func(r format.Record) error {
			if header == nil {
				header, err = decodeTestHeader(r)
			}
			return err
		}); err != nil || header == nil || header.Base != format.BaseID(snapFile) || header.FirstSeq != 1 {
			t.Fatalf("the journal does not begin with a header continuing the snapshot: %+v, %v", header, err)
		}

		// The process dies here.
		got, err := h.open().Load(ctx, dev)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(got.Resources); n != len(loaded.Resources)+1 || got.Resources[n-1].URN != extra.URN {
			t.Errorf("the replayed stack does not end with the created resource: %d resources", n)
		}
	})
}

// TestCommitRestartsTheJournalBeforeItsNextEntry: Commit writes the
// snapshot and leaves the new journal's header to the next entry. Until
// then the old journal is stale, so a crash loads the committed snapshot;
// after it, the new journal continues the committed snapshot; Close
// removes a journal that has no entry.
func TestCommitRestartsTheJournalBeforeItsNextEntry(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, h harness) {
		s := h.open()
		mustLock(t, s, dev)
		base := chainStack(1)
		prov := base.Resources[0]
		j := openJournalT(t, s, dev, base)
		create(t, j, newBucket("a", prov))
		committed, err := j.Commit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := h.open().Load(ctx, dev) // a crash here
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(committed, loaded, snapshotOpts, propertyOpts); diff != "" {
			t.Errorf("after Commit (-committed +loaded):\n%s", diff)
		}

		create(t, j, newBucket("b", prov))
		var header *format.JournalHeader
		if _, err := format.ScanRecords(h.files(dev)[fileJournal], func(r format.Record) error {
			if header == nil {
				header, err = decodeTestHeader(r)
			}
			return err
		}); err != nil || header == nil || header.Base != format.BaseID(h.files(dev)[fileSnapshot]) || header.FirstSeq != 3 {
			t.Fatalf("the journal after Commit does not continue the committed snapshot from Seq 3: %+v, %v", header, err)
		}
		live, _ := j.Snapshot()
		loaded, err = h.open().Load(ctx, dev) // a crash here
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(live, loaded, snapshotOpts, propertyOpts); diff != "" {
			t.Errorf("after the next entry (-live +loaded):\n%s", diff)
		}

		if _, err := j.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if err := j.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if _, ok := h.files(dev)[fileJournal]; ok {
			t.Error("Close left a journal with no entries")
		}
	})
}

// decodeTestHeader reads a journal's header record, tagged or not.
func decodeTestHeader(r format.Record) (*format.JournalHeader, error) {
	payload, err := format.Untag(r)
	if err != nil {
		return nil, err
	}
	return format.DecodeHeader(payload)
}

// A journal opened on a loaded snapshot continues its file only while that
// file is the one Load read: after this store (under the same lock) or
// another one (between two locks) replaced it, the journal starts afresh
// on the snapshot it was given, so what it records replays.
func TestJournalDoesNotContinueAReplacedSnapshot(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// replace writes another snapshot over the one s loaded and leaves
		// s holding the stack's lock.
		replace func(t *testing.T, h harness, s state.Store, lock state.Lock)
	}{
		{"saved by the same store under the same lock", func(t *testing.T, h harness, s state.Store, lock state.Lock) {
			if err := s.Save(ctx, dev, chainStack(5)); err != nil {
				t.Fatal(err)
			}
		}},
		{"saved by another store between two locks", func(t *testing.T, h harness, s state.Store, lock state.Lock) {
			if err := lock.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
			if err := h.open().Save(ctx, dev, chainStack(5)); err != nil {
				t.Fatal(err)
			}
			mustLock(t, s, dev)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forEachStore(t, func(t *testing.T, h harness) {
				s := h.open()
				if err := s.Save(ctx, dev, chainStack(3)); err != nil {
					t.Fatal(err)
				}
				lock := mustLock(t, s, dev)
				loaded, err := s.Load(ctx, dev)
				if err != nil {
					t.Fatal(err)
				}
				tt.replace(t, h, s, lock)
				j := openJournalT(t, s, dev, loaded)
				extra := newBucket("extra", loaded.Resources[0])
				create(t, j, extra)

				// The process dies here.
				got, err := h.open().Load(ctx, dev)
				if err != nil {
					t.Fatal(err)
				}
				want := append(urns(loaded), extra.URN)
				if diff := cmp.Diff(want, urns(got)); diff != "" {
					t.Errorf("replayed resources (-want +got):\n%s", diff)
				}
			})
		})
	}
}
