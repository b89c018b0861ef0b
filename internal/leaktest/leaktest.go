// Package leaktest finds a secret's plaintext in what an operation leaves
// behind — its errors, events, displays, output and the files of its
// state — for the tests that hold the engine and the gw command to the
// promise that secrets never leak.
package leaktest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Finder collects the places a secret's plaintext was found. It is not
// safe for concurrent use: give each case its own.
type Finder struct {
	secret string
	found  []string
}

// New returns a Finder for secret's plaintext.
func New(secret string) *Finder { return &Finder{secret: secret} }

// Look notes where, with the text itself, if text holds the plaintext.
func (f *Finder) Look(where, text string) {
	if strings.Contains(text, f.secret) {
		f.found = append(f.found, fmt.Sprintf("%s:\n%s", where, text))
	}
}

// LookInFolder looks at every file under root, each named, as where.
func (f *Finder) LookInFolder(t testing.TB, where, root string) {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "== %s\n%s\n", path, data)
		return nil
	})
	if err != nil {
		t.Fatalf("reading %s: %v", where, err)
	}
	f.Look(where, b.String())
}

// Found returns the places noted so far, each with its text.
func (f *Finder) Found() []string { return f.found }

// Check fails t, naming every place and its text, if the plaintext was
// found anywhere.
func (f *Finder) Check(t testing.TB) {
	t.Helper()
	if len(f.found) > 0 {
		t.Errorf("the secret's plaintext %q is in\n%s", f.secret, strings.Join(f.found, "\n\n"))
	}
}
