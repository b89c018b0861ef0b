package state

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
)

// Record returns without waiting for a sync under GroupCommit, but its
// entry is written in order: a later Append makes it durable with itself,
// and a process that dies after the Record alone still leaves it replayable
// (it was handed to the operating system).
func TestRecordIsOrderedNotDurable(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		policy SyncPolicy
		// syncs each Record may cost
		maxRecordSyncs int64
	}{
		{name: "group commit", policy: GroupCommit, maxRecordSyncs: 0},
		{name: "sync every entry", policy: SyncEveryEntry, maxRecordSyncs: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := NewMemoryStore(fastSecrets())
			cs := &countingStorage{storage: mem.mem}
			opts := defaultOptions()
			opts.sync = tt.policy
			s := &MemoryStore{core: newCore(cs, []Option{fastSecrets(), WithSync(tt.policy)}, opts), mem: mem.mem}
			mustLock(t, s, "dev")
			base := chainStack(0)
			prov := base.Resources[0]
			j := openJournalT(t, s, "dev", base)
			a, b := newBucket("a", prov), newBucket("b", prov, testURN("aws:s3/bucket:Bucket", "a"))

			seqA := mustAppend(t, j, Entry{Kind: EntryBegin, Op: resource.OperationCreating, New: a})
			syncs := cs.syncs.Load()
			if _, err := j.Record(ctx, Entry{Kind: EntrySuccess, Begin: seqA, New: a}); err != nil {
				t.Fatal(err)
			}
			if got := cs.syncs.Load() - syncs; got > tt.maxRecordSyncs {
				t.Errorf("Record cost %d syncs; want at most %d", got, tt.maxRecordSyncs)
			}
			// The process dies here: a's end was only recorded.
			got, err := s.Load(ctx, "dev")
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Resources) != 2 || len(got.PendingOperations) != 0 {
				t.Fatalf("after Record: %d resources, pending %v; want a recorded", len(got.Resources), pendingOf(got))
			}

			// b depends on a: its begin is durable, and a's end with it.
			mustAppend(t, j, Entry{Kind: EntryBegin, Op: resource.OperationCreating, New: b})
			got, err = s.Load(ctx, "dev")
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Resources) != 2 || len(got.PendingOperations) != 1 {
				t.Errorf("after b's begin: %d resources, pending %v; want a recorded and b pending", len(got.Resources), pendingOf(got))
			}
			if err := j.Close(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// An entry Record cannot fold is rejected like Append's, and nothing is
// written.
func TestRecordRejectsBadEntries(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore(fastSecrets())
	mustLock(t, s, "dev")
	j := openJournalT(t, s, "dev", chainStack(0))
	if _, err := j.Record(ctx, Entry{Kind: EntrySuccess, Begin: 42}); err == nil {
		t.Fatal("Record of an end without its begin succeeded")
	}
	got, err := s.Load(ctx, "dev")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Resources) != 1 || len(got.PendingOperations) != 0 {
		t.Errorf("a rejected entry changed the state: %d resources, pending %v", len(got.Resources), pendingOf(got))
	}
}

// blockingStorage holds syncs, once hold is set, until release is
// closed, telling syncing when the first held one starts.
type blockingStorage struct {
	storage
	hold             atomic.Bool
	syncing, release chan struct{}
	once             sync.Once
}

func (b *blockingStorage) openAppend(stack, name string) (appender, error) {
	a, err := b.storage.openAppend(stack, name)
	return blockingAppender{a, b}, err
}

type blockingAppender struct {
	appender
	b *blockingStorage
}

func (a blockingAppender) sync() error {
	if a.b.hold.Load() {
		a.b.once.Do(func() { close(a.b.syncing) })
		<-a.b.release
	}
	return a.appender.sync()
}

// An entry recorded while another step's flush is under way reaches
// storage when that flush is done, without waiting for a later Append:
// the operation may next wait a long time on a provider.
func TestRecordDuringAFlushIsHandedOffAfterIt(t *testing.T) {
	ctx := context.Background()
	mem := NewMemoryStore(fastSecrets())
	bs := &blockingStorage{storage: mem.mem, syncing: make(chan struct{}), release: make(chan struct{})}
	s := &MemoryStore{core: newCore(bs, []Option{fastSecrets()}, defaultOptions()), mem: mem.mem}
	mustLock(t, s, "dev")
	base := chainStack(0)
	prov := base.Resources[0]
	j := openJournalT(t, s, "dev", base)
	a, b := newBucket("a", prov), newBucket("b", prov)
	seqA := mustAppend(t, j, Entry{Kind: EntryBegin, Op: resource.OperationCreating, New: a})

	// b's begin leads a flush whose sync is held.
	bs.hold.Store(true)
	leader := make(chan error, 1)
	go func() {
		_, err := j.Append(ctx, Entry{Kind: EntryBegin, Op: resource.OperationCreating, New: b})
		leader <- err
	}()
	<-bs.syncing
	recorded := make(chan error, 1)
	go func() {
		_, err := j.Record(ctx, Entry{Kind: EntrySuccess, Begin: seqA, New: a})
		recorded <- err
	}()
	select {
	case err := <-recorded:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Record waited for another step's flush")
	}
	close(bs.release)
	if err := <-leader; err != nil {
		t.Fatal(err)
	}

	// The process dies here, with no further Append.
	got, err := s.Load(ctx, "dev")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"creating b"}, pendingOf(got)); diff != "" || len(got.Resources) != 2 {
		t.Errorf("after the flush: %d resources, pending (-want +got):\n%s", len(got.Resources), diff)
	}
}
