package filestore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/groundwork-iac/groundwork/state"
)

// The backup of a stack's previous snapshot, snapshot.json.bak: what
// proves a journal a crash left behind stale, and the way back from a
// damaged snapshot (see state.SnapshotKeeper).

// PreviousSnapshot implements state.SnapshotKeeper: snapshot.json.bak.
func (b *Backend) PreviousSnapshot(_ context.Context, stack state.StackID) ([]byte, error) {
	return b.readOptional(stack, fileBackup)
}

// RestoreHint implements state.SnapshotKeeper.
func (b *Backend) RestoreHint(stack state.StackID) string {
	return fmt.Sprintf("the previous snapshot is kept as %s: to go back to it, with the stack unlocked, "+
		"copy it over %s next to it and delete the file %q there; what was recorded since is then forgotten, "+
		"so refresh the stack next", b.path(stack, fileBackup), fileSnapshot, fileJournal)
}

// keepSnapshot makes the stack's snapshot, if it has one, its backup too:
// hard-linked aside and renamed over the backup (copied where there are
// no hard links), so the backup is always a whole snapshot.
func (b *Backend) keepSnapshot(stack state.StackID) error {
	dir := b.dir(stack)
	current := filepath.Join(dir, fileSnapshot)
	var r [8]byte
	_, _ = rand.Read(r[:])
	tmp := filepath.Join(dir, "."+fileBackup+".tmp-"+hex.EncodeToString(r[:]))
	err := os.Link(current, tmp)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // no snapshot yet
	case err != nil:
		data, rerr := os.ReadFile(current)
		if errors.Is(rerr, fs.ErrNotExist) {
			return nil
		}
		if rerr != nil {
			return rerr
		}
		if tmp, err = writeTemp(dir, fileBackup, data); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, filepath.Join(dir, fileBackup)); err != nil {
		os.Remove(tmp)
		return err
	}
	// Durable before the snapshot is replaced: a journal the crash leaves
	// then always finds the snapshot it names kept.
	return syncDir(dir)
}
