package resource_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/resource/contents"
)

// src reads the files the tests write.
var src = contents.Source{}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

func TestAssets(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "hello world.txt")
	if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		asset *resource.Asset
		kind  string
	}{
		{"text", resource.NewTextAsset("hello"), "text"},
		{"path", resource.NewPathAsset(path), "path"},
		{"file URI", resource.NewURIAsset(fileURI(path)), "uri"},
		{"localhost file URI", resource.NewURIAsset("file://localhost" + filepath.ToSlash(path)), "uri"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kinds := map[string]bool{"text": tt.asset.IsText(), "path": tt.asset.IsPath(), "uri": tt.asset.IsURI()}
			for k, v := range kinds {
				if v != (k == tt.kind) {
					t.Errorf("Is%s() = %v", k, v)
				}
			}
			b, err := tt.asset.Bytes(ctx, src)
			if err != nil || string(b) != "hello" {
				t.Fatalf("Bytes = %q, %v", b, err)
			}
			r, err := tt.asset.Reader(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			b, _ = io.ReadAll(r)
			r.Close()
			if string(b) != "hello" {
				t.Errorf("Reader read %q", b)
			}
			if err := tt.asset.EnsureHash(ctx, src); err != nil {
				t.Fatal(err)
			}
			if tt.asset.Hash != sha("hello") {
				t.Errorf("Hash = %s, want %s", tt.asset.Hash, sha("hello"))
			}
		})
	}
}

func TestAssetErrors(t *testing.T) {
	ctx := context.Background()
	missing := filepath.Join(t.TempDir(), "missing")
	tests := []struct {
		name  string
		asset *resource.Asset
		want  string
	}{
		{"missing file", resource.NewPathAsset(missing), "no such file"},
		{"missing file URI", resource.NewURIAsset(fileURI(missing)), "no such file"},
		{"remote file URI", resource.NewURIAsset("file://example.com/x"), "only local files"},
		{"unsupported scheme", resource.NewURIAsset("ftp://example.com/x"), `unsupported scheme "ftp"`},
		{"two sources", &resource.Asset{Path: "a", URI: "file:///b"}, "exactly one source"},
		{"text and path", &resource.Asset{Text: "t", Path: "a"}, "exactly one source"},
		{"nil", nil, "nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.asset.Bytes(ctx, src)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Bytes error = %v, want one containing %q", err, tt.want)
			}
			if err := tt.asset.EnsureHash(ctx, src); err == nil {
				t.Errorf("EnsureHash succeeded")
			}
		})
	}
}

func TestEnsureHashKeepsExistingHash(t *testing.T) {
	a := &resource.Asset{Path: "/does/not/exist", Hash: "recorded"}
	if err := a.EnsureHash(context.Background(), src); err != nil || a.Hash != "recorded" {
		t.Errorf("EnsureHash = %v, Hash %q", err, a.Hash)
	}
}
