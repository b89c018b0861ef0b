package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreviewRefresh deletes the site's page out of band: only a preview
// with --refresh sees that up would create it again, and neither writes.
func TestPreviewRefresh(t *testing.T) {
	bin, work := inSiteWorkspace(t)
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

// TestRefreshKeepsAnUnresolvablePendingCreate: a create interrupted before
// its provider returned an ID survives a refresh, which warns of it with
// its type and inputs, until refresh --discard-pending-creates drops it.
func TestRefreshKeepsAnUnresolvablePendingCreate(t *testing.T) {
	bin, work := inSiteWorkspace(t)
	stateDir := filepath.Join(work, "state")
	if code, out, errOut := gw(t, "up", "--yes", "--state", stateDir, "-c", "dir="+work, "--secret-config", "token=t", "--", bin); code != exitOK {
		t.Fatalf("up: %d\n%s%s", code, out, errOut)
	}
	exported := filepath.Join(work, "dev.json")
	if code, out, errOut := gw(t, "stack", "export", "--state", stateDir, "--file", exported); code != exitOK {
		t.Fatalf("stack export: %d\n%s%s", code, out, errOut)
	}
	// The export, with a create of a second page that never ended.
	data, err := os.ReadFile(exported)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	dep := doc["deployment"].(map[string]any)
	var ghost map[string]any
	for _, r := range dep["resources"].([]any) {
		if r := r.(map[string]any); r["type"] == "local:index:File" {
			ghost = map[string]any{"urn": strings.Replace(r["urn"].(string), "::page", "::ghost", 1), "type": r["type"],
				"custom": true, "provider": r["provider"], "inputs": map[string]any{"path": "/somewhere/ghost.html"}}
		}
	}
	if ghost == nil {
		t.Fatalf("the export holds no local:index:File:\n%s", data)
	}
	dep["pending_operations"] = []any{map[string]any{"resource": ghost, "type": "creating"}}
	if data, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exported, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := gw(t, "stack", "import", "--state", stateDir, "--file", exported, "--force"); code != exitOK {
		t.Fatalf("stack import: %d\n%s%s", code, out, errOut)
	}
	pending := func() string {
		t.Helper()
		if code, out, errOut := gw(t, "stack", "export", "--state", stateDir, "--file", exported); code != exitOK {
			t.Fatalf("stack export: %d\n%s%s", code, out, errOut)
		}
		data, err := os.ReadFile(exported)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}

	code, out, errOut := gw(t, "refresh", "--yes", "--state", stateDir)
	if code != exitOK || !strings.Contains(out+errOut, "/somewhere/ghost.html") || !strings.Contains(out+errOut, "--discard-pending-creates") {
		t.Errorf("refresh: status %d; want a warning with the pending create's inputs and how to discard it\n%s%s", code, out, errOut)
	}
	if !strings.Contains(pending(), "ghost") {
		t.Error("a refresh dropped the pending create it could not resolve")
	}
	if code, out, errOut := gw(t, "refresh", "--yes", "--discard-pending-creates", "--state", stateDir); code != exitOK {
		t.Fatalf("refresh --discard-pending-creates: %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(pending(), "ghost") {
		t.Error("refresh --discard-pending-creates kept the pending create")
	}
}

// TestRefreshClearsAPendingUpdateWhoseProviderIsGone: an update left
// pending, of a resource whose provider the stack no longer records (an
// update deleted both after the interrupted one), does not fail every
// refresh: refresh clears it and warns with the resource's type and ID to
// check by hand.
func TestRefreshClearsAPendingUpdateWhoseProviderIsGone(t *testing.T) {
	bin, work := inSiteWorkspace(t)
	stateDir := filepath.Join(work, "state")
	if code, out, errOut := gw(t, "up", "--yes", "--state", stateDir, "-c", "dir="+work, "--secret-config", "token=t", "--", bin); code != exitOK {
		t.Fatalf("up: %d\n%s%s", code, out, errOut)
	}
	exported := filepath.Join(work, "dev.json")
	export := func() string {
		t.Helper()
		if code, out, errOut := gw(t, "stack", "export", "--state", stateDir, "--file", exported); code != exitOK {
			t.Fatalf("stack export: %d\n%s%s", code, out, errOut)
		}
		data, err := os.ReadFile(exported)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	// The export, with an update of a resource, and of a provider, that
	// are no longer recorded.
	var doc map[string]any
	if err := json.Unmarshal([]byte(export()), &doc); err != nil {
		t.Fatal(err)
	}
	dep := doc["deployment"].(map[string]any)
	var gone map[string]any
	for _, r := range dep["resources"].([]any) {
		if r := r.(map[string]any); r["type"] == "local:index:File" {
			prov := r["provider"].(string)
			gone = map[string]any{"urn": strings.Replace(r["urn"].(string), "::page", "::gone", 1), "type": r["type"],
				"custom": true, "id": "/somewhere/gone.html", "provider": prov[:strings.LastIndex(prov, "::")] + "::deleted-provider",
				"inputs": map[string]any{"path": "/somewhere/gone.html"}}
		}
	}
	if gone == nil {
		t.Fatal("the export holds no local:index:File")
	}
	dep["pending_operations"] = []any{map[string]any{"resource": gone, "type": "updating"}}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exported, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := gw(t, "stack", "import", "--state", stateDir, "--file", exported, "--force"); code != exitOK {
		t.Fatalf("stack import: %d\n%s%s", code, out, errOut)
	}

	code, out, errOut := gw(t, "refresh", "--yes", "--state", stateDir)
	if code != exitOK || !strings.Contains(out+errOut, "/somewhere/gone.html") || !strings.Contains(out+errOut, "by hand") {
		t.Errorf("refresh: status %d; want a warning naming the resource's ID to check by hand\n%s%s", code, out, errOut)
	}
	if strings.Contains(export(), "gone.html") {
		t.Error("the refresh kept the pending update it cannot resolve")
	}
	if code, out, errOut := gw(t, "refresh", "--yes", "--state", stateDir); code != exitOK || strings.Contains(out+errOut, "gone") {
		t.Errorf("second refresh: status %d; want no word of the cleared update\n%s%s", code, out, errOut)
	}
}
