package filestore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/internal/format"
)

// staging is the folder under the root where upgrade moves stacks of the
// layout that kept them by stack name alone (<root>/<stack>) before it
// moves each to its project's folder. Its name is never a project's.
const staging = ".upgrade"

// upgrade moves every stack of the layout keyed by stack name alone into
// the layout keyed by project (<root>/<project>/<stack>), unchanged: its
// snapshot, journal and lock move with their folder, by renames, so a
// crash leaves each stack whole in one place or the other, and the next
// upgrade finishes the work. A stack goes to the project its records name
// (format.RecordedProject); one whose records name none (it holds no
// resource) goes to state.UnattributedProject.
//
// First every such folder is renamed into the staging folder, so that no
// stack's new place can be an old stack's folder (project "site" and a
// stack "site" of another project); then each is renamed into place.
func upgrade(root string) error {
	entries, err := os.ReadDir(root)
	if err != nil {
		return err
	}
	stage := filepath.Join(root, staging)
	for _, e := range entries {
		if !e.IsDir() || state.CheckStackName(e.Name()) != nil || !legacyStack(filepath.Join(root, e.Name())) {
			continue
		}
		if err := os.Mkdir(stage, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return upgradeError(e.Name(), err)
		}
		err := os.Rename(filepath.Join(root, e.Name()), filepath.Join(stage, e.Name()))
		if errors.Is(err, fs.ErrNotExist) {
			continue // another process's upgrade moved it
		}
		if err != nil {
			return upgradeError(e.Name(), err)
		}
		if err := leaveTombstone(root, e.Name()); err != nil {
			return upgradeError(e.Name(), err)
		}
		if err := syncDir(root); err != nil {
			return upgradeError(e.Name(), err)
		}
	}
	staged, err := os.ReadDir(stage)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range staged {
		if !e.IsDir() || state.CheckStackName(e.Name()) != nil {
			continue
		}
		if err := place(root, e.Name()); err != nil {
			return upgradeError(e.Name(), err)
		}
	}
	_ = os.Remove(stage) // left if it still holds anything
	return nil
}

// tombstone begins the file upgrade leaves where a stack's old folder was,
// so that an older groundwork run on the upgraded store fails to read or
// write that stack ("not a directory") instead of finding it empty and
// creating its resources again.
const tombstone = "groundwork: this stack moved to <project>/<stack> when a newer groundwork upgraded the store"

// leaveTombstone writes a tombstone in place of the stack's old folder.
func leaveTombstone(root, stack string) error {
	text := fmt.Sprintf("%s; see state/FORMAT.md, \"Stores kept by stack name\". Stack %q.\n", tombstone, stack)
	f, err := os.OpenFile(filepath.Join(root, stack), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil // something else is there already: leave it
	}
	if err != nil {
		return err
	}
	return writeSynced(f, []byte(text))
}

// removeTombstone removes a tombstone where a project's folder is to be
// made; anything else there is left for the caller to trip over.
func removeTombstone(path string) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return
	}
	if data, err := os.ReadFile(path); err == nil && strings.HasPrefix(string(data), tombstone) {
		_ = os.Remove(path)
	}
}

// legacyStack reports whether dir is a stack's folder of the layout keyed
// by stack name alone: it holds a snapshot, journal or lock file. (A
// project's folder holds only stack folders.)
func legacyStack(dir string) bool {
	for _, name := range []string{fileSnapshot, fileJournal, fileLock} {
		if fi, err := os.Lstat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// place moves the staged stack into its project's folder.
func place(root, stack string) error {
	from := filepath.Join(root, staging, stack)
	if _, err := os.Lstat(from); errors.Is(err, fs.ErrNotExist) {
		return nil // another process's upgrade placed it
	}
	snap, err := readIfExists(filepath.Join(from, fileSnapshot))
	if err != nil {
		return err
	}
	journal, err := readIfExists(filepath.Join(from, fileJournal))
	if err != nil {
		return err
	}
	project, ok := format.RecordedProject(snap, journal)
	if !ok || state.CheckProjectName(project) != nil {
		project = state.UnattributedProject
	}
	to := filepath.Join(root, project, stack)
	if _, err := os.Lstat(to); err == nil {
		return fmt.Errorf("its records name project %q, which has a stack of that name too; both were left as they are: "+
			"remove or move one of %s and %s, then open the store again", project, from, to)
	}
	removeTombstone(filepath.Join(root, project))
	if err := os.Mkdir(filepath.Join(root, project), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if err := syncDir(root); err != nil {
		return err
	}
	if err := os.Rename(from, to); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	if err := syncDir(filepath.Join(root, project)); err != nil {
		return err
	}
	return syncDir(filepath.Join(root, staging))
}

func readIfExists(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

func upgradeError(stack string, err error) error {
	return fmt.Errorf("upgrading stack %q of the store to the layout kept by project (nothing was lost; "+
		"the stack is in its old folder or in %s): %w", stack, staging, err)
}
