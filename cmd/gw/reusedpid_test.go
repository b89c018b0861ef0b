//go:build linux

package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestUnlockReusedPID: the lock of a gw killed with -9 whose PID now
// belongs to an unrelated process is stale, since that process started
// later than the lock records: gw unlock and the next gw up break it. A
// lock that records no start time (as earlier versions wrote) while its
// PID runs is not broken by gw unlock, which says why, and is removed by
// gw unlock --force.
func TestUnlockReusedPID(t *testing.T) {
	t.Chdir(t.TempDir())
	stateDir, _ := filepath.Abs("state")
	args := append([]string{"up", "--yes", "--project", "p", "--state", stateDir, "--"}, slowProgram(t, "pid")...)
	holder, _ := startGW(t, "pid", args...)
	if err := holder.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, _ = wait(t, holder)
	lockFile := findLock(t, stateDir)
	b, err := os.ReadFile(lockFile)
	if err != nil {
		t.Fatal(err)
	}
	var lock map[string]any
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	if lock["processStart"] == nil {
		t.Fatalf("the lock %s records no start time", b)
	}

	// An unrelated process that took the PID.
	other := exec.Command("sleep", "300")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })
	lock["pid"] = other.Process.Pid
	reused := func(without ...string) {
		t.Helper()
		l := map[string]any{}
		for k, v := range lock {
			l[k] = v
		}
		for _, k := range without {
			delete(l, k)
		}
		b, _ := json.Marshal(l)
		if err := os.WriteFile(lockFile, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	reused()
	code, out, errOut := gw(t, "unlock", "--project", "p", "--state", stateDir)
	if code != exitOK || !strings.HasPrefix(out, "Stack dev is unlocked.") {
		t.Errorf("unlock of a lock whose PID was reused: status %d, stdout %q, stderr %q", code, out, errOut)
	}

	reused()
	code, out, errOut = gw(t, "up", "--yes", "--project", "p", "--state", stateDir, "--", "true")
	if code != exitOK || !strings.Contains(out, `warning: broke the lock of stack "p/dev" left by process`) {
		t.Errorf("up over a lock whose PID was reused: status %d\n%s%s", code, out, errOut)
	}

	reused("processStart")
	code, _, errOut = gw(t, "unlock", "--project", "p", "--state", stateDir)
	if code != exitError || !strings.Contains(errOut, "the lock does not record when its holder started") ||
		!strings.Contains(errOut, "pass --force") || strings.Contains(errOut, "stop it") {
		t.Errorf("unlock of a lock without a start time whose PID runs: status %d, stderr %q", code, errOut)
	}
	code, out, errOut = gw(t, "unlock", "--force", "--project", "p", "--state", stateDir)
	if code != exitOK || !strings.HasPrefix(out, "Removed the lock of stack dev") {
		t.Errorf("unlock --force of a lock without a start time whose PID runs: status %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, err := os.Stat(lockFile); !os.IsNotExist(err) {
		t.Errorf("the lock is still there: %v", err)
	}
}

// findLock returns the path of the one lock file under dir.
func findLock(t *testing.T, dir string) string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "lock" && !d.IsDir() {
			found = append(found, path)
		}
		return err
	})
	if err != nil || len(found) != 1 {
		t.Fatalf("lock files under %s: %v (%v); want one", dir, found, err)
	}
	return found[0]
}
