package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/display"
	"github.com/groundwork-iac/groundwork/engine"
)

func TestQuickstartDeploysThenChangesNothingThenDestroys(t *testing.T) {
	dir := t.TempDir()
	o := options{dir: dir, mode: display.ModePlain}
	ctx := context.Background()

	first, err := run(ctx, o, io.Discard)
	if err != nil {
		t.Fatalf("first run: %v", err)
	}
	if first.Counts[engine.StepCreate] == 0 {
		t.Fatalf("the first run created nothing: %v", first.Counts)
	}
	home, err := os.ReadFile(filepath.Join(dir, "site", "pages", "index.html"))
	if err != nil || !strings.Contains(string(home), "Hello from ") {
		t.Fatalf("index.html = %q, %v", home, err)
	}
	index, err := os.ReadFile(filepath.Join(dir, "site", "index.txt"))
	if err != nil || !strings.Contains(string(index), "about.html") {
		t.Fatalf("index.txt = %q, %v", index, err)
	}
	if got := first.Outputs["pages"].StringValue(); got != "3" {
		t.Errorf("stack output pages = %q, want 3", got)
	}

	second, err := run(ctx, o, io.Discard)
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	if second.HasChanges() {
		t.Errorf("the second run changed something: %v", second.Steps)
	}

	if _, err := run(ctx, options{dir: dir, destroy: true, mode: display.ModePlain}, io.Discard); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "site")); !os.IsNotExist(err) {
		t.Errorf("the site folder survived the destroy: %v", err)
	}
}
