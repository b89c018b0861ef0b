package interop

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// pluginDir is the folder the plugins under plugins/ are built into, once
// for the whole run.
var pluginDir string

// markerVar is set in this process's environment to a value of this run
// alone. Every plugin and program the tests start inherits it, and so
// does whatever they start in turn (node under a shell script, say):
// processesLeft finds them by it.
const markerVar = "GROUNDWORK_INTEROP_RUN"

// plugins maps each plugin's package to its module under plugins/.
var plugins = map[string]string{"gpp": "plugins/gpp", "tffile": "plugins/tfbridge", "comp": "plugins/comp"}

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
	os.Setenv(markerVar, strconv.Itoa(os.Getpid())+"-"+filepath.Base(dir))
	if err := buildPlugins(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	if left := processesLeft(); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: processes the tests started are still running:\n  %s\n", strings.Join(left, "\n  "))
		return 1
	}
	return code
}

// buildPlugins builds every plugin into dir as pulumi-resource-<package>,
// concurrently (each is a module of its own).
func buildPlugins(dir string) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for pkg, src := range plugins {
		wg.Go(func() {
			cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "pulumi-resource-"+pkg), ".")
			cmd.Dir = src
			out, err := cmd.CombinedOutput()
			if err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("build plugin %s: %v\n%s", pkg, err, out))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// processesLeft lists the running processes (as "pid command line") that
// this run started, directly or not: those whose environment holds
// markerVar with this run's value. Zombies, whose environment is gone,
// are not running.
func processesLeft() []string {
	want := []byte(markerVar + "=" + os.Getenv(markerVar) + "\x00")
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
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !containsVar(env, want) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, e.Name()+" "+strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " "))
	}
	return out
}

// containsVar reports whether a NUL-separated environment holds the
// NUL-terminated "KEY=value" entry.
func containsVar(env, entry []byte) bool {
	return strings.HasPrefix(string(env), string(entry)) || strings.Contains(string(env), "\x00"+string(entry))
}

// checkNoProcesses fails t if a process the tests started still runs.
func checkNoProcesses(t *testing.T) {
	t.Helper()
	if left := processesLeft(); len(left) > 0 {
		t.Errorf("processes left running after the test:\n  %s", strings.Join(left, "\n  "))
	}
}
