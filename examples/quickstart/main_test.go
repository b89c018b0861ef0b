package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/display"
	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/state/filestore"
)

func TestQuickstartDeploysThenChangesNothingThenDestroys(t *testing.T) {
	dir := t.TempDir()
	o := options{dir: dir, mode: display.ModePlain}
	ctx := context.Background()

	first, _, err := run(ctx, o, io.Discard)
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

	second, _, err := run(ctx, o, io.Discard)
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	if second.HasChanges() {
		t.Errorf("the second run changed something: %v", second.Steps)
	}

	if _, _, err := run(ctx, options{dir: dir, destroy: true, mode: display.ModePlain}, io.Discard); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "site")); !os.IsNotExist(err) {
		t.Errorf("the site folder survived the destroy: %v", err)
	}
}

// Issue 29: the README's program previews in a fresh folder: every
// resource shows as a create, the page whose content comes from the pet's
// name shows that content as unknown, nothing is written, and the command
// exits 0. It used to fail, because the unknown content was left out of
// the page's inputs and the file provider's Check rejected the page.
func TestQuickstartPreviewsAFreshFolder(t *testing.T) {
	dir := t.TempDir()
	var out, errOut strings.Builder
	code := cli(context.Background(), []string{"-preview", "-diff", "-dir", dir}, &out, &errOut)
	if code != 0 || errOut.Len() != 0 {
		t.Fatalf("exit %d, stderr %q; stdout:\n%s", code, errOut.String(), out.String())
	}
	text := out.String()
	for _, res := range []string{
		"local:index:Directory  site", "local:index:Directory  pages", "random:index:Pet  mascot",
		"local:index:File  home", "local:index:File  about", "local:index:File  style",
		"command:index:Command  index",
	} {
		if !strings.Contains(text, "+ create  "+res+"\n") {
			t.Errorf("the preview does not show the create of %s:\n%s", res, text)
		}
	}
	home := text[strings.Index(text, "local:index:File  home"):]
	home = home[:strings.Index(home, "+ create")]
	if !strings.Contains(home, "+ content: [unknown]") {
		t.Errorf("the home page's content is not shown as unknown:\n%s", home)
	}
	if !strings.Contains(text, "Resources: + 8 to create") {
		t.Errorf("summary: want the stack and its 7 resources to create:\n%s", text)
	}
	if _, err := os.Stat(filepath.Join(dir, "site")); !os.IsNotExist(err) {
		t.Errorf("the preview wrote the site: %v", err)
	}
}

// An error of the operation is shown once: in the display's summary, not
// again by the command.
func TestQuickstartShowsAnErrorOnce(t *testing.T) {
	dir := t.TempDir()
	// A file where the site's folder goes: the directory cannot be made.
	if err := os.WriteFile(filepath.Join(dir, "site"), []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	code := cli(context.Background(), []string{"-dir", dir}, &out, &errOut)
	all := out.String() + errOut.String()
	if code != 1 || strings.Count(all, "error: ") != 1 {
		t.Fatalf("exit %d; want 1 and one error printed, got:\n%s", code, all)
	}
}

// The index follows the pages the program declares: removing a page
// rewrites it without that page, although the page's file is deleted only
// after the index is updated (deletes run last). Listing the folder instead
// would keep the removed page and the old count.
func TestIndexFollowsThePages(t *testing.T) {
	dir := t.TempDir()
	store, err := filestore.New(filepath.Join(dir, ".state"))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(engine.Config{Project: "quickstart", Stack: "dev", Store: store, Providers: builtins})
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(dir, "site")
	if err := os.MkdirAll(site, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"index.html", "about.html", "style.css"}, "index.html\nabout.html\nstyle.css\n"},
		{[]string{"index.html", "about.html"}, "index.html\nabout.html\n"},
		{[]string{"index.html", "about.html", "news.html"}, "index.html\nabout.html\nnews.html\n"},
	} {
		res, err := eng.Up(context.Background(), func(ctx *engine.Context) error {
			ctx.Export("pages", pageIndex(ctx, site, tc.names, nil).Stdout)
			return nil
		})
		if err != nil {
			t.Fatalf("up with pages %v: %v", tc.names, err)
		}
		got, err := os.ReadFile(filepath.Join(site, "index.txt"))
		if err != nil || string(got) != tc.want {
			t.Errorf("pages %v: index.txt = %q, %v; want %q", tc.names, got, err, tc.want)
		}
		if n := res.Outputs["pages"].StringValue(); n != strconv.Itoa(len(tc.names)) {
			t.Errorf("pages %v: stack output pages = %q, want %d", tc.names, n, len(tc.names))
		}
	}
}
