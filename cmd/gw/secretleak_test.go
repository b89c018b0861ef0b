package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/internal/leaktest"
)

// gwLeak is the secret every case of TestGWSecretsDoNotLeak hands a provider
// or a function, which quotes it back in its failure.
const gwLeak = "gw-pa55-l3ak"

// buildLeaks builds testdata/site/leaks, the program of the leak test, and
// the plugin package's test plugin as pulumi-resource-gwtest, into dir.
func buildLeaks(t *testing.T, dir string) (program string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	program = filepath.Join(dir, "leaks")
	for _, b := range []struct{ dir, out, pkg string }{
		{filepath.Join(packageDir, "testdata", "site"), program, "./leaks"},
		{packageDir, filepath.Join(dir, "pulumi-resource-gwtest"), "github.com/groundwork-iac/groundwork/plugin/internal/testplugin"},
	} {
		cmd := exec.CommandContext(ctx, goCommand(), "build", "-o", b.out, b.pkg)
		cmd.Dir = b.dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", b.pkg, err, out)
		}
	}
	return program
}

// TestGWSecretsDoNotLeak runs gw on programs whose providers, plugins and
// functions quote a secret in their failures, with the plain display and
// with --json, and looks for the secret's plaintext in everything gw
// writes: its output, the state folder, a saved plan and the stack's
// export.
func TestGWSecretsDoNotLeak(t *testing.T) {
	gw := gwBinary(t)
	bins := t.TempDir()
	program := buildLeaks(t, bins)
	tests := []struct {
		name   string
		setup  string // a case deployed first, which must succeed
		config []string
	}{
		{name: "create"},
		{name: "check"},
		{name: "diff", setup: "setup"},
		{name: "configure", config: []string{"--secret-config", "gwtest:leak=" + gwLeak}},
		{name: "initError"},
		{name: "applyErr"},
		{name: "panic"},
		{name: "command"},
		{name: "stderr"},
	}
	var plans atomic.Int32
	t.Cleanup(func() {
		if plans.Load() == 0 && !t.Failed() {
			t.Error("no preview saved a plan to look at")
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each case has folders of its own; gw runs as a process
			for _, mode := range []string{"plain", "json"} {
				t.Run(mode, func(t *testing.T) {
					work := t.TempDir()
					if err := os.WriteFile(filepath.Join(work, "Pulumi.yaml"), []byte("name: leaks\nruntime: go\n"), 0o644); err != nil {
						t.Fatal(err)
					}
					state := filepath.Join(work, "state")
					finder := leaktest.New(gwLeak)
					look := finder.Look
					run := func(args ...string) (int, string) {
						cmd := exec.Command(gw, args...)
						cmd.Dir = work
						cmd.Env = append(os.Environ(), "GW_PASSPHRASE=gw-test", runMarkVar+"="+runMark(t))
						var out bytes.Buffer
						cmd.Stdout, cmd.Stderr = &out, &out
						err := cmd.Run()
						code := 0
						if err != nil {
							code = -1
							if ee, ok := err.(*exec.ExitError); ok {
								code = ee.ExitCode()
							}
						}
						look("the output of gw "+strings.Join(args, " "), out.String())
						return code, out.String()
					}
					common := append([]string{"--state", state, "--plugin-dir", bins, "--secret-config", "token=" + gwLeak}, tt.config...)
					if mode == "json" {
						common = append(common, "--json")
					}
					op := func(name, c string, extra ...string) (int, string) {
						args := append(append(append([]string{name}, common...), "--config", "case="+c), extra...)
						return run(append(args, "--", program)...)
					}
					if tt.setup != "" {
						if code, out := op("up", tt.setup, "--yes"); code != 0 {
							t.Fatalf("setup: status %d\n%s", code, out)
						}
					}
					plan := filepath.Join(work, "plan.json")
					op("preview", tt.name, "--save-plan", plan)
					if b, err := os.ReadFile(plan); err == nil {
						plans.Add(1)
						look("the saved plan", string(b))
					}
					code, out := op("up", tt.name, "--yes")
					if code == 0 {
						t.Errorf("gw up succeeded; want it to fail quoting the secret\n%s", out)
					}
					if !strings.Contains(out, "[secret]") {
						t.Errorf("gw up's output does not show the secret masked:\n%s", out)
					}
					run("stack", "export", "--state", state)
					finder.LookInFolder(t, "the state folder", state)
					finder.Check(t)
				})
			}
		})
	}
}
