package leaktest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFinder(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"clean.json": "[secret]", "sub/dirty.json": `{"password":"s3cret"}`} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := New("s3cret")
	f.Look("the error", "cannot log in with [secret]")
	if len(f.Found()) != 0 {
		t.Fatalf("Found = %q after a masked text, want nothing", f.Found())
	}
	f.Look("the output", "cannot log in with s3cret")
	f.LookInFolder(t, "the state folder", root)
	found := f.Found()
	if len(found) != 2 || !strings.HasPrefix(found[0], "the output:\n") ||
		!strings.HasPrefix(found[1], "the state folder:\n") || !strings.Contains(found[1], filepath.Join(root, "sub", "dirty.json")) {
		t.Errorf("Found = %q, want the output and the state folder naming sub/dirty.json", found)
	}
}
