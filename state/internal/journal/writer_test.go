package journal

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
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
