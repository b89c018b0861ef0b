package resource_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/groundwork-iac/groundwork/resource"
)

// archiveFiles is the content every form of archive below holds. "a-c"
// sorts before "a.txt" and "dir/..." differently from a per-directory
// listing, which catches order-dependent hashing.
var archiveFiles = map[string]string{
	"a.txt":         "alpha",
	"a-c/d.txt":     "delta",
	"dir/b.txt":     "beta",
	"dir/sub/c.txt": "gamma",
	"empty":         "",
}

// archiveOrder is a deliberately unsorted order for writing archive files.
var archiveOrder = []string{"dir/sub/c.txt", "empty", "a.txt", "dir/b.txt", "a-c/d.txt"}

func writeFolder(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

type tarEntry struct {
	name, content string
	typ           byte
}

func tarBytes(t *testing.T, entries []tarEntry, gz bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.Writer = &buf
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(&buf)
		w = zw
	}
	tw := tar.NewWriter(w)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		h := &tar.Header{Name: e.name, Typeflag: typ, Mode: 0o644, Size: int64(len(e.content))}
		if typ != tar.TypeReg {
			h.Size = 0
			h.Linkname = "target"
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func standardTarEntries() []tarEntry {
	entries := []tarEntry{{name: "./", typ: tar.TypeDir}, {name: "./dir/", typ: tar.TypeDir}}
	for _, name := range archiveOrder {
		entries = append(entries, tarEntry{name: "./" + name, content: archiveFiles[name]})
	}
	return entries
}

func zipBytes(t *testing.T, names []string, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	if _, err := zw.Create("dir/"); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, files[name])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustAssetArchive(t *testing.T, m map[string]resource.AssetOrArchive) *resource.Archive {
	t.Helper()
	a, err := resource.NewAssetArchive(m)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// archiveForms returns the same content as every kind of archive.
func archiveForms(t *testing.T) map[string]*resource.Archive {
	folder := writeFolder(t, archiveFiles)
	flat := map[string]resource.AssetOrArchive{}
	for name, content := range archiveFiles {
		flat[name] = resource.AssetOrArchive{Asset: resource.NewTextAsset(content)}
	}
	sub := mustAssetArchive(t, map[string]resource.AssetOrArchive{"c.txt": {Asset: resource.NewTextAsset("gamma")}})
	dir := mustAssetArchive(t, map[string]resource.AssetOrArchive{
		"b.txt": {Asset: resource.NewPathAsset(filepath.Join(folder, "dir", "b.txt"))},
		"sub":   {Archive: sub},
	})
	nested := mustAssetArchive(t, map[string]resource.AssetOrArchive{
		"a.txt": {Asset: resource.NewTextAsset("alpha")},
		"a-c":   {Archive: resource.NewPathArchive(filepath.Join(folder, "a-c"))},
		"dir":   {Archive: dir},
		"empty": {Asset: resource.NewURIAsset(fileURI(filepath.Join(folder, "empty")))},
	})
	reversed := append([]string(nil), archiveOrder...)
	for i, j := 0, len(reversed)-1; i < j; i, j = i+1, j-1 {
		reversed[i], reversed[j] = reversed[j], reversed[i]
	}
	return map[string]*resource.Archive{
		"folder":        resource.NewPathArchive(folder),
		"folder URI":    resource.NewURIArchive(fileURI(folder)),
		"tar":           resource.NewPathArchive(writeFile(t, "x.tar", tarBytes(t, standardTarEntries(), false))),
		"tar.gz":        resource.NewPathArchive(writeFile(t, "x.tar.gz", tarBytes(t, standardTarEntries(), true))),
		"tgz URI":       resource.NewURIArchive(fileURI(writeFile(t, "x.tgz", tarBytes(t, standardTarEntries(), true)))),
		"zip":           resource.NewPathArchive(writeFile(t, "x.zip", zipBytes(t, archiveOrder, archiveFiles))),
		"zip reversed":  resource.NewPathArchive(writeFile(t, "y.ZIP", zipBytes(t, reversed, archiveFiles))),
		"flat map":      mustAssetArchive(t, flat),
		"nested map":    nested,
		"map of folder": mustAssetArchive(t, map[string]resource.AssetOrArchive{"x": {Archive: resource.NewPathArchive(folder)}}),
	}
}

func TestArchiveHashesAgreeAcrossForms(t *testing.T) {
	ctx := context.Background()
	forms := archiveForms(t)
	want, err := forms["flat map"].ComputeHash(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	for name, a := range forms {
		t.Run(name, func(t *testing.T) {
			if err := a.EnsureHash(ctx, src); err != nil {
				t.Fatal(err)
			}
			if name == "map of folder" {
				if a.Hash == want {
					t.Errorf("a folder nested under x/ hashes like the folder itself")
				}
				return
			}
			if a.Hash != want {
				t.Errorf("Hash = %s, want %s (the flat map's)", a.Hash, want)
			}
		})
	}
}

func TestArchiveHashChangesWithContentAndNames(t *testing.T) {
	ctx := context.Background()
	hash := func(files map[string]string) string {
		m := map[string]resource.AssetOrArchive{}
		for k, v := range files {
			m[k] = resource.AssetOrArchive{Asset: resource.NewTextAsset(v)}
		}
		h, err := mustAssetArchive(t, m).ComputeHash(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	base := hash(map[string]string{"a": "1", "b": "2"})
	for name, files := range map[string]map[string]string{
		"content": {"a": "1", "b": "3"},
		"name":    {"a": "1", "c": "2"},
		"swap":    {"a": "2", "b": "1"},
		"extra":   {"a": "1", "b": "2", "c": ""},
		"joined":  {"a1b": "2"},
	} {
		if hash(files) == base {
			t.Errorf("changing %s does not change the hash", name)
		}
	}
}

func TestArchiveOpen(t *testing.T) {
	ctx := context.Background()
	want := []string{"a-c/d.txt=delta", "a.txt=alpha", "dir/b.txt=beta", "dir/sub/c.txt=gamma", "empty="}
	for name, a := range archiveForms(t) {
		if name == "map of folder" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			r, err := a.Open(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if r.Len() != len(want) {
				t.Errorf("Len() = %d, want %d", r.Len(), len(want))
			}
			var got []string
			for {
				member, content, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(content)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, member+"="+string(b))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("members (-want +got):\n%s", diff)
			}
			if err := r.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}

func TestArchiveRejectsBadMembers(t *testing.T) {
	ctx := context.Background()
	text := resource.AssetOrArchive{Asset: resource.NewTextAsset("x")}
	for _, name := range []string{"../evil", "a/../../evil", "/etc/passwd", "", "a//b", "./a", "a/", "."} {
		if _, err := resource.NewAssetArchive(map[string]resource.AssetOrArchive{name: text}); err == nil {
			t.Errorf("NewAssetArchive accepted member %q", name)
		}
	}
	if _, err := resource.NewAssetArchive(map[string]resource.AssetOrArchive{"x": {}}); err == nil {
		t.Errorf("NewAssetArchive accepted a member with neither asset nor archive")
	}
	evilZip := writeFile(t, "evil.zip", zipBytes(t, []string{"ok", "../../evil"}, map[string]string{"ok": "1", "../../evil": "2"}))
	tests := []struct {
		name    string
		archive *resource.Archive
		want    string
	}{
		{"tar traversal", resource.NewPathArchive(writeFile(t, "e.tar", tarBytes(t, []tarEntry{{name: "../evil", content: "x"}}, false))), `contains ".." and would escape`},
		{"tgz absolute", resource.NewPathArchive(writeFile(t, "e.tgz", tarBytes(t, []tarEntry{{name: "/etc/x", content: "x"}}, true))), "absolute"},
		{"tar symlink", resource.NewPathArchive(writeFile(t, "l.tar", tarBytes(t, []tarEntry{{name: "link", typ: tar.TypeSymlink}}, false))), "not a regular file"},
		{"tar duplicate", resource.NewPathArchive(writeFile(t, "d.tar", tarBytes(t, []tarEntry{{name: "a"}, {name: "./a"}}, false))), `two members named "a"`},
		{"zip traversal", resource.NewPathArchive(evilZip), "would escape"},
		{"struct traversal", &resource.Archive{Assets: map[string]resource.AssetOrArchive{"../x": text}}, "would escape"},
		{"map and nested collide", &resource.Archive{Assets: map[string]resource.AssetOrArchive{
			"a/b": text, "a": {Archive: &resource.Archive{Assets: map[string]resource.AssetOrArchive{"b": text}}}}}, `two members named "a/b"`},
		{"unknown format", resource.NewPathArchive(writeFile(t, "x.rar", []byte("x"))), "cannot tell the archive format"},
		{"missing", resource.NewPathArchive(filepath.Join(t.TempDir(), "nope.zip")), "no such file"},
		{"corrupt zip", resource.NewPathArchive(writeFile(t, "bad.zip", []byte("not a zip"))), "zip archive"},
		{"corrupt tgz", resource.NewPathArchive(writeFile(t, "bad.tgz", []byte("not gzip"))), "tar.gz archive"},
		{"two sources", &resource.Archive{Path: "a", URI: "file:///b"}, "exactly one source"},
		{"bad asset member", &resource.Archive{Assets: map[string]resource.AssetOrArchive{"m": {Asset: resource.NewPathAsset(filepath.Join(t.TempDir(), "gone"))}}}, "no such file"},
		{"unsupported URI", resource.NewURIArchive("ftp://host/x.zip"), "unsupported scheme"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.archive.ComputeHash(ctx, src)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ComputeHash error = %v, want one containing %q", err, tt.want)
			}
			r, err := tt.archive.Open(ctx, src)
			if err == nil {
				// Lazily read members fail on Next instead.
				for err == nil {
					_, _, err = r.Next()
				}
				r.Close()
			}
			if err == nil || errors.Is(err, io.EOF) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open/Next error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestArchiveSelfCycle(t *testing.T) {
	a := &resource.Archive{Assets: map[string]resource.AssetOrArchive{}}
	a.Assets["me"] = resource.AssetOrArchive{Archive: a}
	if _, err := a.ComputeHash(context.Background(), src); err == nil || !strings.Contains(err.Error(), "contains itself") {
		t.Errorf("ComputeHash error = %v, want a cycle error", err)
	}
}

func TestEmptyArchive(t *testing.T) {
	ctx := context.Background()
	empty := mustAssetArchive(t, nil)
	folder := resource.NewPathArchive(t.TempDir())
	h1, err1 := empty.ComputeHash(ctx, src)
	h2, err2 := folder.ComputeHash(ctx, src)
	if err1 != nil || err2 != nil || h1 != h2 {
		t.Errorf("empty map %s (%v) vs empty folder %s (%v)", h1, err1, h2, err2)
	}
}

func TestArchiveFolderSymlinks(t *testing.T) {
	ctx := context.Background()
	folder := writeFolder(t, map[string]string{"real.txt": "r"})
	outside := writeFolder(t, map[string]string{"o.txt": "o"})
	if err := os.Symlink(filepath.Join(outside, "o.txt"), filepath.Join(folder, "link.txt")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	if err := os.Symlink(outside, filepath.Join(folder, "linkdir")); err != nil {
		t.Fatal(err)
	}
	rootLink := filepath.Join(t.TempDir(), "root")
	if err := os.Symlink(folder, rootLink); err != nil {
		t.Fatal(err)
	}
	want, err := mustAssetArchive(t, map[string]resource.AssetOrArchive{
		"real.txt": {Asset: resource.NewTextAsset("r")},
		"link.txt": {Asset: resource.NewTextAsset("o")},
	}).ComputeHash(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{folder, rootLink} {
		got, err := resource.NewPathArchive(p).ComputeHash(ctx, src)
		if err != nil || got != want {
			t.Errorf("hash of %s = %s, %v; want %s (file links followed, folder links not)", p, got, err, want)
		}
	}
}
