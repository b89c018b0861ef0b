package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStateSurgery edits a deployed site's state with the built gw:
// protect, unprotect, delete (refused for what others need and for
// protected resources unless told) and rename, checking the output, the
// exit status, and the state as gw stack export shows it.
func TestStateSurgery(t *testing.T) {
	t.Parallel()
	bin := site(t)
	dir := siteProject(t)
	env := []string{"GW_PASSPHRASE=gw-test"}
	if code, out := gwIn(t, dir, env, "up", "--yes", "-c", "dir="+dir, "--secret-config", "token=t", "--", bin); code != 0 {
		t.Fatalf("up: %d\n%s", code, out)
	}
	const (
		page = "urn:pulumi:dev::site::local:index:File::page"
		pet  = "urn:pulumi:dev::site::random:index:Pet::mascot"
		pet2 = "urn:pulumi:dev::site::random:index:Pet::pet"
	)
	for _, s := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"state", "protect", page}, 0, "Protected: " + page},
		{[]string{"state", "protect", page + "x"}, 1, "stack dev has no resource " + page + "x: gw stack --show-urns lists its URNs"},
		{[]string{"state", "delete", page}, 1, page + ` is protected: unprotect it with gw state unprotect "` + page + `", or pass --force`},
		{[]string{"state", "delete", pet}, 1, pet + " is needed by " + page + ": delete them from the state too with --target-dependents"},
		{[]string{"state", "delete", pet, "--target-dependents"}, 1, page + " is protected"},
		{[]string{"state", "unprotect", "--all"}, 0, "Unprotected: " + page},
		{[]string{"state", "unprotect", "--all"}, 0, "Nothing to unprotect."},
		{[]string{"state", "rename", pet, "pet"}, 0, "Renamed " + pet + " to " + pet2},
		{[]string{"state", "rename", pet2, "page"}, 0, "Renamed"}, // another type: no clash
		{[]string{"state", "rename", "urn:pulumi:dev::site::random:index:Pet::page", "pet"}, 0, "Renamed"},
		{[]string{"state", "delete", pet2}, 1, pet2 + " is needed by " + page},
		{[]string{"state", "delete", "-s", "nosuch", pet2}, 1, "no stack named nosuch"},
	} {
		code, out := gwIn(t, dir, env, s.args...)
		if code != s.code || !strings.Contains(out, s.want) {
			t.Fatalf("gw %q: status %d, output:\n%s\nwant %d and %q", s.args, code, out, s.code, s.want)
		}
		noGoAPINames(t, strings.Join(s.args, " "), out)
	}
	// The page's dependency on the pet followed the rename.
	res := exported(t, dir, env)
	if deps := res[page]["propertyDependencies"]; !strings.Contains(deps, pet2) || strings.Contains(deps, pet+`"`) {
		t.Errorf("the page's property dependencies after the rename: %s", deps)
	}
	if _, ok := res[pet]; ok {
		t.Errorf("the old URN is still recorded")
	}
	code, out := gwIn(t, dir, env, "state", "delete", pet2, "--target-dependents")
	if code != 0 || !strings.Contains(out, "Deleted "+page) || !strings.Contains(out, "Deleted "+pet2) {
		t.Fatalf("state delete --target-dependents: %d\n%s", code, out)
	}
	res = exported(t, dir, env)
	if _, ok := res[page]; ok {
		t.Errorf("the page is still recorded")
	}
	if _, ok := res[pet2]; ok {
		t.Errorf("the pet is still recorded")
	}
	// Forgotten, not deleted.
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		t.Errorf("state delete deleted the page: %v", err)
	}
	// A protected resource goes with --force.
	if code, out := gwIn(t, dir, env, "state", "protect", "urn:pulumi:dev::site::pulumi:providers:local::default"); code != 0 {
		t.Fatalf("protect: %d %s", code, out)
	}
	if code, out := gwIn(t, dir, env, "state", "delete", "--force", "urn:pulumi:dev::site::pulumi:providers:local::default"); code != 0 {
		t.Errorf("delete --force of a protected resource: %d %s", code, out)
	}
}

// exported is the stack's resources as gw stack export writes them, by
// URN, each field as JSON text.
func exported(t *testing.T, dir string, env []string) map[string]map[string]string {
	t.Helper()
	code, out := gwIn(t, dir, env, "stack", "export")
	if code != 0 {
		t.Fatalf("stack export: %d %s", code, out)
	}
	var d struct {
		Deployment struct {
			Resources []map[string]json.RawMessage `json:"resources"`
		} `json:"deployment"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("stack export: %v\n%s", err, out)
	}
	res := map[string]map[string]string{}
	for _, r := range d.Deployment.Resources {
		var urn string
		if err := json.Unmarshal(r["urn"], &urn); err != nil {
			t.Fatal(err)
		}
		fields := map[string]string{}
		for k, v := range r {
			fields[k] = string(v)
		}
		res[urn] = fields
	}
	return res
}
