package backendstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/backendstore"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// countingBackend is a memory backend that counts the history bytes it
// hands out.
type countingBackend struct {
	*memstore.Backend
	read atomic.Int64
}

func (b *countingBackend) ReadHistory(ctx context.Context, stack state.StackID) ([]byte, error) {
	data, err := b.Backend.ReadHistory(ctx, stack)
	b.read.Add(int64(len(data)))
	return data, err
}

func (b *countingBackend) ReadHistoryTail(ctx context.Context, stack state.StackID, n int64) ([]byte, bool, error) {
	data, whole, err := b.Backend.ReadHistoryTail(ctx, stack, n)
	b.read.Add(int64(len(data)))
	return data, whole, err
}

// TestRecordHistoryReadsTheEnd: RecordHistory numbers an entry after the
// history's last record by reading the history's end, not all of it, and
// numbers it as a reader of the whole history would (state/FORMAT.md,
// "History": one more than the last complete record's version; lines
// that are no record, wherever they are, are skipped).
func TestRecordHistoryReadsTheEnd(t *testing.T) {
	ctx := context.Background()
	stack := state.StackID{Project: "p", Stack: "dev"}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	record := func(v int) string {
		line, _ := json.Marshal(state.HistoryEntry{Version: v, Kind: "update", Result: state.HistorySucceeded, StartTime: now, EndTime: now})
		return string(line) + "\n"
	}
	long := func(n int) string {
		var b strings.Builder
		for v := 1; v <= n; v++ {
			b.WriteString(record(v))
		}
		return b.String()
	}
	garbage := strings.Repeat("x", 20<<10) + "\n" // longer than the first read of the end
	tests := []struct {
		name        string
		history     string
		wantVersion int
		maxRead     int // bytes of history read at most
	}{
		{"none", "", 1, 0},
		{"many records", long(5000), 5001, 8 << 10},
		{"a damaged early record", "{not json\n" + long(5000), 5001, 8 << 10},
		{"a record a crash cut short", long(5000) + `{"version":5001,"kind":"upd`, 5001, 8 << 10},
		{"a long damaged last line", long(5000) + garbage, 5001, 64 << 10},
		{"a record of an unknown result last", long(5000) + `{"version":5001,"kind":"update","result":"perhaps"}` + "\n", 5001, 8 << 10},
		// The end is read again, twice as far back each time: at most
		// about four times the distance back to the last record.
		{"nothing but damage", garbage + garbage, 1, 4 * len(garbage+garbage)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &countingBackend{Backend: memstore.NewBackend()}
			st := backendstore.New(b)
			if tt.history != "" {
				b.SetFile(stack, "history", []byte(tt.history))
			}
			l, err := st.Lock(ctx, stack, "update")
			if err != nil {
				t.Fatal(err)
			}
			defer l.Unlock(ctx)
			b.read.Store(0)
			e := state.HistoryEntry{Kind: "destroy", Result: state.HistorySucceeded, StartTime: now, EndTime: now}
			if err := st.(state.HistoryRecorder).RecordHistory(ctx, stack, e); err != nil {
				t.Fatal(err)
			}
			if read := b.read.Load(); read > int64(tt.maxRead) {
				t.Errorf("RecordHistory read %d bytes of a %d-byte history; want at most %d", read, len(tt.history), tt.maxRead)
			}
			got, err := st.(state.HistoryReader).History(ctx, stack)
			if err != nil || len(got) == 0 || got[0].Kind != "destroy" || got[0].Version != tt.wantVersion {
				t.Fatalf("History after RecordHistory = %v, %v; want the new entry first, numbered %d", head(got), err, tt.wantVersion)
			}
			data := b.Files(stack)["history"]
			if want := fmt.Sprintf(`{"version":%d,"kind":"destroy"`, tt.wantVersion); !bytes.Contains(data, []byte("\n"+want)) && !bytes.HasPrefix(data, []byte(want)) {
				t.Errorf("the new record does not start a line of its own:\n%s", tailOf(data))
			}
		})
	}
}

func head(es []state.HistoryEntry) []state.HistoryEntry { return es[:min(len(es), 2)] }

func tailOf(data []byte) []byte { return data[max(len(data)-300, 0):] }
