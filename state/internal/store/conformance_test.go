package store_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/memstore"
	"github.com/groundwork-iac/groundwork/state/storetest"
)

// The file and memory stores run the store conformance suite; so does the
// PostgreSQL store, in its own package.

func TestFileStoreConformance(t *testing.T) {
	root := t.TempDir()
	file := func(stack state.StackID, name string) string {
		return filepath.Join(root, stack.Project, stack.Stack, name)
	}
	read := func(t *testing.T, path string) []byte {
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	write := func(t *testing.T, path string, data []byte) {
		if data == nil {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
			return
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T, opts ...state.Option) state.Store {
			s, err := filestore.New(root, opts...)
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		Snapshot:    func(t *testing.T, stack state.StackID) []byte { return read(t, file(stack, "snapshot.json")) },
		SetSnapshot: func(t *testing.T, stack state.StackID, data []byte) { write(t, file(stack, "snapshot.json"), data) },
		Journal:     func(t *testing.T, stack state.StackID) []byte { return read(t, file(stack, "journal")) },
		SetJournal:  func(t *testing.T, stack state.StackID, data []byte) { write(t, file(stack, "journal"), data) },
	})
}

func TestMemoryStoreConformance(t *testing.T) {
	first := memstore.New()
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T, opts ...state.Option) state.Store { return first.Reopen(opts...) },
		Snapshot: func(t *testing.T, stack state.StackID) []byte {
			return first.Files(stack)["snapshot.json"]
		},
		SetSnapshot: func(t *testing.T, stack state.StackID, data []byte) { first.SetFile(stack, "snapshot.json", data) },
		Journal: func(t *testing.T, stack state.StackID) []byte {
			return first.Files(stack)["journal"]
		},
		SetJournal: func(t *testing.T, stack state.StackID, data []byte) { first.SetFile(stack, "journal", data) },
	})
}
