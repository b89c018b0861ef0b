package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// asCommand, set in a process's environment, makes this test binary run
// as the bench command, so that the tests can run the command (and its
// children) without building it.
const asCommand = "GROUNDWORK_BENCH_TEST_AS_COMMAND"

func TestMain(m *testing.M) {
	if os.Getenv(asCommand) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// benchCommand returns the command running the bench with args. Under
// the race detector each process would otherwise wait a second on exit.
func benchCommand(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), asCommand+"=1", "GORACE=atexit_sleep_ms=0")
	return cmd
}

// runBench runs the bench command with args and returns its stdout and
// stderr, failing the test if it fails.
func runBench(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := benchCommand(t, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("bench %s: %v\nstderr:\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String(), errOut.String()
}

// oldCopy copies this test binary to a path of its own, to stand for an
// old bench.
func oldCopy(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(t.TempDir(), "old-bench")
	if err := os.WriteFile(old, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return old
}

func TestCompareAgainstItself(t *testing.T) {
	old := oldCopy(t)
	stdout, stderr := runBench(t, "-workload", "W1", "-n", "3", "-against", old, "-pairs", "2", "-json")

	var got []Comparison
	var ops []string
	for line := range strings.Lines(stdout) {
		var c Comparison
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		got = append(got, c)
		ops = append(ops, c.Op)
	}
	if diff := cmp.Diff([]string{"create", "same", "preview-update", "update", "destroy"}, ops); diff != "" {
		t.Fatalf("operations compared (-want +got):\n%s", diff)
	}
	for _, c := range got {
		if c.Workload != "W1" || c.N != 3 || c.Store != "file" || c.Pairs != 2 {
			t.Errorf("%s: compared %s at n=%d on %s over %d pairs, want W1 at n=3 on file over 2", c.Op, c.Workload, c.N, c.Store, c.Pairs)
		}
		for name, side := range map[string]Side{"old": c.Old, "new": c.New} {
			if side.MedianMS <= 0 || side.PeakRSSMB <= 0 || side.PeakGoroutinesMax < 1 {
				t.Errorf("%s: the %s side reported no measurement: %+v", c.Op, name, side)
			}
		}
		if c.Wall == nil || c.PeakRSS == nil {
			t.Errorf("%s: no wall or RSS ratio: %+v", c.Op, c)
		}
	}
	// Each side ran once in each pair, the old first in the first pair and
	// the new first in the second.
	var order []string
	for line := range strings.Lines(stderr) {
		if strings.HasPrefix(line, "bench: pair ") {
			order = append(order, strings.TrimSpace(line))
		}
	}
	want := []string{
		"bench: pair 1 of 2: the old bench", "bench: pair 1 of 2: the new bench",
		"bench: pair 2 of 2: the new bench", "bench: pair 2 of 2: the old bench",
	}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("sides run (-want +got):\n%s", diff)
	}
}

func TestCompareTable(t *testing.T) {
	old := oldCopy(t)
	stdout, _ := runBench(t, "-workload", "W1", "-op", "same", "-n", "3", "-against", old, "-pairs", "1")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 5 {
		t.Fatalf("want a heading, a blank line, and a table of one row; got:\n%s", stdout)
	}
	if !strings.Contains(lines[0], "old is "+old) || !strings.Contains(lines[0], "median of 1 pairs") {
		t.Errorf("heading %q does not name the old bench and the pairs", lines[0])
	}
	if !strings.HasPrefix(lines[2], "| workload | operation | n | wall | CPU | peak RSS |") {
		t.Errorf("table header %q", lines[2])
	}
	if cells := strings.Split(lines[4], " | "); len(cells) != 9 || cells[0] != "| W1" || cells[1] != "same" || cells[2] != "3" {
		t.Errorf("table row %q: want 9 cells for W1 same at n=3", lines[4])
	}
}

func TestCompareRefusedFlag(t *testing.T) {
	// An old bench that predates -cancellable rejects it as Go's flag
	// package does.
	old := filepath.Join(t.TempDir(), "older-bench")
	script := "#!/bin/sh\necho 'flag provided but not defined: -cancellable' >&2\necho 'usage: ...' >&2\nexit 2\n"
	if err := os.WriteFile(old, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := benchCommand(t, "-workload", "W1", "-n", "3", "-cancellable", "-against", old, "-pairs", "2")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the comparison succeeded against a bench that rejects its flags:\n%s", out)
	}
	want := "pair 1: the old bench (" + old + ") does not know the flag -cancellable: leave it out to compare with that binary"
	if !strings.Contains(string(out), want) {
		t.Errorf("output:\n%s\nwant it to say %q", out, want)
	}
	if strings.Contains(string(out), "the new bench") {
		t.Errorf("the new bench ran after the old one failed:\n%s", out)
	}
}
