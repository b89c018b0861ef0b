package filestore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
)

// TestReadHistoryTail: the end of a history file, at least n bytes of it,
// and whether that is all of it.
func TestReadHistoryTail(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	b, err := filestore.NewBackend(root, state.SyncNever)
	if err != nil {
		t.Fatal(err)
	}
	stack := state.StackID{Project: "p", Stack: "dev"}
	if tail, whole, err := b.ReadHistoryTail(ctx, stack, 10); err != nil || len(tail) != 0 || !whole {
		t.Fatalf("ReadHistoryTail of a stack with no history = %q, %v, %v; want nothing, whole", tail, whole, err)
	}
	var history strings.Builder
	for i := range 100 {
		fmt.Fprintf(&history, "line %d\n", i)
	}
	if err := os.MkdirAll(filepath.Join(root, "p", "dev"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "p", "dev", "history"), []byte(history.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	all := history.String()
	for _, tt := range []struct {
		n         int64
		want      string
		wantWhole bool
	}{
		{8, all[len(all)-8:], false},
		{int64(len(all)), all, true},
		{1 << 20, all, true},
	} {
		tail, whole, err := b.ReadHistoryTail(ctx, stack, tt.n)
		if err != nil || string(tail) != tt.want || whole != tt.wantWhole {
			t.Errorf("ReadHistoryTail(%d) = %q, %v, %v; want %q, %v", tt.n, tail, whole, err, tt.want, tt.wantWhole)
		}
	}
}
