package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/display"
	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// entries counts the successful steps of one operation on kv entries.
func entries(res *engine.Result, op engine.StepOp) int {
	n := 0
	for _, s := range res.Steps {
		if s.Err == nil && s.Op == op && s.URN.Type() == entryType {
			n++
		}
	}
	return n
}

// The example deploys three entries, finds nothing to change the second
// time, and leaves nothing behind after the destroy; its output never
// shows the secret token.
func TestRun(t *testing.T) {
	root := t.TempDir()
	var out strings.Builder
	// Few key-derivation rounds keep the test fast; real use keeps the
	// default.
	store, err := openStore(root, secrets.WithIterations(1000))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := run(context.Background(), store, filepath.Join(root, "data"), &out, display.ModePlain)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if n := entries(rs.first, engine.StepCreate); n != 3 {
		t.Errorf("the first run created %d entries, want 3", n)
	}
	if got := rs.first.Outputs["greeting"].StringValue(); got != filepath.Join(root, "data", "greeting") {
		t.Errorf("stack output greeting = %q", got)
	}
	if rs.second.HasChanges() {
		t.Errorf("the second run changed something: %v", rs.second.Steps)
	}
	if n := entries(rs.destroy, engine.StepDelete); n != 3 {
		t.Errorf("the destroy deleted %d entries, want 3", n)
	}
	left, err := os.ReadDir(filepath.Join(root, "data"))
	if err != nil || len(left) != 0 {
		t.Errorf("entries left after the destroy: %v (%v)", left, err)
	}
	if strings.Contains(out.String(), "s3cr3t") {
		t.Errorf("the output shows the secret:\n%s", out.String())
	}
}

// The provider's Check rejects a bad key before anything is written.
func TestCheckRejectsBadKeys(t *testing.T) {
	for key, ok := range map[string]bool{"greeting": true, "a.b-c_1": true, "": false, "..": false, "../etc/passwd": false, "a b": false} {
		if got := validKey(key); got != ok {
			t.Errorf("validKey(%q) = %v, want %v", key, got, ok)
		}
	}
}
