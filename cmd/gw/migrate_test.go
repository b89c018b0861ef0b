package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStackExportImport exports a deployed stack in Pulumi's format and
// imports it into another state store: the secrets stay encrypted, an
// update of the imported stack changes nothing, and a second import is
// refused unless --force.
func TestStackExportImport(t *testing.T) {
	bin, work := inSiteWorkspace(t)
	t.Setenv("PULUMI_CONFIG_PASSPHRASE", "the pulumi passphrase")
	from, to := filepath.Join(work, "from"), filepath.Join(work, "to")
	exported := filepath.Join(work, "dev.json")

	code, out, errOut := gw(t, "up", "--yes", "--state", from, "--config", "dir="+work, "--secret-config", "token=t0k3n", "--", bin)
	if code != exitOK {
		t.Fatalf("up: status %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = gw(t, "stack", "export", "--state", from, "--file", exported)
	if code != exitOK {
		t.Fatalf("stack export: status %d\n%s\n%s", code, out, errOut)
	}
	data, err := os.ReadFile(exported)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version    int `json:"version"`
		Deployment struct {
			SecretsProviders struct {
				Type string `json:"type"`
			} `json:"secrets_providers"`
			Resources []json.RawMessage `json:"resources"`
		} `json:"deployment"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || doc.Version != 3 || doc.Deployment.SecretsProviders.Type != "passphrase" || len(doc.Deployment.Resources) != 5 {
		t.Errorf("the export is not a version 3 deployment of 5 resources sealed by a passphrase (%v):\n%s", err, data)
	}
	if strings.Contains(string(data), "t0k3n") {
		t.Errorf("the export holds the secret token in plaintext")
	}

	code, out, errOut = gw(t, "stack", "import", "--state", to, "--file", exported)
	if code != exitOK || !strings.Contains(out, "Imported 5 resources into stack dev.") {
		t.Fatalf("stack import: status %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = gw(t, "stack", "output", "token", "--show-secrets", "--state", to)
	if code != exitOK || out != "t0k3n\n" {
		t.Errorf("the imported secret output: status %d, %q %q", code, out, errOut)
	}
	code, out, errOut = gw(t, "up", "--yes", "--json", "--state", to, "--", bin)
	if code != exitOK {
		t.Fatalf("up of the imported stack: status %d\n%s\n%s", code, out, errOut)
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var ev struct {
			Type   string         `json:"type"`
			Counts map[string]any `json:"counts"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "summary" {
			for op := range ev.Counts {
				if op != "same" && op != "outputs" {
					t.Errorf("the update of the imported stack did %s: %v", op, ev.Counts)
				}
			}
		}
	}

	code, _, errOut = gw(t, "stack", "import", "--state", to, "--file", exported)
	if code != exitError || !strings.Contains(errOut, "already has 5 resources") {
		t.Errorf("a second import: status %d, stderr %q; want it refused", code, errOut)
	}
	if code, out, errOut = gw(t, "stack", "import", "--state", to, "--file", exported, "--force"); code != exitOK {
		t.Errorf("import --force: status %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut = gw(t, "stack", "import", "--state", to, "--stack", "prod", "--file", exported); code != exitError ||
		!strings.Contains(errOut, `belongs to stack "dev", not "prod"`) {
		t.Errorf("an import into another stack name: status %d, stderr %q; want it refused", code, errOut)
	}
}
