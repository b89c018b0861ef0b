package local_test

import (
	"context"
	"errors"
	"io"
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

const helloSHA = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"

func TestFileCheck(t *testing.T) {
	p := local.New()
	tests := []struct {
		name       string
		news       resource.PropertyMap
		wantFailed []string
	}{
		{"valid", resource.PropertyMap{"path": str("f"), "content": str("x")}, nil},
		{"empty content is a file", resource.PropertyMap{"path": str("f"), "content": str("")}, nil},
		{"source", resource.PropertyMap{"path": str("f"), "source": resource.NewAssetValue(resource.NewTextAsset("x"))}, nil},
		{"no path", resource.PropertyMap{"content": str("x")}, []string{"path"}},
		{"empty path", resource.PropertyMap{"path": str(""), "content": str("x")}, []string{"path"}},
		{"path not a string", resource.PropertyMap{"path": resource.NewNumber(1), "content": str("x")}, []string{"path"}},
		{"neither content nor source", resource.PropertyMap{"path": str("f")}, []string{"content"}},
		{"both content and source", resource.PropertyMap{"path": str("f"), "content": str("x"), "source": resource.NewAssetValue(resource.NewTextAsset("x"))}, []string{"source"}},
		{"source not an asset", resource.PropertyMap{"path": str("f"), "source": str("x")}, []string{"source"}},
		{"unreadable source", resource.PropertyMap{"path": str("f"), "source": resource.NewAssetValue(resource.NewPathAsset("/does/not/exist"))}, []string{"source"}},
		{"bad permissions", resource.PropertyMap{"path": str("f"), "content": str("x"), "permissions": str("rw-r--r--")}, []string{"permissions"}},
		{"non-octal permissions", resource.PropertyMap{"path": str("f"), "content": str("x"), "permissions": str("0699")}, []string{"permissions"}},
		{"special bits", resource.PropertyMap{"path": str("f"), "content": str("x"), "permissions": str("4755")}, []string{"permissions"}},
		{"numeric permissions", resource.PropertyMap{"path": str("f"), "content": str("x"), "permissions": resource.NewNumber(644)}, []string{"permissions"}},
		{"unknown property", resource.PropertyMap{"path": str("f"), "content": str("x"), "mode": str("0644")}, []string{"mode"}},
		{"unknowns in a preview", resource.PropertyMap{"path": resource.NewUnknown(), "content": resource.NewUnknown(), "permissions": resource.NewUnknown()}, nil},
		{"secret content", resource.PropertyMap{"path": str("f"), "content": resource.NewSecret(str("x"))}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := failedProps(t, p, fileURN("f"), tt.news)
			if diff := cmp.Diff(tt.wantFailed, got); diff != "" {
				t.Errorf("failed properties (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFileCheckDefaults(t *testing.T) {
	p := local.New()
	tests := []struct {
		perms resource.PropertyValue
		want  string
	}{
		{resource.NewNull(), "0644"},
		{str("600"), "0600"},
		{str("0755"), "0755"},
	}
	for _, tt := range tests {
		got := check(t, p, fileURN("f"), resource.PropertyMap{"path": str("f"), "content": str("x"), "permissions": tt.perms})
		if got["permissions"].StringValue() != tt.want {
			t.Errorf("permissions %v checked to %v, want %q", tt.perms, got["permissions"], tt.want)
		}
	}
	// A source asset is hashed, so Diff can see its content change.
	got := check(t, p, fileURN("f"), resource.PropertyMap{"path": str("f"), "source": resource.NewAssetValue(resource.NewPathAsset(writeTemp(t, "hello")))})
	if h := got["source"].AssetValue().Hash; h != helloSHA {
		t.Errorf("checked source hash = %q, want %q", h, helloSHA)
	}
}

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "src")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFileCreate(t *testing.T) {
	p := local.New()
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "dir", "f.txt")
	r := create(t, p, fileURN("f"), resource.PropertyMap{"path": str(path), "content": str("hello"), "permissions": str("0600")})

	if r.id != resource.ID(path) {
		t.Errorf("ID = %q, want the absolute path %q", r.id, path)
	}
	want := resource.PropertyMap{
		"path": str(path), "content": str("hello"), "permissions": str("0600"),
		"sha256": str(helloSHA), "size": resource.NewNumber(5),
	}
	if diff := cmp.Diff(want, r.outputs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	assertFile(t, path, "hello", 0o600)
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("the directory holds %d entries, want only the file (no temporary left behind)", len(entries))
	}
}

func assertFile(t *testing.T, path, content string, mode fs.FileMode) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != content {
		t.Errorf("%s holds %q, want %q", path, data, content)
	}
	info, _ := os.Stat(path)
	if info.Mode().Perm() != mode {
		t.Errorf("%s has mode %v, want %v", path, info.Mode().Perm(), mode)
	}
}

func TestFileCreateFromSource(t *testing.T) {
	p := local.New()
	path := filepath.Join(t.TempDir(), "f")
	src := resource.NewAssetValue(resource.NewPathAsset(writeTemp(t, "hello")))
	r := create(t, p, fileURN("f"), resource.PropertyMap{"path": str(path), "source": src})
	assertFile(t, path, "hello", 0o644)
	if got := r.outputs["sha256"].StringValue(); got != helloSHA {
		t.Errorf("sha256 = %q, want %q", got, helloSHA)
	}
}

func TestFileCreateRefusesExistingFile(t *testing.T) {
	p := local.New()
	path := writeTemp(t, "precious")
	inputs := check(t, p, fileURN("f"), resource.PropertyMap{"path": str(path), "content": str("clobber")})
	_, err := p.Create(t.Context(), providers.CreateRequest{URN: fileURN("f"), Inputs: inputs})
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), path) {
		t.Errorf("Create over an existing file = %v, want an error wrapping fs.ErrExist naming %s", err, path)
	}
	if err != nil && strings.Count(err.Error(), "exists") != 1 {
		t.Errorf("Create over an existing file = %q; want it to say once that the file exists", err)
	}
	assertFile(t, path, "precious", 0o644)
}

func TestFileSecretContent(t *testing.T) {
	p := local.New()
	path := filepath.Join(t.TempDir(), "f")
	r := create(t, p, fileURN("f"), resource.PropertyMap{"path": str(path), "content": resource.NewSecret(str("hello"))})
	for _, k := range []resource.PropertyKey{"content", "sha256"} {
		if !r.outputs[k].IsSecret() {
			t.Errorf("output %s = %v, want a secret", k, r.outputs[k])
		}
	}
	assertFile(t, path, "hello", 0o644)
}

func TestFilePreview(t *testing.T) {
	p := local.New()
	path := filepath.Join(t.TempDir(), "f")
	tests := []struct {
		name    string
		news    resource.PropertyMap
		wantSHA resource.PropertyValue
	}{
		{"known content", resource.PropertyMap{"path": str(path), "content": str("hello")}, str(helloSHA)},
		{"unknown content", resource.PropertyMap{"path": str(path), "content": resource.NewUnknown()}, resource.NewUnknown()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inputs := check(t, p, fileURN("f"), tt.news)
			resp, err := p.Create(t.Context(), providers.CreateRequest{URN: fileURN("f"), Inputs: inputs, Preview: true})
			if err != nil {
				t.Fatal(err)
			}
			if !resp.Outputs["sha256"].DeepEquals(tt.wantSHA) {
				t.Errorf("sha256 = %v, want %v", resp.Outputs["sha256"], tt.wantSHA)
			}
			if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a preview wrote %s (stat: %v)", path, err)
			}
		})
	}
}

func TestFileDiff(t *testing.T) {
	p := local.New()
	dir := t.TempDir()
	t.Chdir(dir)
	path := filepath.Join(dir, "f")
	base := resource.PropertyMap{"path": str(path), "content": str("a")}
	with := func(k resource.PropertyKey, v resource.PropertyValue) resource.PropertyMap {
		m := base.Copy()
		m[k] = v
		return m
	}
	r := create(t, p, fileURN("f"), base)
	tests := []struct {
		name    string
		news    resource.PropertyMap
		changes resource.DiffChanges
		want    map[string]string
	}{
		{"unchanged", base, resource.DiffNone, map[string]string{}},
		{"default permissions written out", with("permissions", str("644")), resource.DiffNone, map[string]string{}},
		{"content", with("content", str("b")), resource.DiffSome, map[string]string{"content": "update"}},
		{"permissions", with("permissions", str("0600")), resource.DiffSome, map[string]string{"permissions": "update"}},
		{"another file", with("path", str(filepath.Join(dir, "g"))), resource.DiffSome, map[string]string{"path": "update-replace"}},
		{"same file spelled differently", with("path", str("./f")), resource.DiffSome, map[string]string{"path": "update"}},
		{"unknown path", with("path", resource.NewUnknown()), resource.DiffSome, map[string]string{"path": "update-replace"}},
		{"unknown content", with("content", resource.NewUnknown()), resource.DiffSome, map[string]string{"content": "update"}},
		{"content to source", resource.PropertyMap{"path": str(path), "source": resource.NewAssetValue(resource.NewTextAsset("a"))}, resource.DiffSome,
			map[string]string{"content": "delete", "source": "add"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := diff(t, p, r, tt.news)
			wantDiff(t, d, tt.changes, tt.want)
			if wantReplace := strings.Contains(tt.want["path"], "replace"); d.Replace() != wantReplace {
				t.Errorf("Replace() = %v, want %v (ReplaceKeys %v)", d.Replace(), wantReplace, d.ReplaceKeys)
			}
		})
	}

	// The same relative path, seen from another working directory, is
	// another file.
	rel := create(t, p, fileURN("rel"), resource.PropertyMap{"path": str("rel"), "content": str("a")})
	t.Chdir(t.TempDir())
	d := diff(t, p, rel, resource.PropertyMap{"path": str("rel"), "content": str("a")})
	wantDiff(t, d, resource.DiffSome, map[string]string{"path": "update-replace"})
}

func TestFileUpdate(t *testing.T) {
	p := local.New()
	path := filepath.Join(t.TempDir(), "f")
	r := create(t, p, fileURN("f"), resource.PropertyMap{"path": str(path), "content": str("a")})

	r = update(t, p, r, resource.PropertyMap{"path": str(path), "content": str("hello"), "permissions": str("0640")})
	assertFile(t, path, "hello", 0o640)
	if got := r.outputs["sha256"].StringValue(); got != helloSHA {
		t.Errorf("sha256 after update = %q, want %q", got, helloSHA)
	}

	// An update writes the file back even if it was removed meanwhile.
	os.Remove(path)
	update(t, p, r, resource.PropertyMap{"path": str(path), "content": str("again")})
	assertFile(t, path, "again", 0o644)

	// A preview changes nothing.
	inputs := check(t, p, r.urn, resource.PropertyMap{"path": str(path), "content": str("previewed")})
	if _, err := p.Update(t.Context(), providers.UpdateRequest{URN: r.urn, ID: r.id, OldInputs: r.inputs, OldOutputs: r.outputs, NewInputs: inputs, Preview: true}); err != nil {
		t.Fatal(err)
	}
	assertFile(t, path, "again", 0o644)

	// Moving the file is not an update.
	moved := check(t, p, r.urn, resource.PropertyMap{"path": str(path + "2"), "content": str("x")})
	if _, err := p.Update(t.Context(), providers.UpdateRequest{URN: r.urn, ID: r.id, NewInputs: moved}); err == nil {
		t.Error("Update to another path succeeded, want an error: it needs a replacement")
	}
}

func TestFileReadPicksUpOutsideChanges(t *testing.T) {
	p := local.New()
	path := filepath.Join(t.TempDir(), "f")
	r := create(t, p, fileURN("f"), resource.PropertyMap{"path": str(path), "content": str("desired")})

	if got := read(t, p, r); got.ID != r.id || !got.Inputs.DeepEquals(r.inputs) || !got.Outputs.DeepEquals(r.outputs) {
		t.Errorf("Read of an untouched file = %+v, want the recorded state", got)
	}

	// Someone edits the file and its mode by hand.
	if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	got := read(t, p, r)
	wantInputs := resource.PropertyMap{"path": str(path), "content": str("hello"), "permissions": str("0600")}
	if diff := cmp.Diff(wantInputs, got.Inputs); diff != "" {
		t.Errorf("Read inputs after a hand edit (-want +got):\n%s", diff)
	}
	if sha := got.Outputs["sha256"].StringValue(); sha != helloSHA {
		t.Errorf("Read sha256 = %q, want %q", sha, helloSHA)
	}

	// The next update sees the drift and puts the desired file back.
	r = live{urn: r.urn, id: got.ID, inputs: got.Inputs, outputs: got.Outputs}
	d := diff(t, p, r, resource.PropertyMap{"path": str(path), "content": str("desired")})
	wantDiff(t, d, resource.DiffSome, map[string]string{"content": "update", "permissions": "update"})
	update(t, p, r, resource.PropertyMap{"path": str(path), "content": str("desired")})
	assertFile(t, path, "desired", 0o644)

	// Someone removes it: Read reports it gone.
	os.Remove(path)
	if got := read(t, p, r); got.ID != "" {
		t.Errorf("Read of a removed file returned ID %q, want empty", got.ID)
	}
}

func TestFileReadSourceDrift(t *testing.T) {
	p := local.New()
	path := filepath.Join(t.TempDir(), "f")
	src := resource.NewAssetValue(resource.NewTextAsset("desired"))
	r := create(t, p, fileURN("f"), resource.PropertyMap{"path": str(path), "source": src})
	if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := read(t, p, r)
	if a := got.Inputs["source"].AssetValue(); a == nil || a.Hash != helloSHA {
		t.Errorf("Read source after a hand edit = %v, want an asset of the file's content", got.Inputs["source"])
	}
	r = live{urn: r.urn, id: got.ID, inputs: got.Inputs, outputs: got.Outputs}
	wantDiff(t, diff(t, p, r, resource.PropertyMap{"path": str(path), "source": src}), resource.DiffSome, map[string]string{"source": "update"})
}

func TestFileImport(t *testing.T) {
	p := local.New()
	path := writeTemp(t, "hello")
	got, err := p.Read(t.Context(), providers.ReadRequest{URN: fileURN("f"), ID: resource.ID(path)})
	if err != nil {
		t.Fatal(err)
	}
	want := providers.ReadResponse{
		ID:     resource.ID(path),
		Inputs: resource.PropertyMap{"path": str(path), "content": str("hello"), "permissions": str("0644")},
		Outputs: resource.PropertyMap{"path": str(path), "content": str("hello"), "permissions": str("0644"),
			"sha256": str(helloSHA), "size": resource.NewNumber(5)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("import Read (-want +got):\n%s", diff)
	}
	// The program that declares the imported file sees no change.
	r := live{urn: fileURN("f"), id: got.ID, inputs: got.Inputs, outputs: got.Outputs}
	wantDiff(t, diff(t, p, r, resource.PropertyMap{"path": str(path), "content": str("hello")}), resource.DiffNone, map[string]string{})
}

func TestFileDelete(t *testing.T) {
	p := local.New()
	path := filepath.Join(t.TempDir(), "f")
	r := create(t, p, fileURN("f"), resource.PropertyMap{"path": str(path), "content": str("x")})
	for range 2 { // the second time, the file is already gone
		if _, err := p.Delete(t.Context(), providers.DeleteRequest{URN: r.urn, ID: r.id, Inputs: r.inputs, Outputs: r.outputs}); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("after Delete, stat = %v, want not found", err)
		}
	}
}

func TestUnknownType(t *testing.T) {
	p := local.New()
	urn := resource.NewURN("test", "local", "", "local:index:Symlink", "s")
	_, err := p.Check(t.Context(), providers.CheckRequest{URN: urn, News: resource.PropertyMap{}})
	if err == nil || !strings.Contains(err.Error(), "local:index:Symlink") || !strings.Contains(err.Error(), local.FileType) {
		t.Errorf("Check of an unknown type = %v, want an error naming it and the known types", err)
	}
}

func TestRegister(t *testing.T) {
	reg := providers.NewRegistry()
	defer reg.Close(context.Background())
	if err := local.Register(reg); err != nil {
		t.Fatal(err)
	}
	info, err := reg.Lookup(local.Package, "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if info.Version != local.Version {
		t.Errorf("registered version %s, want %s", info.Version, local.Version)
	}
}

// fetcher is a resource.Source that serves URIs from memory and opens no
// local file.
type fetcher map[string]string

func (f fetcher) Open(context.Context, string) (fs.File, error) { return nil, fs.ErrPermission }

func (f fetcher) Fetch(_ context.Context, uri string) (io.ReadCloser, error) {
	s, ok := f[uri]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return io.NopCloser(strings.NewReader(s)), nil
}

// A File's source asset is read through the Source the host configured,
// in Check (its hash) and in Create (its content).
func TestFileSourceFromConfiguration(t *testing.T) {
	p := local.New(local.WithSource(fetcher{"s3://bucket/hello": "hello"}))
	path := filepath.Join(t.TempDir(), "f.txt")
	r := create(t, p, fileURN("f"), resource.PropertyMap{"path": str(path), "source": resource.NewAssetValue(resource.NewURIAsset("s3://bucket/hello"))})
	if got := r.inputs["source"].AssetValue().Hash; got != helloSHA {
		t.Errorf("the checked source's hash = %s, want %s", got, helloSHA)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "hello" {
		t.Errorf("the file holds %q, %v", b, err)
	}
	failed := failedProps(t, p, fileURN("g"), resource.PropertyMap{"path": str(path), "source": resource.NewAssetValue(resource.NewPathAsset("/etc/hostname"))})
	if diff := cmp.Diff([]string{"source"}, failed); diff != "" {
		t.Errorf("a path the Source refuses: failed properties (-want +got):\n%s", diff)
	}
}
