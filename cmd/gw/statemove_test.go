package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStateMove moves a resource between two deployed stacks of the site
// program with the built gw: afterwards each stack's program, changed to
// declare what its stack now holds, updates with no changes. It checks the
// refusals and their exit statuses, and that dependencies crossing the
// move are dropped and listed.
func TestStateMove(t *testing.T) {
	t.Parallel()
	bin := site(t)
	dir := siteProject(t)
	env := []string{"GW_PASSPHRASE=gw-test"}
	devDir, prodDir := filepath.Join(dir, "dev"), filepath.Join(dir, "prod")
	for _, d := range []string{devDir, prodDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run := func(code int, want string, args ...string) string {
		t.Helper()
		got, out := gwIn(t, dir, env, args...)
		if got != code || !strings.Contains(out, want) {
			t.Fatalf("gw %q: status %d, output:\n%s\nwant %d and %q", args, got, out, code, want)
		}
		noGoAPINames(t, strings.Join(args, " "), out)
		return out
	}
	// dev has the slow command resource; prod does not.
	run(0, "", "up", "--yes", "-s", "dev", "-c", "dir="+devDir, "-c", "slow=true", "--secret-config", "token=t", "--", bin)
	run(0, "", "up", "--yes", "-s", "prod", "-c", "dir="+prodDir, "--secret-config", "token=t", "--", bin)
	const (
		slow     = "urn:pulumi:dev::site::command:index:Command::slow"
		prodSlow = "urn:pulumi:prod::site::command:index:Command::slow"
		pet      = "urn:pulumi:dev::site::random:index:Pet::mascot"
		page     = "urn:pulumi:dev::site::local:index:File::page"
		provider = "urn:pulumi:dev::site::pulumi:providers:command::default"
		root     = "urn:pulumi:dev::site::pulumi:pulumi:Stack::site-dev"
	)
	for _, r := range []struct {
		code int
		want string
		args []string
	}{
		{2, "needs --source or --dest", []string{slow}},
		{2, "takes the URNs", []string{"--dest", "prod"}},
		{2, "the source and destination are both stack dev", []string{"--source", "dev", "--dest", "dev", slow}},
		{2, `--dest "a/b/c" names no stack`, []string{"--dest", "a/b/c", slow}},
		{1, "no stack named nosuch", []string{"--dest", "nosuch", slow}},
		{1, "warning: Resource " + slow + "x not found in source stack", []string{"--dest", "prod", slow + "x"}},
		{1, "no resources found to move", []string{"--dest", "prod", slow + "x"}},
		{1, provider + " is a provider", []string{"--dest", "prod", provider}},
		{1, "resource urn:pulumi:prod::site::random:index:Pet::mascot already exists in the destination stack", []string{"--dest", "prod", pet}},
		{2, "no terminal to confirm on: pass --yes", []string{"--dest", "prod", slow}},
	} {
		run(r.code, r.want, append([]string{"state", "move"}, r.args...)...)
	}
	// Nothing was moved by the refusals.
	if _, ok := exported(t, dir, env)[slow]; !ok {
		t.Fatalf("a refused move took the resource out of dev")
	}

	out := run(0, "Moved 1 resources from dev to prod.", "state", "move", "--dest", "prod", slow, "--yes")
	if !strings.Contains(out, "Planning to move the following resources from dev to prod:\n\n  - "+slow+"\n") {
		t.Errorf("the plan is not shown:\n%s", out)
	}
	dev := exported(t, dir, env)
	if _, ok := dev[slow]; ok {
		t.Errorf("the resource is still in dev")
	}
	if _, ok := dev[provider]; !ok {
		t.Errorf("the provider left dev: it is copied, not moved")
	}
	prod := exported(t, dir, append(env, "GW_STACK=prod"))
	moved, ok := prod[prodSlow]
	if !ok {
		t.Fatalf("prod has no %s", prodSlow)
	}
	if !strings.Contains(moved["provider"], "urn:pulumi:prod::site::pulumi:providers:command::default::") ||
		moved["parent"] != `"urn:pulumi:prod::site::pulumi:pulumi:Stack::site-prod"` {
		t.Errorf("the moved resource's provider and parent are not prod's: %s %s", moved["provider"], moved["parent"])
	}
	// prod's program, declaring what prod now holds, changes nothing.
	run(0, "", "up", "--yes", "--expect-no-changes", "-s", "prod", "-c", "slow=true", "--", bin)
	// dev's program no longer needs the copied provider, left behind in
	// dev as the Pulumi CLI leaves it: its deletion is the only change
	// there (the preview does not show providers).
	run(0, "Resources: 3 unchanged\n", "preview", "-s", "dev", "-c", "slow=", "--", bin)
	run(1, "pulumi:providers:command::default would delete, but the operation expects no changes",
		"up", "--yes", "--expect-no-changes", "-s", "dev", "--", bin)

	// Moving the pet to a new stack: the page stays and depended on it.
	run(0, "Created stack", "stack", "init", "other")
	run(0, "", "stack", "select", "dev")
	out = run(0, "Moved 1 resources", "state", "move", "--dest", "other", pet, "--yes")
	if !strings.Contains(out, "The following resources remaining in dev have dependencies on resources moved to other:\n") ||
		!strings.Contains(out, "  - "+page+" (content) has a property dependency on "+pet+"\n") ||
		!strings.Contains(out, "  - "+page+" has a dependency on "+pet+"\n") {
		t.Errorf("the broken dependency is not listed:\n%s", out)
	}
	dev = exported(t, dir, env)
	if deps := dev[page]["dependencies"] + dev[page]["propertyDependencies"]; strings.Contains(deps, pet) {
		t.Errorf("the page still depends on the moved pet: %s", deps)
	}
	other := exported(t, dir, append(env, "GW_STACK=other"))
	if _, ok := other["urn:pulumi:other::site::pulumi:pulumi:Stack::site-other"]; !ok {
		t.Errorf("stack other got no root resource for the pet's parent")
	}
	if _, ok := other["urn:pulumi:other::site::random:index:Pet::mascot"]; !ok {
		t.Errorf("stack other has no pet")
	}
	if _, ok := other[root]; ok {
		t.Errorf("dev's root resource moved")
	}
}
