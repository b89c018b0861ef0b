package local_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/local"
	"github.com/groundwork-iac/groundwork/resource"
)

func TestDirectoryCheck(t *testing.T) {
	p := local.New()
	tests := []struct {
		name       string
		news       resource.PropertyMap
		wantFailed []string
	}{
		{"valid", resource.PropertyMap{"path": str("d")}, nil},
		{"no path", resource.PropertyMap{}, []string{"path"}},
		{"bad permissions", resource.PropertyMap{"path": str("d"), "permissions": str("888")}, []string{"permissions"}},
		{"content is for files", resource.PropertyMap{"path": str("d"), "content": str("x")}, []string{"content"}},
		{"unknowns in a preview", resource.PropertyMap{"path": resource.NewUnknown()}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.wantFailed, failedProps(t, p, dirURN("d"), tt.news)); diff != "" {
				t.Errorf("failed properties (-want +got):\n%s", diff)
			}
		})
	}
	if got := check(t, p, dirURN("d"), resource.PropertyMap{"path": str("d")}); got["permissions"].StringValue() != "0755" {
		t.Errorf("default permissions = %v, want 0755", got["permissions"])
	}
}

func TestDirectoryLifecycle(t *testing.T) {
	p := local.New()
	path := filepath.Join(t.TempDir(), "a", "b")
	r := create(t, p, dirURN("d"), resource.PropertyMap{"path": str(path), "permissions": str("0700")})
	if r.id != resource.ID(path) {
		t.Errorf("ID = %q, want %q", r.id, path)
	}
	assertDir(t, path, 0o700)
	if diff := cmp.Diff(resource.PropertyMap{"path": str(path), "permissions": str("0700")}, r.outputs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}

	wantDiff(t, diff(t, p, r, resource.PropertyMap{"path": str(path), "permissions": str("0750")}), resource.DiffSome, map[string]string{"permissions": "update"})
	wantDiff(t, diff(t, p, r, resource.PropertyMap{"path": str(path + "c"), "permissions": str("0700")}), resource.DiffSome, map[string]string{"path": "update-replace"})

	r = update(t, p, r, resource.PropertyMap{"path": str(path), "permissions": str("0750")})
	assertDir(t, path, 0o750)

	// A chmod by hand shows in Read.
	os.Chmod(path, 0o711)
	if got := read(t, p, r); got.Inputs["permissions"].StringValue() != "0711" {
		t.Errorf("Read permissions after a chmod = %v, want 0711", got.Inputs["permissions"])
	}

	// Not empty: Delete refuses and names the directory and its contents.
	if err := os.WriteFile(filepath.Join(path, "stray"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := p.Delete(t.Context(), providers.DeleteRequest{URN: r.urn, ID: r.id})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "stray") {
		t.Errorf("Delete of a non-empty directory = %v, want an error naming %s and stray", err, path)
	}
	assertDir(t, path, 0o711)

	os.Remove(filepath.Join(path, "stray"))
	if _, err := p.Delete(t.Context(), providers.DeleteRequest{URN: r.urn, ID: r.id}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Delete, stat = %v, want not found", err)
	}
	if _, err := os.Stat(filepath.Dir(path)); err != nil {
		t.Errorf("Delete removed the parent directory too: %v", err)
	}
	if got := read(t, p, r); got.ID != "" {
		t.Errorf("Read of a removed directory returned ID %q, want empty", got.ID)
	}
}

func assertDir(t *testing.T, path string, mode fs.FileMode) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !info.IsDir() || info.Mode().Perm() != mode {
		t.Errorf("%s: dir %v mode %v, want a directory with mode %v", path, info.IsDir(), info.Mode().Perm(), mode)
	}
}

func TestDirectoryCreateOverAFile(t *testing.T) {
	p := local.New()
	path := writeTemp(t, "x")
	inputs := check(t, p, dirURN("d"), resource.PropertyMap{"path": str(path)})
	if _, err := p.Create(t.Context(), providers.CreateRequest{URN: dirURN("d"), Inputs: inputs}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Create over a file = %v, want a not-a-directory error", err)
	}
}

func TestDirectoryImport(t *testing.T) {
	p := local.New()
	path := t.TempDir()
	os.Chmod(path, 0o755)
	got, err := p.Read(t.Context(), providers.ReadRequest{URN: dirURN("d"), ID: resource.ID(path)})
	if err != nil {
		t.Fatal(err)
	}
	want := resource.PropertyMap{"path": str(path), "permissions": str("0755")}
	if diff := cmp.Diff(providers.ReadResponse{ID: resource.ID(path), Inputs: want, Outputs: want}, got); diff != "" {
		t.Errorf("import Read (-want +got):\n%s", diff)
	}
}
