package store_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/backendstore"
	"github.com/groundwork-iac/groundwork/state/internal/format"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// asyncAppender is the ability of the stores' journals that AppendAsync
// tests.
type asyncAppender interface {
	AppendAsync(ctx context.Context, e state.Entry, done func(seq uint64, err error))
}

// durableBackend remembers the highest Seq it has durably appended.
type durableBackend struct {
	state.Backend
	mu      sync.Mutex
	highest uint64
	syncs   atomic.Int64
}

func (b *durableBackend) AppendJournal(ctx context.Context, stack state.StackID, token string, p []byte) error {
	time.Sleep(time.Millisecond)
	if err := b.Backend.AppendJournal(ctx, stack, token, p); err != nil {
		return err
	}
	b.syncs.Add(1)
	b.mu.Lock()
	defer b.mu.Unlock()
	_, _ = format.ScanRecords(p, func(r format.Record) error { b.highest = max(b.highest, r.Seq); return nil })
	return nil
}

func (b *durableBackend) durable(seq uint64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return seq <= b.highest
}

// TestAppendAsyncCallsBackOnceDurable: entries appended without waiting
// are each answered once, only after their record is durable, share
// syncs as Appends do, and replay as written.
func TestAppendAsyncCallsBackOnceDurable(t *testing.T) {
	ctx := context.Background()
	db := &durableBackend{Backend: memstore.NewBackend()}
	s := backendstore.New(db, fastSecrets())
	mustLock(t, s, dev)
	base := chainStack(0)
	j := openJournalT(t, s, dev, base).(asyncAppender)
	// Appenders on a few goroutines: whichever finds no batch being
	// written writes the batches gathered meanwhile.
	const appenders, each, n = 8, 50, 8 * 50
	var wg, started sync.WaitGroup
	var early, answered atomic.Int64
	wg.Add(n)
	for a := range appenders {
		started.Add(1)
		go func() {
			defer started.Done()
			for i := range each {
				r := newBucket("a"+name(a)+"-"+name(i), base.Resources[0])
				j.AppendAsync(ctx, state.Entry{Kind: state.EntryWrite, New: r}, func(seq uint64, err error) {
					defer wg.Done()
					answered.Add(1)
					if err != nil {
						t.Errorf("AppendAsync: %v", err)
						return
					}
					if !db.durable(seq) {
						early.Add(1)
					}
				})
			}
		}()
	}
	started.Wait()
	wg.Wait()
	if answered.Load() != n || early.Load() != 0 {
		t.Errorf("%d of %d answered, %d before their record was durable", answered.Load(), n, early.Load())
	}
	if syncs := db.syncs.Load(); syncs >= n {
		t.Errorf("%d syncs for %d entries; group commit should share them", syncs, n)
	}
	if err := j.(state.Journal).Close(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(ctx, dev)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Resources) != 1+n {
		t.Errorf("replayed %d resources, want %d", len(got.Resources), 1+n)
	}
}

// TestAppendAsyncRefusals: an entry refused at once (a cancelled context,
// a closed journal, an entry that breaks the fold) is answered once, with
// the error, and records nothing.
func TestAppendAsyncRefusals(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name   string
		ctx    context.Context
		close  bool
		entry  func(base *state.Snapshot) state.Entry
		wantIs error
	}{
		{name: "cancelled", ctx: cancelled, entry: func(b *state.Snapshot) state.Entry {
			return state.Entry{Kind: state.EntryWrite, New: newBucket("x", b.Resources[0])}
		}, wantIs: context.Canceled},
		{name: "closed", ctx: context.Background(), close: true, entry: func(b *state.Snapshot) state.Entry {
			return state.Entry{Kind: state.EntryWrite, New: newBucket("x", b.Resources[0])}
		}, wantIs: state.ErrJournalClosed},
		{name: "an end with no begin", ctx: context.Background(), entry: func(b *state.Snapshot) state.Entry {
			return state.Entry{Kind: state.EntrySuccess, Begin: 999, New: newBucket("x", b.Resources[0])}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := backendstore.New(memstore.NewBackend(), fastSecrets())
			mustLock(t, s, dev)
			base := chainStack(0)
			j := openJournalT(t, s, dev, base)
			if tt.close {
				if err := j.Close(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			calls := 0
			var got error
			j.(asyncAppender).AppendAsync(tt.ctx, tt.entry(base), func(_ uint64, err error) { calls++; got = err })
			if calls != 1 || got == nil || (tt.wantIs != nil && !errors.Is(got, tt.wantIs)) {
				t.Fatalf("answered %d times with %v, want once with an error (%v)", calls, got, tt.wantIs)
			}
			if !tt.close {
				snap, err := j.Snapshot()
				if err != nil {
					t.Fatal(err)
				}
				if len(snap.Resources) != len(base.Resources) {
					t.Errorf("the refused entry was recorded: %d resources", len(snap.Resources))
				}
			}
		})
	}
}
