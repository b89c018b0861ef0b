package filestore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
)

func thing(name string) *resource.State {
	urn := resource.NewURN("dev", "proj", "", "test:index:Thing", name)
	return &resource.State{Type: "test:index:Thing", URN: urn,
		Inputs: resource.PropertyMap{"name": resource.NewString(name)}}
}

func snapshotOf(names ...string) *state.Snapshot {
	s := &state.Snapshot{}
	for _, n := range names {
		s.Resources = append(s.Resources, thing(n))
	}
	return s
}

func namesOf(s *state.Snapshot) string {
	var out []string
	for _, r := range s.Resources {
		out = append(out, r.URN.Name())
	}
	return strings.Join(out, ",")
}

// The file store keeps the snapshot each write replaces as
// snapshot.json.bak; a damaged snapshot's error says where it is and how
// to go back to it, and doing so loads the previous state.
func TestPreviousSnapshotIsKept(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s, err := filestore.New(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "proj", "dev")
	if err := s.Save(ctx, devStack, snapshotOf("a")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "snapshot.json.bak")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a first snapshot left a backup behind (%v); there was nothing to keep", err)
	}
	first, err := os.ReadFile(filepath.Join(dir, "snapshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Save(ctx, devStack, snapshotOf("a", "b")); err != nil {
		t.Fatal(err)
	}
	kept, err := os.ReadFile(filepath.Join(dir, "snapshot.json.bak"))
	if err != nil || string(kept) != string(first) {
		t.Fatalf("snapshot.json.bak after the second write = %q, %v; want the first snapshot", kept, err)
	}

	// The snapshot is damaged.
	if err := os.WriteFile(filepath.Join(dir, "snapshot.json"), []byte(`{"version": 3, "resources": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = s.Load(ctx, devStack)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "snapshot.json.bak")) {
		t.Fatalf("Load of a damaged snapshot = %v; want an error naming the backup", err)
	}
	t.Logf("damaged: %v", err)
	// Flipping a byte fails the snapshot's checksum: that error names the
	// backup too.
	flipped := []byte(strings.Replace(string(first), `"a"`, `"x"`, 1))
	if err := os.WriteFile(filepath.Join(dir, "snapshot.json"), flipped, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = s.Load(ctx, devStack)
	if ae := (*state.AuthenticationError)(nil); !errors.As(err, &ae) || !strings.Contains(err.Error(), "snapshot.json.bak") {
		t.Fatalf("Load of an edited snapshot = %v; want an *AuthenticationError naming the backup", err)
	}

	// What the error says to do brings the previous state back.
	if err := os.WriteFile(filepath.Join(dir, "snapshot.json"), kept, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(ctx, devStack)
	if err != nil || namesOf(got) != "a" {
		t.Fatalf("Load after restoring the backup = %v, %v; want the first snapshot", got, err)
	}
}

// A journal that follows neither the stack's snapshot nor the one kept
// before it is refused.
func TestJournalOfAnOlderSnapshotIsRefused(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s, err := filestore.New(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "proj", "dev")
	lock, err := s.Lock(ctx, devStack, "update")
	if err != nil {
		t.Fatal(err)
	}
	j, err := s.OpenJournal(ctx, devStack, snapshotOf("a"))
	if err != nil {
		t.Fatal(err)
	}
	r := thing("b")
	seq, err := j.Append(ctx, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: r})
	if err == nil {
		_, err = j.Append(ctx, state.Entry{Kind: state.EntrySuccess, Begin: seq, New: r})
	}
	if err != nil {
		t.Fatal(err)
	}
	journal, err := os.ReadFile(filepath.Join(dir, "journal"))
	if err != nil {
		t.Fatal(err)
	}
	j.Close(ctx)
	lock.Unlock(ctx)
	// Two more snapshots: the journal's is neither the stack's nor its
	// backup.
	for _, snap := range []*state.Snapshot{snapshotOf("c"), snapshotOf("d")} {
		if err := s.Save(ctx, devStack, snap); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "journal"), journal, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = s.Load(ctx, devStack)
	var me *state.JournalMismatchError
	if !errors.As(err, &me) || me.NoSnapshot || !strings.Contains(me.Restore, "snapshot.json.bak") {
		t.Fatalf("Load = %v; want a *state.JournalMismatchError that knows of the backup", err)
	}
	t.Logf("refused: %v", err)
}

// devStack is the stack these tests write.
var devStack = state.StackID{Project: "proj", Stack: "dev"}
