package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestStackLifecycle runs the built gw through a stack's life in a site
// project: init, select, ls, show, output, rename and rm, checking the
// output, the exit status and what is left in the project and the state.
func TestStackLifecycle(t *testing.T) {
	t.Parallel()
	bin := site(t)
	dir := siteProject(t)
	env := []string{"GW_PASSPHRASE=gw-test"}
	// The last update is "just now", or seconds ago on a busy machine.
	type step struct {
		args []string
		code int
		want []string // substrings of the output, or regexps if they start with ^
	}
	steps := []step{
		{[]string{"stack", "init", "prod"}, 0, []string{"Created stack prod and selected it."}},
		{[]string{"stack", "init", "prod"}, 1, []string{"stack prod already exists"}},
		{[]string{"stack", "ls"}, 0, []string{"^NAME +PROJECT +LAST UPDATE +RESOURCE COUNT\nprod\\* +site +(just now|\\d+ seconds? ago) +0\n$"}},
		{[]string{"stack", "select", "dev"}, 1, []string{"no stack named dev: create it with gw stack init dev"}},
		{[]string{"stack", "select", "--create", "dev"}, 0, []string{"Selected stack dev."}},
		{[]string{"up", "--yes", "-c", "dir=" + dir, "--secret-config", "token=t0k3n", "--", bin}, 0, []string{"Updating site/dev"}},
		{[]string{"stack", "ls"}, 0, []string{"\ndev\\* +site +(just now|\\d+ seconds? ago) +5\nprod +site +(just now|\\d+ seconds? ago) +0\n"}},
		{[]string{"stack", "--show-urns"}, 0, []string{"Current stack is dev:", "Current stack resources (5):",
			"local:index:File          page\n        URN: urn:pulumi:dev::site::local:index:File::page\n", "token    [secret]"}},
		{[]string{"stack", "output", "-s", "nosuch"}, 1, []string{"error: no stack named nosuch"}},
		{[]string{"stack", "-s", "nosuch"}, 1, []string{"error: no stack named nosuch"}},
		{[]string{"stack", "rm", "--yes"}, 1, []string{"stack dev still has 5 resources", `"gw destroy --stack dev"`, "--force"}},
		// With another store, the hint names it.
		{[]string{"stack", "rm", "--yes", "--state", "file://" + filepath.Join(dir, ".groundwork")}, 1,
			[]string{`"gw destroy --stack dev --state file://` + filepath.Join(dir, ".groundwork") + `"`}},
		{[]string{"stack", "rename", "prod"}, 1, []string{"stack prod already exists"}},
		{[]string{"stack", "rename", "staging"}, 0, []string{"Renamed stack dev to staging."}},
		{[]string{"stack", "ls"}, 0, []string{"\nprod +site +(just now|\\d+ seconds? ago) +0\nstaging\\* +site +(just now|\\d+ seconds? ago) +5\n$"}},
		{[]string{"stack", "--show-urns"}, 0, []string{"URN: urn:pulumi:staging::site::pulumi:pulumi:Stack::site-staging\n"}},
		{[]string{"up", "--yes", "--", bin}, 0, []string{"Updating site/staging", "Resources: 3 unchanged"}},
		{[]string{"stack", "output", "token", "--show-secrets"}, 0, []string{"^t0k3n\n$"}},
		{[]string{"stack", "rm", "prod"}, 2, []string{"no terminal to confirm on: pass --yes"}},
		{[]string{"stack", "rm", "prod", "--yes"}, 0, []string{"Removed stack prod."}},
		{[]string{"stack", "rm", "--yes", "--force"}, 0, []string{"Removed stack staging."}},
		{[]string{"stack", "ls"}, 0, []string{"^NAME +PROJECT +LAST UPDATE +RESOURCE COUNT\n$"}},
	}
	for _, s := range steps {
		code, out := gwIn(t, dir, env, s.args...)
		if code != s.code {
			t.Fatalf("gw %q: status %d; want %d\n%s", s.args, code, s.code, out)
		}
		for _, w := range s.want {
			if strings.HasPrefix(w, "^") || strings.Contains(w, "\\") {
				if !regexp.MustCompile(w).MatchString(out) {
					t.Errorf("gw %q: the output does not match %q:\n%s", s.args, w, out)
				}
			} else if !strings.Contains(out, w) {
				t.Errorf("gw %q: the output lacks %q:\n%s", s.args, w, out)
			}
		}
		noGoAPINames(t, strings.Join(s.args, " "), out)
	}
	for _, gone := range []string{"Pulumi.staging.yaml", "Pulumi.dev.yaml", "Pulumi.prod.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); !os.IsNotExist(err) {
			t.Errorf("%s is left: %v", gone, err)
		}
	}
	// The removed stack's resources were forgotten, not deleted.
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		t.Errorf("stack rm --force deleted a resource: %v", err)
	}
}
