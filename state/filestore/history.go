package filestore

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/groundwork-iac/groundwork/state"
)

// A stack's history is one file of its folder (fileHistory), appended to
// under the stack's lock and read by anyone.

// AppendHistory implements state.HistoryBackend: the lock checked, then
// one write to the history file, opened for appends (created if need
// be), and under state.GroupCommit one fsync.
func (b *Backend) AppendHistory(_ context.Context, stack state.StackID, token string, data []byte) error {
	if err := b.fence(stack, token); err != nil {
		return err
	}
	if err := b.ensureDir(stack); err != nil {
		return err
	}
	path := b.path(stack, fileHistory)
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if b.sync != state.SyncNever {
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	if errors.Is(statErr, fs.ErrNotExist) && b.sync != state.SyncNever {
		// A new file's name is durable once its folder is.
		return syncDir(b.dir(stack))
	}
	return nil
}

// ReadHistoryTail implements state.HistoryTailReader: one read at the
// end of the history file.
func (b *Backend) ReadHistoryTail(_ context.Context, stack state.StackID, n int64) ([]byte, bool, error) {
	f, err := os.Open(b.path(stack, fileHistory))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	off := max(info.Size()-n, 0)
	tail := make([]byte, info.Size()-off)
	if _, err := f.ReadAt(tail, off); err != nil {
		return nil, false, err
	}
	return tail, off == 0, nil
}

// ReadHistory implements state.HistoryBackend.
func (b *Backend) ReadHistory(_ context.Context, stack state.StackID) ([]byte, error) {
	return b.readOptional(stack, fileHistory)
}
