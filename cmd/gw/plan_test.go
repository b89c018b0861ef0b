package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSavedPlan saves a plan with gw preview --save-plan and applies it
// with gw up --plan: an input that drifted since (the page's path, from
// changed config) is refused, naming the resource and the property; the
// stack that refused update changed refuses the plan; a new plan is
// applied, the pet's name (unknown when planning) being whatever it
// turns out.
func TestSavedPlan(t *testing.T) {
	bin, work := inSiteWorkspace(t)
	state := filepath.Join(work, "state")
	planFile := filepath.Join(work, "plan.json")
	dirA, dirB := filepath.Join(work, "a"), filepath.Join(work, "b")
	for _, d := range []string{dirA, dirB} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	code, out, errOut := gw(t, "preview", "--state", state, "--config", "dir="+dirA, "--secret-config", "token=t0k3n",
		"--save-plan", planFile, "--", bin)
	if code != exitOK {
		t.Fatalf("preview --save-plan: status %d\n%s\n%s", code, out, errOut)
	}
	saved, err := os.ReadFile(planFile)
	if err != nil {
		t.Fatalf("the plan was not saved: %v", err)
	}
	if strings.Contains(string(saved), "t0k3n") {
		t.Errorf("the saved plan holds the secret token in plaintext:\n%s", saved)
	}

	code, out, errOut = gw(t, "up", "--yes", "--state", state, "--config", "dir="+dirB, "--plan", planFile, "--", bin)
	all := out + errOut
	if code != exitError || !strings.Contains(all, "local:index:File::page does not keep to the plan") || !strings.Contains(all, `input "path"`) {
		t.Errorf("up --plan after the config changed: status %d; want 1 and the page's path named:\n%s", code, all)
	}
	for _, d := range []string{dirA, dirB} {
		if _, err := os.Stat(filepath.Join(d, "index.html")); err == nil {
			t.Errorf("the refused update wrote %s", d)
		}
	}

	// The refused update created what did not depend on the page: the
	// stack is no longer the one the plan was made against.
	code, out, errOut = gw(t, "up", "--yes", "--state", state, "--config", "dir="+dirA, "--plan", planFile, "--", bin)
	if all := out + errOut; code != exitError || strings.Count(all, "preview again to make a new plan") != 1 {
		t.Errorf("up --plan on the changed stack: status %d; want 1 and the plan refused once:\n%s", code, all)
	}
	code, out, errOut = gw(t, "preview", "--state", state, "--config", "dir="+dirA, "--secret-config", "token=t0k3n",
		"--save-plan", planFile, "--", bin)
	if code != exitOK {
		t.Fatalf("preview --save-plan again: status %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = gw(t, "up", "--yes", "--state", state, "--config", "dir="+dirA, "--plan", planFile, "--", bin)
	if code != exitOK {
		t.Fatalf("up --plan as planned: status %d\n%s\n%s", code, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(dirA, "index.html")); err != nil || !strings.HasPrefix(string(b), "<h1>Hello from ") {
		t.Errorf("the page: %q, %v", b, err)
	}
}
