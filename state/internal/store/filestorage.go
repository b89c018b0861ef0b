package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/groundwork-iac/groundwork/state"
)

// FileStore keeps each stack in a folder of its own under a root folder:
//
//	<root>/<stack>/snapshot.json   the last snapshot (FORMAT.md)
//	<root>/<stack>/journal         entries since that snapshot
//	<root>/<stack>/lock            who holds the stack, while someone does
//
// Snapshots and journal restarts are written to a temporary file in the
// same folder, synced, renamed over the old file, and the folder is synced,
// so a crash leaves either the old file or the new one. A lock file appears
// atomically with its content (written aside, then hard-linked into place;
// on file systems without hard links it is created with O_EXCL). Files are
// private to their owner (mode 0600, folders 0700).
//
// Two FileStores (in one process or many) may share a root: the lock files
// keep their operations apart.
type FileStore struct {
	*core
	root string
}

var (
	_ state.Store       = (*FileStore)(nil)
	_ state.LockBreaker = (*FileStore)(nil)
)

// NewFileStore opens (creating if needed) a file store rooted at dir.
func NewFileStore(dir string, opts ...state.Option) (*FileStore, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("creating the store folder: %w", err)
	}
	return &FileStore{core: newCore(&fileStorage{root: root}, opts, state.NewOptions()), root: root}, nil
}

// Root returns the store's root folder.
func (s *FileStore) Root() string { return s.root }

type fileStorage struct{ root string }

func (f *fileStorage) path(stack, name string) string { return filepath.Join(f.root, stack, name) }

func (f *fileStorage) read(ctx context.Context, stack, name string) ([]byte, error) {
	return os.ReadFile(f.path(stack, name))
}

// exists implements statStorage: every Unlock asks whether the stack has a
// snapshot, which is no reason to read megabytes.
func (f *fileStorage) exists(ctx context.Context, stack, name string) (bool, error) {
	_, err := os.Stat(f.path(stack, name))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// ensureDir creates the stack's folder, syncing the root so the new entry
// survives a crash.
func (f *fileStorage) ensureDir(stack string) error {
	dir := filepath.Join(f.root, stack)
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return syncDir(f.root)
}

func (f *fileStorage) replace(ctx context.Context, stack, name string, data []byte) error {
	if err := f.ensureDir(stack); err != nil {
		return err
	}
	dir := filepath.Join(f.root, stack)
	tmp, err := writeTemp(dir, name, data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(dir)
}

// writeTemp writes data to a new synced temporary file next to name.
func writeTemp(dir, name string, data []byte) (string, error) {
	t, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return "", err
	}
	_, err = t.Write(data)
	if err == nil {
		err = t.Sync()
	}
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(t.Name())
		return "", err
	}
	return t.Name(), nil
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

func (f *fileStorage) openAppend(ctx context.Context, stack, name string) (appender, error) {
	file, err := os.OpenFile(f.path(stack, name), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	return fileAppender{file}, nil
}

type fileAppender struct{ f *os.File }

func (a fileAppender) write(ctx context.Context, p []byte) error { _, err := a.f.Write(p); return err }
func (a fileAppender) sync() error                               { return a.f.Sync() }
func (a fileAppender) close() error                              { return a.f.Close() }

func (f *fileStorage) remove(ctx context.Context, stack, name string) error {
	err := os.Remove(f.path(stack, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// removeStack removes the stack's folder with any temporary files a crash
// left in it; a folder that still holds anything else (say, a lock taken
// meanwhile) is left alone.
func (f *fileStorage) removeStack(ctx context.Context, stack string) error {
	dir := filepath.Join(f.root, stack)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), ".tmp-") {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTEMPTY) && !errors.Is(err, syscall.EEXIST) {
		return err
	}
	return nil
}

func (f *fileStorage) list(ctx context.Context) ([]string, error) {
	entries, err := os.ReadDir(f.root)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || state.CheckStackName(e.Name()) != nil {
			continue
		}
		if _, err := os.Stat(f.path(e.Name(), fileSnapshot)); err == nil {
			out = append(out, e.Name())
		}
	}
	slices.Sort(out)
	return out, nil
}

func (f *fileStorage) create(ctx context.Context, stack, name string, data []byte) error {
	if err := f.ensureDir(stack); err != nil {
		return err
	}
	dir := filepath.Join(f.root, stack)
	tmp, err := writeTemp(dir, name, data)
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
	_, err = file.Write(data)
	if err == nil {
		err = file.Sync()
	}
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	return err
}

// removeIf moves the file aside under a unique name before comparing, so
// that it never deletes a file someone else created in the meantime; if the
// content is not the expected one it is put back.
func (f *fileStorage) removeIf(ctx context.Context, stack, name string, data []byte) (bool, error) {
	target := f.path(stack, name)
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
	if err == nil && bytes.Equal(cur, data) {
		return true, os.Remove(aside)
	}
	// Not ours: put it back unless a new one appeared meanwhile.
	if lerr := os.Link(aside, target); lerr != nil && !errors.Is(lerr, fs.ErrExist) {
		return false, lerr
	}
	return false, os.Remove(aside)
}
