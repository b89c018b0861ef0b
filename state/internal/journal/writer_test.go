package journal

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/internal/format"
)

// safety bounds every wait of these tests: reaching it means a hang, not
// a slow machine.
const safety = 30 * time.Second

// gatedStorage is a memStorage whose journal appends wait, once entered,
// until the test opens the gate.
type gatedStorage struct {
	memStorage
	entered chan struct{} // receives once per append entered
	gate    chan struct{} // closed to let appends through
}

func (g *gatedStorage) AppendJournal(ctx context.Context, data []byte) error {
	g.entered <- struct{}{}
	<-g.gate
	return g.memStorage.AppendJournal(ctx, data)
}

// TestAppendersNeverWrite checks that an entry handed to the journal
// with AppendAsync leaves the write and its sync to the journal's writer:
// AppendAsync returns while the batch holding its entry is being written,
// the entries appended meanwhile go into the next batch, every callback
// is made once its batch is durable, and Close returns only once all of
// them have been.
func TestAppendersNeverWrite(t *testing.T) {
	ctx := context.Background()
	st := &gatedStorage{entered: make(chan struct{}, 4), gate: make(chan struct{})}
	j, err := Open(ctx, Config{
		Stack: state.StackID{Project: "test", Stack: "dev"}, Base: &state.Snapshot{}, Storage: st,
		Stamp:       func() state.Manifest { return state.Manifest{Time: time.Now(), Version: state.FormatVersion} },
		LimitFactor: 4, LimitExtra: 64 << 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	durable := map[uint64]bool{}
	appendAsync := func(name string) {
		t.Helper()
		r := &resource.State{Type: "test:index:Group", URN: testURN("test:index:Group", name)}
		returned := make(chan struct{})
		go func() {
			defer close(returned)
			j.AppendAsync(ctx, state.Entry{Kind: state.EntryWrite, New: r}, func(seq uint64, err error) {
				if err != nil {
					t.Errorf("the entry of %s failed: %v", name, err)
				}
				mu.Lock()
				durable[seq] = true
				mu.Unlock()
			})
		}()
		select {
		case <-returned:
		case <-time.After(safety):
			close(st.gate) // let the stuck appender go
			t.Fatalf("AppendAsync of %s did not return while a batch was being written", name)
		}
	}

	appendAsync("a")
	select {
	case <-st.entered: // the writer writes a's batch, and waits at the gate
	case <-time.After(safety):
		t.Fatal("the first entry's batch was never written")
	}
	appendAsync("b")
	appendAsync("c")
	mu.Lock()
	if len(durable) != 0 {
		t.Errorf("entries %v were called back before any batch was durable", durable)
	}
	mu.Unlock()

	close(st.gate)
	if err := j.Close(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for seq := uint64(1); seq <= 3; seq++ {
		if !durable[seq] {
			t.Errorf("entry %d was not called back durable by the time Close returned", seq)
		}
	}
	if len(st.entered) != 1 {
		t.Errorf("b and c were written in %d batches after a's, want 1", len(st.entered))
	}
}

// steppedStorage is a memStorage whose journal appends each wait, once
// entered, for a release of their own.
type steppedStorage struct {
	memStorage
	entered chan struct{}
	release chan struct{}
}

func (s *steppedStorage) AppendJournal(ctx context.Context, data []byte) error {
	s.entered <- struct{}{}
	<-s.release
	return s.memStorage.AppendJournal(ctx, data)
}

// TestBatchesReuseTheirBuffers checks that the buffers one batch's records
// and callbacks were gathered in, reused by the batches after it, change
// neither what was written nor what a callback is told: batches of one
// record and of hundreds follow one another, and every entry's callback
// is called once, with the Seq of the record that holds that entry.
func TestBatchesReuseTheirBuffers(t *testing.T) {
	ctx := context.Background()
	st := &steppedStorage{entered: make(chan struct{}), release: make(chan struct{})}
	j, err := Open(ctx, Config{
		Stack: state.StackID{Project: "test", Stack: "dev"}, Base: &state.Snapshot{}, Storage: st,
		Stamp:       func() state.Manifest { return state.Manifest{Time: time.Now(), Version: state.FormatVersion} },
		LimitFactor: 4, LimitExtra: 64 << 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	told := map[string][]uint64{} // the Seqs each entry's callback was told
	n := 0
	for batch, size := range []int{1, 300, 2, 700, 1, 40} {
		for range size {
			name := fmt.Sprintf("r%d", n)
			n++
			r := &resource.State{Type: "test:index:Group", URN: testURN("test:index:Group", name)}
			j.AppendAsync(ctx, state.Entry{Kind: state.EntryWrite, New: r}, func(seq uint64, err error) {
				if err != nil {
					t.Errorf("the entry of %s failed: %v", name, err)
				}
				mu.Lock()
				told[name] = append(told[name], seq)
				mu.Unlock()
			})
		}
		if batch > 0 {
			st.release <- struct{}{} // the batch before goes through
		}
		select {
		case <-st.entered: // this batch is being written
		case <-time.After(safety):
			t.Fatalf("batch %d was never written", batch)
		}
	}
	closed := make(chan error, 1)
	go func() { closed <- j.Close(ctx) }()
	st.release <- struct{}{}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}

	// The URN each record of the journal holds, by Seq.
	holds := map[uint64]string{}
	if _, err := format.ScanRecords(st.journal, func(r format.Record) error {
		if r.Type == format.RecordEntry {
			for name := range told {
				if bytes.Contains(r.Payload, []byte(`"`+string(testURN("test:index:Group", name))+`"`)) {
					holds[r.Seq] = name
				}
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(holds) != n {
		t.Errorf("the journal holds %d entries, want %d", len(holds), n)
	}
	for name, seqs := range told {
		if len(seqs) != 1 || holds[seqs[0]] != name {
			t.Errorf("the callback of %s was told Seqs %v; the record of Seq %v holds %q", name, seqs, seqs, holds[seqs[0]])
		}
	}
	if len(told) != n {
		t.Errorf("%d entries were called back, want %d", len(told), n)
	}
}
