package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestProjectFoundAbove runs gw in a folder below the project's: it finds
// Pulumi.yaml above, keeps the config beside it and the state in its
// .groundwork, and runs the built program that runtime.options.binary
// names, with no program after "--".
func TestProjectFoundAbove(t *testing.T) {
	bin := site(t)
	dir := t.TempDir()
	t.Setenv("GW_PASSPHRASE", "gw-test")
	built, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "site-bin"), built, 0o755); err != nil {
		t.Fatal(err)
	}
	project := "name: site\nruntime:\n  name: go\n  options:\n    binary: ./site-bin\n"
	if err := os.WriteFile(filepath.Join(dir, "Pulumi.yaml"), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}
	below := filepath.Join(dir, "docs", "notes")
	if err := os.MkdirAll(below, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(below)
	for _, args := range [][]string{
		{"config", "set", "dir", dir},
		{"config", "set", "--secret", "token", "t0k3n"},
		{"up", "--yes"},
	} {
		if code, out, errOut := gw(t, args...); code != exitOK {
			t.Fatalf("gw %q: status %d\n%s%s", args, code, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "Pulumi.dev.yaml")); err != nil {
		t.Errorf("the config is not beside Pulumi.yaml: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".groundwork")); err != nil {
		t.Errorf("the state is not in the project's folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		t.Errorf("the program did not run: %v", err)
	}
	t.Chdir(dir)
	if code, out, errOut := gw(t, "stack", "output", "page"); code != exitOK || strings.TrimSpace(out) != filepath.Join(dir, "index.html") {
		t.Errorf("stack output page from the project's folder: %d %q %q", code, out, errOut)
	}
}

// TestPassphraseFile: PULUMI_CONFIG_PASSPHRASE_FILE gives the passphrase
// when neither variable does, as in the Pulumi CLI; a file that cannot be
// read is an error that names the variable.
func TestPassphraseFile(t *testing.T) {
	inSiteProject(t)
	file := filepath.Join(t.TempDir(), "passphrase")
	if err := os.WriteFile(file, []byte("from a file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GW_PASSPHRASE", "")
	t.Setenv("PULUMI_CONFIG_PASSPHRASE", "")
	t.Setenv("PULUMI_CONFIG_PASSPHRASE_FILE", file)
	if code, _, errOut := gw(t, "config", "set", "--secret", "token", "t0k3n"); code != exitOK {
		t.Fatalf("config set --secret: %d %s", code, errOut)
	}
	t.Setenv("PULUMI_CONFIG_PASSPHRASE_FILE", "")
	t.Setenv("PULUMI_CONFIG_PASSPHRASE", "from a file")
	if code, out, errOut := gw(t, "config", "get", "token"); code != exitOK || out != "t0k3n\n" {
		t.Errorf("config get with the same passphrase from the variable: %d %q %q", code, out, errOut)
	}
	t.Setenv("PULUMI_CONFIG_PASSPHRASE", "")
	t.Setenv("PULUMI_CONFIG_PASSPHRASE_FILE", filepath.Join(t.TempDir(), "missing"))
	code, _, errOut := gw(t, "config", "get", "token")
	if code != exitError || !strings.Contains(errOut, "PULUMI_CONFIG_PASSPHRASE_FILE") {
		t.Errorf("config get with a missing passphrase file: %d %q", code, errOut)
	}
}

// TestRuntimeBinaryIsBuilt: the built binary runs the project's program
// from runtime.options.binary.
func TestRuntimeBinaryIsBuilt(t *testing.T) {
	t.Parallel()
	bin := site(t)
	dir := t.TempDir()
	project := "name: site\nruntime:\n  name: go\n  options:\n    binary: " + bin + "\n"
	if err := os.WriteFile(filepath.Join(dir, "Pulumi.yaml"), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gwBinary(t), "up", "--yes", "-c", "dir="+dir, "--secret-config", "token=t")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GW_PASSPHRASE=gw-test")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "page: "+filepath.Join(dir, "index.html")) {
		t.Errorf("gw up: %v\n%s", err, out)
	}
}
