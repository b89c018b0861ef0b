package world

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLedgerAfterTornLine: a ledger whose last line was torn by a kill
// reads as the records before it, and records appended after reopening it
// start lines of their own rather than completing the torn one.
func TestLedgerAfterTornLine(t *testing.T) {
	tests := []struct {
		name string
		tail string
	}{
		{"torn inside a string", `{"op":"create","id":"i-2","urn":"urn:pulumi:s::p::t:m:R::b","props":{"v":"`},
		{"torn after a member", `{"op":"update","id":"i-1"`},
		{"no torn line", ``},
	}
	first := Record{Op: OpCreate, ID: "i-1", URN: "urn:pulumi:s::p::t:m:R::a", Props: map[string]string{"v": "1"}}
	next := Record{Op: OpDelete, ID: "i-1", URN: first.URN}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ledger")
			content := `{"op":"create","id":"i-1","urn":"urn:pulumi:s::p::t:m:R::a","props":{"v":"1"}}` + "\n" + tt.tail
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			l, err := OpenLedger(path, false)
			if err != nil {
				t.Fatal(err)
			}
			l.mu.Lock()
			err = l.appendLocked(next)
			l.mu.Unlock()
			if cerr := l.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := ReadLedger(path)
			if err != nil {
				t.Fatalf("reading the ledger after an append: %v", err)
			}
			if diff := cmp.Diff([]Record{first, next}, got); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
		})
	}
}
