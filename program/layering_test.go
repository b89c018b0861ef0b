package program_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/groundwork-iac/groundwork/"

// The program API and the built-in providers' typed resources sit below
// the engine: no package they import, directly or not, is engine's, so
// that no import arrow runs from them back up into it (ARCHITECTURE.md,
// "Packages"). Tests are not part of a package's import graph and may
// import the engine.
func TestNoImportRunsUpIntoTheEngine(t *testing.T) {
	for _, root := range []string{"program", "providers/local", "providers/random", "providers/command"} {
		t.Run(root, func(t *testing.T) {
			via := map[string]string{root: ""}
			queue := []string{root}
			for len(queue) > 0 {
				pkg := queue[0]
				queue = queue[1:]
				if pkg == "engine" || strings.HasPrefix(pkg, "engine/") {
					t.Errorf("%s imports %s (%s)", root, pkg, chain(via, pkg))
					continue
				}
				for _, imp := range imports(t, pkg) {
					if _, seen := via[imp]; !seen {
						via[imp] = pkg
						queue = append(queue, imp)
					}
				}
			}
		})
	}
}

// imports lists the module's packages that the non-test files of pkg (a
// path relative to the module's root) import.
func imports(t *testing.T, pkg string) []string {
	t.Helper()
	dir := filepath.Join("..", filepath.FromSlash(pkg))
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range f.Imports {
			path, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if rel, ok := strings.CutPrefix(path, module); ok {
				out = append(out, rel)
			}
		}
	}
	return out
}

// chain describes how the walk reached pkg: "a → b → pkg".
func chain(via map[string]string, pkg string) string {
	path := []string{pkg}
	for p := via[pkg]; p != ""; p = via[p] {
		path = append([]string{p}, path...)
	}
	return strings.Join(path, " → ")
}
