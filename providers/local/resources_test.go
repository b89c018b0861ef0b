package local_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers/local"
)

// The typed constructors declare what the untyped registrations do, and
// their outputs decode into their fields.
func TestTypedResources(t *testing.T) {
	dir := t.TempDir()
	env := enginetest.New(t)
	env.Provider(local.Package, local.Version, local.New())
	var size int
	var perm, sum string
	_, err := env.Up(func(ctx *engine.Context) error {
		d := local.NewDirectory(ctx, "site", local.DirectoryArgs{Path: engine.Val(filepath.Join(dir, "site"))})
		f := local.NewFile(ctx, "index", local.FileArgs{
			Path:    engine.Apply(d.Path, func(p string) string { return filepath.Join(p, "index.html") }),
			Content: engine.Val("<h1>hi</h1>"),
		})
		var err error
		if size, err = f.Size.Await(ctx.Context()); err != nil {
			return err
		}
		if perm, err = f.Permissions.Await(ctx.Context()); err != nil {
			return err
		}
		sum, err = f.SHA256.Await(ctx.Context())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "site", "index.html"))
	if err != nil || string(data) != "<h1>hi</h1>" {
		t.Fatalf("file: %q, %v", data, err)
	}
	if size != len(data) || perm != "0644" || len(sum) != 64 {
		t.Errorf("size %d, permissions %q, sha256 %q", size, perm, sum)
	}
}
