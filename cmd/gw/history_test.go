package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestStackHistory runs the built gw through an update with a message, a
// preview, a refresh, a failing update and a destroy, then checks what
// gw stack history lists (as text, as JSON, by page), its exit status,
// and that no secret reaches the history file.
func TestStackHistory(t *testing.T) {
	t.Parallel()
	bin := site(t)
	dir := siteProject(t)
	env := []string{"GW_PASSPHRASE=gw-test"}
	steps := []struct {
		args []string
		code int
	}{
		{[]string{"up", "--yes", "-m", "first: the page", "-c", "dir=" + dir, "--secret-config", "token=t0k3n", "--", bin}, 0},
		{[]string{"preview", "--", bin}, 0},
		{[]string{"refresh", "--yes", "--message", "look around"}, 0},
		// The page cannot be written inside /dev/null.
		{[]string{"up", "--yes", "-c", "dir=/dev/null", "--", bin}, 1},
		{[]string{"destroy", "--yes", "-m", "tear down"}, 0},
	}
	for _, s := range steps {
		if code, out := gwIn(t, dir, env, s.args...); code != s.code {
			t.Fatalf("gw %q: status %d; want %d\n%s", s.args, code, s.code, out)
		}
	}
	ago := `(just now|\d+ seconds? ago|1 minute ago)`
	entry := func(version, kind, status, message, changes string) string {
		return "Version: " + version + "\nUpdateKind: " + kind + "\nStatus: " + status + "\nMessage: " + message +
			"\n" + changes + " Updated " + ago + ` took \d+s` + "\n\n"
	}
	code, out := gwIn(t, dir, env, "stack", "history")
	want := "^" + entry("4", "destroy", "succeeded", "tear down", `\+0-3~0 0`) +
		entry("3", "update", "failed", "", `\+0-0~0 \d`) +
		entry("2", "refresh", "succeeded", "look around", `\+0-0~0 0`) +
		entry("1", "update", "succeeded", "first: the page", `\+3-0~0 0`) + "$"
	if code != 0 || !regexp.MustCompile(want).MatchString(out) {
		t.Errorf("gw stack history: status %d, output:\n%s\nwant status 0 and output matching\n%s", code, out, want)
	}

	code, out = gwIn(t, dir, env, "stack", "history", "--json")
	var got []struct {
		Version         int            `json:"version"`
		Kind            string         `json:"kind"`
		Result          string         `json:"result"`
		Message         string         `json:"message"`
		StartTime       string         `json:"startTime"`
		EndTime         string         `json:"endTime"`
		ResourceChanges map[string]int `json:"resourceChanges"`
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("gw stack history --json: status %d, %v\n%s", code, err, out)
	}
	if testing.Verbose() {
		t.Log(out)
	}
	var kinds []string
	for _, e := range got {
		kinds = append(kinds, e.Kind+" "+e.Result+" "+e.Message)
		if e.StartTime == "" || e.EndTime == "" {
			t.Errorf("entry %d has no start or end time: %+v", e.Version, e)
		}
	}
	if want := "destroy succeeded tear down|update failed |refresh succeeded look around|update succeeded first: the page"; strings.Join(kinds, "|") != want {
		t.Errorf("gw stack history --json lists %q; want %q", strings.Join(kinds, "|"), want)
	}
	// The stack, the page and the pet; the refresh reads the page and the
	// pet.
	if len(got) == 4 && (got[3].ResourceChanges["create"] != 3 || got[2].ResourceChanges["refresh"] != 2 || got[0].ResourceChanges["delete"] != 3) {
		t.Errorf("resource changes: %v, then %v, then %v; want 3 creates, 2 refreshed, then 3 deletes",
			got[3].ResourceChanges, got[2].ResourceChanges, got[0].ResourceChanges)
	}

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"stack", "history", "--page-size", "1", "--page", "2"}, 0, "^" + entry("3", "update", "failed", "", `\+0-0~0 \d`) + "$"},
		{[]string{"stack", "history", "--page-size", "2", "--page", "3"}, 0, "^No stack updates found on page '3'\n$"},
		{[]string{"stack", "history", "--page", "0"}, 2, "--page-size must be 0 or more and --page 1 or more"},
		{[]string{"stack", "history", "-s", "nosuch"}, 1, "no stack named nosuch"},
	} {
		code, out := gwIn(t, dir, env, c.args...)
		if code != c.code || !regexp.MustCompile(c.want).MatchString(out) {
			t.Errorf("gw %q: status %d, output:\n%s\nwant status %d and output matching %q", c.args, code, out, c.code, c.want)
		}
	}
	history, err := os.ReadFile(filepath.Join(dir, ".groundwork", "site", "dev", "history"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(history), "t0k3n") || strings.Count(string(history), "\n") != 4 {
		t.Errorf("the history file holds the secret, or not 4 records:\n%s", history)
	}

	// A renamed stack keeps its history, versions and all.
	if code, out := gwIn(t, dir, env, "stack", "rename", "prod"); code != 0 {
		t.Fatalf("gw stack rename prod: status %d\n%s", code, out)
	}
	code, out = gwIn(t, dir, env, "stack", "history", "-s", "prod", "--page-size", "0")
	if !regexp.MustCompile(want).MatchString(out) || code != 0 {
		t.Errorf("gw stack history of the renamed stack: status %d, output:\n%s\nwant it to match\n%s", code, out, want)
	}
	if _, err := os.Stat(filepath.Join(dir, ".groundwork", "site", "dev", "history")); !os.IsNotExist(err) {
		t.Errorf("the old stack's history is left: %v", err)
	}
}
