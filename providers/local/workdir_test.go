package local_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/local"
	"github.com/groundwork-iac/groundwork/resource"
)

// With WorkDir, a relative path is taken from that folder, as Pulumi's
// local provider takes it from the program's folder it starts in, and not
// from this process's working folder: a File's and a Directory's path, a
// File's source asset and an imported resource's ID. An absolute path is
// kept. The path as written stays the input; the ID is the absolute path,
// and the same path written again changes nothing.
func TestWorkDir(t *testing.T) {
	wd, other := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(wd, "src.txt"), []byte("from the source"), 0o644); err != nil {
		t.Fatal(err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	p := local.New(local.WorkDir(wd))

	dir := create(t, p, dirURN("d"), resource.PropertyMap{"path": str("sub")})
	if want := filepath.Join(wd, "sub"); string(dir.id) != want {
		t.Errorf("Directory ID = %s, want %s", dir.id, want)
	}
	if info, err := os.Stat(filepath.Join(wd, "sub")); err != nil || !info.IsDir() {
		t.Errorf("the directory is not in the working folder: %v", err)
	}

	tests := []struct {
		name   string
		inputs resource.PropertyMap
		want   string // the file's absolute path
		data   string
	}{
		{"relative path", resource.PropertyMap{"path": str("sub/a.txt"), "content": str("a")}, filepath.Join(wd, "sub", "a.txt"), "a"},
		{"absolute path", resource.PropertyMap{"path": str(filepath.Join(other, "b.txt")), "content": str("b")}, filepath.Join(other, "b.txt"), "b"},
		{"relative source", resource.PropertyMap{"path": str("c.txt"), "source": resource.NewAssetValue(resource.NewPathAsset("src.txt"))}, filepath.Join(wd, "c.txt"), "from the source"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := create(t, p, fileURN(tt.name), tt.inputs)
			if string(r.id) != tt.want {
				t.Errorf("ID = %s, want %s", r.id, tt.want)
			}
			if b, err := os.ReadFile(tt.want); err != nil || string(b) != tt.data {
				t.Errorf("%s holds %q, %v; want %q", tt.want, b, err, tt.data)
			}
			if d := diff(t, p, r, tt.inputs); d.Changes != resource.DiffNone {
				t.Errorf("the same inputs again: Changes = %v (%v), want none", d.Changes, kinds(d))
			}
			got := read(t, p, r)
			if got.ID != r.id || got.Outputs["size"].NumberValue() != float64(len(tt.data)) {
				t.Errorf("Read = %v %v, want the file at %s", got.ID, got.Outputs, r.id)
			}
		})
	}

	for _, name := range []string{"sub", "c.txt"} {
		if _, err := os.Stat(filepath.Join(cwd, name)); err == nil {
			t.Errorf("%s was made in this process's working folder", name)
		}
	}

	// An import by a relative ID reads the file in the working folder.
	imported, err := p.Read(t.Context(), providers.ReadRequest{URN: fileURN("imported"), ID: "sub/a.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if got := imported.Outputs["content"].StringValue(); got != "a" {
		t.Errorf("import of sub/a.txt read %q, want %q (the file in the working folder)", got, "a")
	}
	if _, err := p.Delete(t.Context(), providers.DeleteRequest{URN: fileURN("imported"), ID: "sub/a.txt"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(wd, "sub", "a.txt")); err == nil {
		t.Error("a delete by a relative ID left the file in the working folder")
	}
}
