package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOperationFlags runs the built gw's operation flags on the site
// program: --diff (with a refresh's drift), --expect-no-changes,
// --replace, --exclude, --target-dependents, --skip-preview,
// --non-interactive, --suppress-outputs, --color, and destroy's refusal
// of protected resources before deleting anything (--exclude-protected).
func TestOperationFlags(t *testing.T) {
	t.Parallel()
	bin := site(t)
	dir := siteProject(t)
	env := []string{"GW_PASSPHRASE=gw-test"}
	page := filepath.Join(dir, "index.html")
	const (
		pageURN = "urn:pulumi:dev::site::local:index:File::page"
		petURN  = "urn:pulumi:dev::site::random:index:Pet::mascot"
	)
	run := func(code int, args ...string) string {
		t.Helper()
		got, out := gwIn(t, dir, env, args...)
		if got != code {
			t.Fatalf("gw %q: status %d; want %d\n%s", args, got, code, out)
		}
		noGoAPINames(t, strings.Join(args, " "), out)
		return out
	}
	has := func(out string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("the output lacks %q:\n%s", w, out)
			}
		}
	}
	lacks := func(out string, bad ...string) {
		t.Helper()
		for _, b := range bad {
			if strings.Contains(out, b) {
				t.Errorf("the output holds %q:\n%s", b, out)
			}
		}
	}
	// --skip-preview goes ahead without --yes and without a terminal.
	out := run(0, "up", "--skip-preview", "--suppress-outputs", "-c", "dir="+dir, "--secret-config", "token=t", "--", bin)
	has(out, "+ create  local:index:File  page")
	lacks(out, "Outputs:")
	// --non-interactive never prompts: without --yes it is refused.
	has(run(2, "up", "--non-interactive", "--", bin), "pass --yes")
	has(run(0, "preview", "--expect-no-changes", "--color", "never", "--", bin), "3 unchanged")
	has(run(2, "preview", "--color", "sometimes", "--", bin), `--color "sometimes": say auto, always, never or raw`)
	has(run(2, "up", "--yes", "--target", "page", "--", bin), `--target "page" is not a URN: gw stack --show-urns lists the stack's`)

	// A hand edit: refresh --diff shows what drifted.
	original, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, []byte("edited by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out = run(0, "refresh", "--yes", "--diff", "--non-interactive")
	has(out, "~> refresh  local:index:File  page", `~ content: "`+strings.ReplaceAll(string(original), "\n", `\n`)+`" → "edited by hand\n"`)
	// The program would put the page back: --expect-no-changes refuses,
	// changing nothing; --exclude leaves the page alone.
	run(1, "up", "--yes", "--expect-no-changes", "--", bin)
	run(0, "up", "--yes", "--exclude", pageURN, "--", bin)
	if b, _ := os.ReadFile(page); string(b) != "edited by hand\n" {
		t.Errorf("the page was changed: %q", b)
	}
	out = run(0, "preview", "--diff", "--", bin)
	has(out, `~ content: "edited by hand\n" → "`+strings.ReplaceAll(string(original), "\n", `\n`)+`"`)
	// --replace replaces the pet, and the page that shows its name.
	before := run(0, "stack", "output", "mascot")
	out = run(0, "up", "--yes", "--replace", petURN, "--", bin)
	has(out, "++ create-replacement  random:index:Pet  mascot", "-- delete-replaced  random:index:Pet  mascot")
	if after := run(0, "stack", "output", "mascot"); after == before {
		t.Errorf("the replaced pet kept its name %q", after)
	}

	// destroy refuses a protected resource before deleting anything.
	run(0, "state", "protect", petURN)
	out = run(1, "destroy", "--yes")
	has(out, "stack dev has 1 protected resources, and destroy deleted nothing: "+petURN, "--exclude-protected")
	if _, err := os.Stat(page); err != nil {
		t.Fatalf("the refused destroy deleted the page: %v", err)
	}
	out = run(0, "destroy", "--yes", "--exclude-protected")
	has(out, "- delete  local:index:File  page")
	lacks(out, "mascot")
	if _, err := os.Stat(page); !os.IsNotExist(err) {
		t.Errorf("destroy --exclude-protected left the page: %v", err)
	}
	has(run(0, "stack"), "random:index:Pet          mascot")

	// --target-dependents: the pet's dependents go with it.
	run(0, "state", "unprotect", petURN)
	run(0, "up", "--yes", "--", bin)
	out = run(0, "destroy", "--yes", "--target", petURN, "--target-dependents")
	has(out, "- delete  local:index:File  page", "- delete  random:index:Pet  mascot")
}
