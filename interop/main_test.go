package interop

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// pluginDir is the folder the plugins under plugins/ are built into, once
// for the whole run.
var pluginDir string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "interop-plugins-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	pluginDir = dir
	for pkg, src := range map[string]string{"gpp": "plugins/gpp"} {
		out := filepath.Join(dir, "pulumi-resource-"+pkg)
		cmd := exec.Command("go", "build", "-o", out, ".")
		cmd.Dir = src
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "build plugin %s: %v\n", pkg, err)
			return 1
		}
	}
	code := m.Run()
	if left := processesUnder(dir); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: processes the tests started are still running:\n  %s\n", strings.Join(left, "\n  "))
		return 1
	}
	return code
}

// processesUnder lists the running processes (as "pid command line") whose
// executable or first argument lies under dir, read from /proc.
func processesUnder(dir string) []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil // not Linux: nothing to check with
	}
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(cmdline) == 0 {
			continue // gone, or a zombie being reaped
		}
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		exe, _ := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if under(exe, dir) || under(args[0], dir) || (len(args) > 1 && under(args[1], dir)) {
			out = append(out, e.Name()+" "+strings.Join(args, " "))
		}
	}
	return out
}

func under(path, dir string) bool {
	return path != "" && strings.HasPrefix(filepath.Clean(path), filepath.Clean(dir)+string(filepath.Separator))
}

// checkNoProcesses fails t if a process started from dir still runs.
func checkNoProcesses(t *testing.T, dir string) {
	t.Helper()
	if left := processesUnder(dir); len(left) > 0 {
		t.Errorf("processes left running after the test:\n  %s", strings.Join(left, "\n  "))
	}
}
