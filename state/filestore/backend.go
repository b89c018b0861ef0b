package filestore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/groundwork-iac/groundwork/state"
)

// The files of one stack.
const (
	fileSnapshot = "snapshot.json"
	fileBackup   = "snapshot.json.bak"
	fileJournal  = "journal"
	fileLock     = "lock"
	fileHistory  = "history"
)

// Backend is the state.Backend of a file store: each stack in a folder of
// its own under a root folder (see the package documentation for the
// layout and how each file is written).
//
// A stack's journal stays open for appends from the first append until
// it is rewritten, its stack deleted or its lock released, so that each
// append is one write and, under state.GroupCommit, one fsync.
//
// Writes are fenced by the lock file: every write, each journal append
// included, is refused, with an error wrapping state.ErrLockLost, unless
// the lock file names its token (for an append: unless it is still the
// lock file that named the token when the journal was opened). Files offer no transaction,
// so the check is made just before the write: a file lock is never taken
// over while its holder runs, only broken once its process is gone or
// removed by hand (ForceUnlock), and a writer whose lock was removed so is
// refused at its next write.
//
// WriteSnapshot keeps the snapshot it replaces as snapshot.json.bak (see
// state.SnapshotKeeper).
//
// The context of each call is not consulted: file operations run to
// completion.
type Backend struct {
	root string
	sync state.SyncPolicy

	mu       sync.Mutex
	journals map[state.StackID]*openJournal // stack → its journal, open for appends
}

// openJournal is a stack's journal file open for appends under the lock
// whose token is token, and that lock file as it was when the journal was
// opened: the file is never rewritten, so while the same file is there,
// the lock is still token's.
type openJournal struct {
	token    string
	f        *os.File
	lock     os.FileInfo
	lockPath string
}

var (
	_ state.Backend           = (*Backend)(nil)
	_ state.SnapshotKeeper    = (*Backend)(nil)
	_ state.HistoryBackend    = (*Backend)(nil)
	_ state.HistoryTailReader = (*Backend)(nil)
)

// NewBackend opens (creating if needed) the root folder dir. Journal
// appends are synced to stable storage under state.GroupCommit and not
// under state.SyncNever; snapshots and journal rewrites always are.
func NewBackend(dir string, sync state.SyncPolicy) (*Backend, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("creating the store folder: %w", err)
	}
	if err := upgrade(root); err != nil {
		return nil, err
	}
	return &Backend{root: root, sync: sync, journals: map[state.StackID]*openJournal{}}, nil
}

// Root returns the backend's root folder (an absolute path).
func (b *Backend) Root() string { return b.root }

// dir is the stack's folder: <root>/<project>/<stack>.
func (b *Backend) dir(stack state.StackID) string {
	return filepath.Join(b.root, stack.Project, stack.Stack)
}

func (b *Backend) path(stack state.StackID, name string) string {
	return filepath.Join(b.dir(stack), name)
}

// readOptional returns a file's content, or nil if it does not exist.
func (b *Backend) readOptional(stack state.StackID, name string) ([]byte, error) {
	data, err := os.ReadFile(b.path(stack, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// ReadSnapshot implements state.Backend.
func (b *Backend) ReadSnapshot(_ context.Context, stack state.StackID) ([]byte, error) {
	return b.readOptional(stack, fileSnapshot)
}

// ReadSnapshotText implements state.SnapshotTextReader: the file is read
// into the string's own memory, sized to the file, with no []byte copy of
// it.
func (b *Backend) ReadSnapshotText(_ context.Context, stack state.StackID) (string, bool, error) {
	f, err := os.Open(b.path(stack, fileSnapshot))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	var text strings.Builder
	if info, err := f.Stat(); err == nil && info.Size() > 0 {
		text.Grow(int(info.Size()))
	}
	if _, err := io.Copy(&text, f); err != nil {
		return "", false, err
	}
	return text.String(), true, nil
}

// HasSnapshot implements state.Backend, without reading the snapshot.
func (b *Backend) HasSnapshot(_ context.Context, stack state.StackID) (bool, error) {
	return b.exists(stack, fileSnapshot)
}

func (b *Backend) exists(stack state.StackID, name string) (bool, error) {
	_, err := os.Stat(b.path(stack, name))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// ReadJournal implements state.Backend.
func (b *Backend) ReadJournal(_ context.Context, stack state.StackID) ([]byte, error) {
	return b.readOptional(stack, fileJournal)
}

// List implements state.Backend: the folders <project>/<stack> under the
// root whose names are valid and that hold a snapshot.
func (b *Backend) List(context.Context) ([]state.StackID, error) {
	projects, err := os.ReadDir(b.root)
	if err != nil {
		return nil, err
	}
	var out []state.StackID
	for _, p := range projects {
		if !p.IsDir() || state.CheckProjectName(p.Name()) != nil {
			continue
		}
		stacks, err := os.ReadDir(filepath.Join(b.root, p.Name()))
		if err != nil {
			return nil, err
		}
		for _, st := range stacks {
			id := state.StackID{Project: p.Name(), Stack: st.Name()}
			if !st.IsDir() || id.Check() != nil {
				continue
			}
			if ok, err := b.exists(id, fileSnapshot); err == nil && ok {
				out = append(out, id)
			}
		}
	}
	return out, nil
}

// Holder implements state.Backend. A lock file that cannot be parsed
// (damaged, or seen empty while an exclusive create writes it) is
// reported as a holder with no token, which Release with an empty token
// removes.
func (b *Backend) Holder(_ context.Context, stack state.StackID) (*state.LockInfo, error) {
	data, err := b.readOptional(stack, fileLock)
	if err != nil || data == nil {
		return nil, err
	}
	li := parseLock(data)
	return &li, nil
}

// parseLock returns the lock record data holds, or an empty one if it
// cannot be parsed.
func parseLock(data []byte) state.LockInfo {
	var li state.LockInfo
	if json.Unmarshal(data, &li) != nil {
		return state.LockInfo{}
	}
	return li
}

// Acquire implements state.Backend: the lock file appears with its whole
// content at once, or not at all if there is one. File locks are not
// leases: none lapses.
func (b *Backend) Acquire(_ context.Context, stack state.StackID, holder state.LockInfo) (bool, *state.LockInfo, error) {
	data, err := json.Marshal(holder)
	if err != nil {
		return false, nil, err
	}
	for attempt := 0; ; attempt++ {
		err := b.create(stack, fileLock, data)
		switch {
		case err == nil:
			return true, nil, nil
		case errors.Is(err, fs.ErrExist):
			return false, nil, nil
		case errors.Is(err, fs.ErrNotExist) && attempt < 3:
			continue // the stack's folder was just removed by a Release
		}
		return false, nil, err
	}
}

// Release implements state.Backend. The lock file is moved aside under a
// unique name before it is compared, so that a lock someone else created
// meanwhile is never deleted; one that is not token's is put back. A
// stack left with no snapshot leaves no folder behind.
func (b *Backend) Release(_ context.Context, stack state.StackID, token string) (bool, error) {
	target := b.path(stack, fileLock)
	var r [8]byte
	_, _ = rand.Read(r[:])
	aside := target + ".gone-" + hex.EncodeToString(r[:])
	if err := os.Rename(target, aside); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	cur, err := os.ReadFile(aside)
	if err != nil || parseLock(cur).Token != token {
		// Not token's: put it back unless a new one appeared meanwhile.
		if lerr := os.Link(aside, target); lerr != nil && !errors.Is(lerr, fs.ErrExist) {
			return false, lerr
		}
		return false, os.Remove(aside)
	}
	if err := os.Remove(aside); err != nil {
		return false, err
	}
	b.closeJournal(stack, token)
	if ok, err := b.exists(stack, fileSnapshot); err == nil && !ok {
		b.removeFolder(stack)
	}
	return true, nil
}

// removeFolder removes the stack's folder with any temporary files a
// crash left in it, and then its project's folder if that holds no other
// stack; a folder that still holds anything else (say, a lock taken
// meanwhile) is left alone.
func (b *Backend) removeFolder(stack state.StackID) {
	dir := b.dir(stack)
	defer os.Remove(filepath.Dir(dir))
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), ".tmp-") {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	_ = os.Remove(dir)
}

// fence refuses a write under a lock the stack's lock file does not name.
func (b *Backend) fence(stack state.StackID, token string) error {
	data, err := b.readOptional(stack, fileLock)
	if err != nil {
		return err
	}
	if data == nil || parseLock(data).Token != token {
		return fmt.Errorf("stack %q: %w", stack, state.ErrLockLost)
	}
	return nil
}

// WriteSnapshot implements state.Backend. The snapshot replaced is kept
// as snapshot.json.bak, and the journal is removed after the new snapshot
// is in place: a crash in between leaves a journal whose header names the
// kept snapshot, which the store then knows to be stale.
func (b *Backend) WriteSnapshot(_ context.Context, stack state.StackID, token string, data []byte) error {
	if err := b.fence(stack, token); err != nil {
		return err
	}
	b.closeJournal(stack, "")
	// The new snapshot is written aside first: a write that fails (a full
	// disk) leaves the backup as it was.
	dir, tmp, err := b.writeAside(stack, fileSnapshot, data)
	if err != nil {
		return err
	}
	if err := b.keepSnapshot(stack); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("keeping the previous snapshot: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, fileSnapshot)); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := syncDir(dir); err != nil {
		return err
	}
	return b.remove(stack, fileJournal)
}

// WriteJournal implements state.Backend.
func (b *Backend) WriteJournal(_ context.Context, stack state.StackID, token string, data []byte) error {
	if err := b.fence(stack, token); err != nil {
		return err
	}
	b.closeJournal(stack, "")
	if data == nil {
		return b.remove(stack, fileJournal)
	}
	return b.replace(stack, fileJournal, data)
}

// AppendJournal implements state.Backend: the lock checked, one write to
// the journal kept open, then, under state.GroupCommit, one fsync.
func (b *Backend) AppendJournal(_ context.Context, stack state.StackID, token string, data []byte) error {
	j, err := b.journalFile(stack, token)
	if err != nil {
		return err
	}
	if err := b.fenceAppend(stack, j); err != nil {
		b.closeJournal(stack, token)
		return err
	}
	if _, err := j.f.Write(data); err != nil {
		return err
	}
	if b.sync == state.SyncNever {
		return nil
	}
	return j.f.Sync()
}

// journalFile returns the stack's journal open for appends under the lock
// token names, opening it (and checking the lock) if it is not yet.
func (b *Backend) journalFile(stack state.StackID, token string) (*openJournal, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if j := b.journals[stack]; j != nil {
		if j.token == token {
			return j, nil
		}
		j.f.Close()
		delete(b.journals, stack)
	}
	lock, err := b.lockFile(stack, token)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(b.path(stack, fileJournal), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	j := &openJournal{token: token, f: f, lock: lock, lockPath: b.path(stack, fileLock)}
	b.journals[stack] = j
	return j, nil
}

// lockFile returns the stack's lock file if it names token, and refuses
// (state.ErrLockLost) otherwise. Its content and what it returns come
// from one open file.
func (b *Backend) lockFile(stack state.StackID, token string) (os.FileInfo, error) {
	f, err := os.Open(b.path(stack, fileLock))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("stack %q: %w", stack, state.ErrLockLost)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	if parseLock(data).Token != token {
		return nil, fmt.Errorf("stack %q: %w", stack, state.ErrLockLost)
	}
	return info, nil
}

// fenceAppend refuses an append to j unless the stack's lock file is still
// the one j was opened under. A lock file is never rewritten: removing it
// (ForceUnlock, a Release) and locking again makes a new file, told apart
// by its identity and modification time (an inode number can be reused).
// One stat per append, where reading the lock would cost a read and a
// parse.
func (b *Backend) fenceAppend(stack state.StackID, j *openJournal) error {
	now, err := os.Stat(j.lockPath)
	if err == nil && os.SameFile(now, j.lock) && now.ModTime().Equal(j.lock.ModTime()) && now.Size() == j.lock.Size() {
		return nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return fmt.Errorf("stack %q: %w", stack, state.ErrLockLost)
}

// closeJournal closes the stack's journal if it is open for appends (and,
// with token set, only if it was opened under that lock).
func (b *Backend) closeJournal(stack state.StackID, token string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if j := b.journals[stack]; j != nil && (token == "" || j.token == token) {
		j.f.Close()
		delete(b.journals, stack)
	}
}

// DeleteStack implements state.Backend. The folder goes with the lock
// (see Release).
func (b *Backend) DeleteStack(_ context.Context, stack state.StackID, token string) error {
	if err := b.fence(stack, token); err != nil {
		return err
	}
	b.closeJournal(stack, "")
	if err := b.remove(stack, fileJournal); err != nil {
		return err
	}
	if err := b.remove(stack, fileSnapshot); err != nil {
		return err
	}
	if err := b.remove(stack, fileHistory); err != nil {
		return err
	}
	return b.remove(stack, fileBackup)
}

func (b *Backend) remove(stack state.StackID, name string) error {
	err := os.Remove(b.path(stack, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// ensureDir creates the stack's folder (and its project's), syncing each
// parent so the new entry survives a crash. A project folder removed by
// a concurrent Release of its last stack is created again.
func (b *Backend) ensureDir(stack state.StackID) error {
	dir := b.dir(stack)
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	project := filepath.Dir(dir)
	removeTombstone(project)
	for attempt := 0; ; attempt++ {
		if err := os.Mkdir(project, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if err := syncDir(b.root); err != nil {
			return err
		}
		err := os.Mkdir(dir, 0o700)
		if errors.Is(err, fs.ErrNotExist) && attempt < 3 {
			continue
		}
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		return syncDir(project)
	}
}

// replace atomically and durably creates or replaces a file: written
// aside, synced, renamed into place, and the folder synced.
func (b *Backend) replace(stack state.StackID, name string, data []byte) error {
	dir, tmp, err := b.writeAside(stack, name, data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(dir)
}

// create makes a file that must not exist yet (else an error wrapping
// fs.ErrExist), appearing with its whole content at once: written aside,
// then hard-linked into place.
func (b *Backend) create(stack state.StackID, name string, data []byte) error {
	dir, tmp, err := b.writeAside(stack, name, data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	target := filepath.Join(dir, name)
	err = os.Link(tmp, target)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	// No hard links here: fall back to an exclusive create. A reader may
	// then briefly see the file empty; it reports the holder as unknown.
	file, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	return writeSynced(file, data)
}

// writeAside writes data to a new synced temporary file in the stack's
// folder (created if need be), next to name, and returns the folder and
// the file.
func (b *Backend) writeAside(stack state.StackID, name string, data []byte) (dir, tmp string, err error) {
	if err := b.ensureDir(stack); err != nil {
		return "", "", err
	}
	dir = b.dir(stack)
	tmp, err = writeTemp(dir, name, data)
	return dir, tmp, err
}

// writeTemp writes data to a new synced temporary file next to name.
func writeTemp(dir, name string, data []byte) (string, error) {
	t, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return "", err
	}
	if err := writeSynced(t, data); err != nil {
		os.Remove(t.Name())
		return "", err
	}
	return t.Name(), nil
}

// writeSynced writes data to f, syncs it and closes it.
func writeSynced(f *os.File, data []byte) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	// Some file systems cannot sync folders; the rename is still atomic.
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		err = nil
	}
	return err
}
