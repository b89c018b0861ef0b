package store_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/backendstore"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// countingReads is a backend behind the bare state.Backend interface, so
// without the ability to read a snapshot as text, that counts the calls
// to ReadSnapshot.
type countingReads struct {
	state.Backend
	reads atomic.Int64
}

func (b *countingReads) ReadSnapshot(ctx context.Context, stack state.StackID) ([]byte, error) {
	b.reads.Add(1)
	return b.Backend.ReadSnapshot(ctx, stack)
}

// withText adds back the text reading of the backend countingReads wraps.
type withText struct {
	*countingReads
	text state.SnapshotTextReader
}

func (b withText) ReadSnapshotText(ctx context.Context, stack state.StackID) (string, bool, error) {
	return b.text.ReadSnapshotText(ctx, stack)
}

// Each backend of this module reads a snapshot as text exactly as it reads
// its bytes, and reports a stack without one as not found.
func TestBackendsReadSnapshotText(t *testing.T) {
	ctx := context.Background()
	files, err := filestore.NewBackend(t.TempDir(), state.SyncNever)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string]interface {
		state.Backend
		state.SnapshotTextReader
	}{"file": files, "memory": memstore.NewBackend()} {
		t.Run(name, func(t *testing.T) {
			if text, found, err := b.ReadSnapshotText(ctx, dev); err != nil || found || text != "" {
				t.Fatalf("a stack without a snapshot: ReadSnapshotText = %q, %v, %v; want not found", text, found, err)
			}
			s := backendstore.New(b, fastSecrets())
			mustLock(t, s, dev)
			if err := s.Save(ctx, dev, chainStack(3)); err != nil {
				t.Fatal(err)
			}
			data, err := b.ReadSnapshot(ctx, dev)
			if err != nil {
				t.Fatal(err)
			}
			text, found, err := b.ReadSnapshotText(ctx, dev)
			if err != nil || !found {
				t.Fatalf("ReadSnapshotText = found %v, %v; want the snapshot", found, err)
			}
			if text != string(data) {
				t.Errorf("ReadSnapshotText differs from ReadSnapshot:\n%s\n%s", text, data)
			}
		})
	}
}

// Load reads the snapshot once, as text, from a backend that can read it
// so, and as bytes from one that cannot; both load the same snapshot, with
// and without a journal to replay.
func TestLoadReadsTheSnapshotAsText(t *testing.T) {
	ctx := context.Background()
	for _, journal := range []bool{false, true} {
		mem := memstore.NewBackend()
		bare := &countingReads{Backend: mem}
		textual := withText{countingReads: &countingReads{Backend: mem}, text: mem}

		s := backendstore.New(mem, fastSecrets())
		mustLock(t, s, dev)
		want := chainStack(2)
		if err := s.Save(ctx, dev, want); err != nil {
			t.Fatal(err)
		}
		if journal {
			// The process dies with the journal open: Load replays it.
			j := openJournalT(t, s, dev, want)
			create(t, j, newBucket("late", want.Resources[0]))
			want, _ = j.Snapshot()
		}

		for _, tt := range []struct {
			name      string
			b         state.Backend
			reads     *atomic.Int64
			wantReads int64
		}{
			{"with text", textual, &textual.reads, 0},
			{"without", bare, &bare.reads, 1},
		} {
			got, err := backendstore.New(tt.b, fastSecrets()).Load(ctx, dev)
			if err != nil {
				t.Fatalf("journal %v, %s: %v", journal, tt.name, err)
			}
			if diff := cmp.Diff(want, got, snapshotOpts, propertyOpts); diff != "" {
				t.Errorf("journal %v, %s: loaded (-want +got):\n%s", journal, tt.name, diff)
			}
			if n := tt.reads.Load(); n != tt.wantReads {
				t.Errorf("journal %v, %s: Load called ReadSnapshot %d times, want %d", journal, tt.name, n, tt.wantReads)
			}
		}
	}
}
