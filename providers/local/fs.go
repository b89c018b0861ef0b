package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/groundwork-iac/groundwork/resource"
)

// writeFile writes data to path with exactly the permissions mode (the
// umask does not apply), atomically: readers see the old file or the new
// one, never a partial write. Missing parent directories are created with
// 0755.
//
// With replace false, writeFile refuses to overwrite a file that exists,
// returning an error wrapping fs.ErrExist: the new file is put in place with
// a hard link, which fails if the path is taken. On file systems without
// hard links it falls back to a check followed by a rename.
func writeFile(path string, data []byte, mode fs.FileMode, replace bool) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // after a link or a failure; a renamed file is no longer there
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if replace {
		return os.Rename(name, path)
	}
	lerr := os.Link(name, path)
	switch {
	case lerr == nil:
		return nil
	case errors.Is(lerr, fs.ErrExist):
		return existsError(path)
	}
	if _, err := os.Lstat(path); err == nil {
		return existsError(path)
	}
	return os.Rename(name, path)
}

func existsError(path string) error { return &ExistsError{Path: path} }

// ExistsError reports a file that a create would overwrite: it exists and
// was not created by this resource. It matches fs.ErrExist (errors.Is),
// without repeating that error's text.
type ExistsError struct {
	Path string
}

// Error names the file and says what to do.
func (e *ExistsError) Error() string {
	return e.Path + " already exists and groundwork will not overwrite a file it did not create; remove it, or import it (its ID is the path) to manage it"
}

// Unwrap returns fs.ErrExist.
func (e *ExistsError) Unwrap() error { return fs.ErrExist }

// workDir is the folder relative paths are taken from: wd, or this
// process's working folder when wd is "".
type workDir string

// abs is path made absolute against w.
func (w workDir) abs(path string) (string, error) {
	if w == "" || filepath.IsAbs(path) {
		return filepath.Abs(path)
	}
	return filepath.Abs(filepath.Join(string(w), path))
}

// dirSource is a resource.Source that reads relative paths from wd.
type dirSource struct {
	resource.Source
	wd workDir
}

func (s dirSource) Open(ctx context.Context, path string) (fs.File, error) {
	abs, err := s.wd.abs(path)
	if err != nil {
		return nil, err
	}
	return s.Source.Open(ctx, abs)
}
