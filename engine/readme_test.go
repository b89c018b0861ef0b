package engine_test

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The README's tour is the body of Example, between its "tour begins" and
// "tour ends" comments, one tab less indented: so the tour compiles and
// runs as shown.
func TestReadmeTourIsTheExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, tour, ok := strings.Cut(string(readme), "## A tour of the API")
	if ok {
		_, tour, ok = strings.Cut(tour, "```go\n")
	}
	if ok {
		tour, _, ok = strings.Cut(tour, "```")
	}
	if !ok {
		t.Fatal("the README has no tour")
	}
	_, body, _ := strings.Cut(string(example), "\t// tour begins\n")
	body, _, _ = strings.Cut(body, "\t// tour ends\n")
	var want []string
	for _, line := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
		want = append(want, strings.TrimPrefix(line, "\t"))
	}
	got := strings.Split(strings.TrimRight(tour, "\n"), "\n")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the README's tour differs from Example (-example +readme):\n%s", diff)
	}
}
