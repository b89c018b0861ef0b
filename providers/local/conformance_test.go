package local_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/local"
	"github.com/groundwork-iac/groundwork/providers/providertest"
	"github.com/groundwork-iac/groundwork/resource"
)

// countEntries counts the entries of dir: the resources the suite made.
func countEntries(t *testing.T, dir string) func() int {
	return func() int {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		return len(entries)
	}
}

func TestConformanceFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	providertest.Run(t, providertest.Harness{
		New:  func(*testing.T) providers.Provider { return local.New() },
		Type: local.FileType,
		Inputs: resource.PropertyMap{
			"path":    resource.NewString(path),
			"content": resource.NewString("one"),
		},
		Update: resource.PropertyMap{
			"path":        resource.NewString(path),
			"content":     resource.NewString("two"),
			"permissions": resource.NewString("0600"),
		},
		Replace: resource.PropertyMap{
			"path":    resource.NewString(filepath.Join(dir, "g.txt")),
			"content": resource.NewString("one"),
		},
		Count:                countEntries(t, dir),
		RespectsCancellation: true,
		// A File is its path: creates of the same inputs cannot give
		// distinct resources, so the suite creates one at a time.
		Concurrency: 1,
	})
}

func TestConformanceDirectory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "d")
	providertest.Run(t, providertest.Harness{
		New:     func(*testing.T) providers.Provider { return local.New() },
		Type:    local.DirectoryType,
		Inputs:  resource.PropertyMap{"path": resource.NewString(path)},
		Update:  resource.PropertyMap{"path": resource.NewString(path), "permissions": resource.NewString("0700")},
		Replace: resource.PropertyMap{"path": resource.NewString(filepath.Join(dir, "e"))},
		Count:   countEntries(t, dir),
		// As for File, the path is the resource.
		Concurrency:          1,
		RespectsCancellation: true,
	})
}
