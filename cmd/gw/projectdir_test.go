package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandRunsInTheProjectFolder: run from a folder below the
// project's, gw finds the project above it (as the Pulumi CLI does) and
// runs a command without a dir in the project's folder, where Pulumi runs
// pulumi-command and its commands; not in the folder gw was started in.
func TestCommandRunsInTheProjectFolder(t *testing.T) {
	t.Parallel()
	bin := site(t)
	dir := siteProject(t)
	below := filepath.Join(dir, "deploy", "scripts")
	if err := os.MkdirAll(below, 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "pwd")
	cmd := exec.Command(gwBinary(t), "up", "--yes", "--state", filepath.Join(dir, "state"), "-c", "dir="+dir, "--secret-config", "token=t",
		"-c", "slow=pwd -P > "+marker, "--", bin)
	cmd.Dir = below
	cmd.Env = append(os.Environ(), "GW_PASSPHRASE=gw-test", "PULUMI_HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gw up: %v\n%s", err, out)
	}
	b, err := os.ReadFile(marker)
	if err != nil {
		t.Fatal(err)
	}
	want, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(b)); got != want {
		t.Errorf("the command ran in %s, want the project's folder %s", got, want)
	}
}

// TestFileGoesInTheProjectFolder: run from a folder below the project's,
// gw writes a local file with a relative path in the project's folder,
// where Pulumi's local provider takes the program's relative paths from;
// not in the folder gw was started in.
func TestFileGoesInTheProjectFolder(t *testing.T) {
	t.Parallel()
	bin := site(t)
	dir := siteProject(t)
	below := filepath.Join(dir, "deploy", "scripts")
	if err := os.MkdirAll(below, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gwBinary(t), "up", "--yes", "--state", filepath.Join(dir, "state"), "-c", "dir=www", "--secret-config", "token=t", "--", bin)
	cmd.Dir = below
	cmd.Env = append(os.Environ(), "GW_PASSPHRASE=gw-test", "PULUMI_HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gw up: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "www", "index.html")); err != nil {
		t.Errorf("the page is not in the project's folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(below, "www")); err == nil {
		t.Errorf("the page went in %s, the folder gw was started in", below)
	}
}
