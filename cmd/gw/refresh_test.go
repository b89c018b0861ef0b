package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreviewRefresh deletes the site's page out of band: only a preview
// with --refresh sees that up would create it again, and neither writes.
func TestPreviewRefresh(t *testing.T) {
	bin := site(t)
	work := t.TempDir()
	t.Setenv("GW_PASSPHRASE", "gw-test")
	inSiteProject(t)
	stateDir := filepath.Join(work, "state")
	if code, out, errOut := gw(t, "up", "--yes", "--state", stateDir, "-c", "dir="+work, "--secret-config", "token=t", "--", bin); code != exitOK {
		t.Fatalf("up: %d\n%s%s", code, out, errOut)
	}
	page := filepath.Join(work, "index.html")
	if err := os.Remove(page); err != nil {
		t.Fatal(err)
	}
	const create = "+ create  local:index:File  page"
	code, out, errOut := gw(t, "preview", "--state", stateDir, "--", bin)
	if code != exitOK || strings.Contains(out, create) {
		t.Errorf("preview without --refresh: status %d; want no create\n%s%s", code, out, errOut)
	}
	code, out, errOut = gw(t, "preview", "--refresh", "--state", stateDir, "--", bin)
	if code != exitOK || !strings.Contains(out, create) {
		t.Errorf("preview --refresh: status %d; want %q\n%s%s", code, create, out, errOut)
	}
	if _, err := os.Stat(page); !os.IsNotExist(err) {
		t.Errorf("a preview wrote the page: %v", err)
	}
	// The state still records the page: a plain preview still sees no change.
	if _, out, _ := gw(t, "preview", "--state", stateDir, "--", bin); strings.Contains(out, create) {
		t.Errorf("preview --refresh changed the stored state:\n%s", out)
	}
}
