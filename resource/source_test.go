package resource_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/groundwork-iac/groundwork/resource"
)

// memSource is a resource.Source over memory: files by path, and URIs
// whose contents it serves itself. It records what it was asked for.
type memSource struct {
	files fstest.MapFS
	uris  map[string][]byte
	asked []string
}

func (m *memSource) Open(_ context.Context, path string) (fs.File, error) {
	m.asked = append(m.asked, "open "+path)
	return m.files.Open(strings.TrimPrefix(path, "/"))
}

func (m *memSource) Fetch(_ context.Context, uri string) (io.ReadCloser, error) {
	m.asked = append(m.asked, "fetch "+uri)
	b, ok := m.uris[uri]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// Everything an asset or an archive names is read through the Source the
// caller passes: local paths (file:// URIs among them) with Open, other
// URIs with Fetch, whatever their scheme.
func TestContentsComeFromTheSource(t *testing.T) {
	ctx := context.Background()
	tgz := tarBytes(t, []tarEntry{{name: "a.txt", content: "alpha"}, {name: "dir/b.txt", content: "beta"}}, true)
	src := &memSource{
		files: fstest.MapFS{
			"site/a.txt":     {Data: []byte("alpha")},
			"site/dir/b.txt": {Data: []byte("beta")},
			"notes.txt":      {Data: []byte("hello")},
		},
		uris: map[string][]byte{"s3://bucket/site.tgz": tgz, "s3://bucket/notes": []byte("hello")},
	}
	want, err := mustAssetArchive(t, map[string]resource.AssetOrArchive{
		"a.txt":     {Asset: resource.NewTextAsset("alpha")},
		"dir/b.txt": {Asset: resource.NewTextAsset("beta")},
	}).ComputeHash(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []*resource.Archive{
		resource.NewPathArchive("/site"),
		resource.NewURIArchive("file:///site"),
		resource.NewURIArchive("s3://bucket/site.tgz"),
	} {
		got, err := a.ComputeHash(ctx, src)
		if err != nil || got != want {
			t.Errorf("hash of %+v = %s, %v; want %s", a, got, err, want)
		}
	}
	for _, a := range []*resource.Asset{resource.NewPathAsset("/notes.txt"), resource.NewURIAsset("s3://bucket/notes")} {
		b, err := a.Bytes(ctx, src)
		if err != nil || string(b) != "hello" {
			t.Errorf("Bytes of %+v = %q, %v", a, b, err)
		}
	}
	// A folder is listed first, then its files are read in name order.
	wantAsked := []string{
		"open /site", "open /site/dir", "open /site/a.txt", "open /site/dir/b.txt",
		"open /site", "open /site/dir", "open /site/a.txt", "open /site/dir/b.txt",
		"fetch s3://bucket/site.tgz",
		"open /notes.txt", "fetch s3://bucket/notes",
	}
	if strings.Join(src.asked, "\n") != strings.Join(wantAsked, "\n") {
		t.Errorf("the Source was asked for\n%s\nwant\n%s", strings.Join(src.asked, "\n"), strings.Join(wantAsked, "\n"))
	}
}

// Without a Source, only what is held in memory can be read.
func TestNoSource(t *testing.T) {
	ctx := context.Background()
	if b, err := resource.NewTextAsset("x").Bytes(ctx, nil); err != nil || string(b) != "x" {
		t.Errorf("text asset: %q, %v", b, err)
	}
	for _, read := range []func() error{
		func() error { _, err := resource.NewPathAsset("/x").Bytes(ctx, nil); return err },
		func() error { _, err := resource.NewURIAsset("https://example.com/x").Bytes(ctx, nil); return err },
		func() error { _, err := resource.NewPathArchive("/x").ComputeHash(ctx, nil); return err },
		func() error {
			_, err := resource.NewURIArchive("https://example.com/x.zip").ComputeHash(ctx, nil)
			return err
		},
	} {
		if err := read(); !errors.Is(err, resource.ErrNoSource) {
			t.Errorf("error = %v, want one wrapping ErrNoSource", err)
		}
	}
}
