package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// slowURN is the URN of the site program's slow command.
const slowURN = "urn:pulumi:dev::site::command:index:Command::slow"

// TestCtrlCInATerminal presses Ctrl-C during an up in a real terminal,
// where the key interrupts the terminal's whole foreground process group,
// not gw alone. Once: gw says that no new step starts and that the steps
// in flight have their grace period, the slow step finishes (the key did
// not reach it) and is recorded, and gw exits with status 1. Twice: gw
// stops at once with status 130 and says so, the slow command ends with
// it, and its create stays pending, for the next run to warn of.
func TestCtrlCInATerminal(t *testing.T) {
	t.Parallel()
	bin := site(t)
	env := []string{"GW_PASSPHRASE=gw-test"}
	// Ctrl-C interrupts the shell that runs gw too: unlike a user's
	// interactive shell, it would die of it, and the terminal with it.
	// A trap keeps it (gw still starts with SIGINT's default action, as a
	// trap's handler does not outlive exec).
	interruptible := fmt.Sprintf("trap true INT; GW_PASSPHRASE=gw-test %s", gwBinary(t))

	t.Run("once", func(t *testing.T) {
		dir := siteProject(t)
		started, finished := filepath.Join(dir, "started"), filepath.Join(dir, "finished")
		setConfig(t, dir, env, "dir", dir)
		setConfig(t, dir, env, "--secret", "token", "t")
		setConfig(t, dir, env, "slow", fmt.Sprintf("touch %q; sleep 3; touch %q", started, finished))
		term := startInTmux(t, dir, interruptible+" up --yes -- "+bin)
		waitForFile(t, term, started)
		term.tmux("send-keys", "-t", "gw", "C-c")
		s := term.waitFor("GW-EXIT=")
		for _, want := range []string{
			"interrupted: no new step starts; the steps in flight have 1m0s to finish and are recorded",
			"interrupt again to stop at once",
			"error: the update was cancelled (interrupted): no new step was started",
			"GW-EXIT=1\n",
		} {
			if !strings.Contains(s, want) {
				t.Errorf("the screen does not show %q:\n%s", want, s)
			}
		}
		if _, err := os.Stat(finished); err != nil {
			t.Errorf("the step in flight did not finish: Ctrl-C reached it: %v", err)
		}
		if _, ok := exported(t, dir, env)[slowURN]; !ok {
			t.Errorf("the step that finished in its grace period is not recorded")
		}
		if pending := pendingURNs(t, dir, env); len(pending) > 0 {
			t.Errorf("pending operations after a graceful interrupt: %v", pending)
		}
	})

	t.Run("twice", func(t *testing.T) {
		dir := siteProject(t)
		pidFile := filepath.Join(dir, "pid")
		killRecordedPID(t, pidFile)
		setConfig(t, dir, env, "dir", dir)
		setConfig(t, dir, env, "--secret", "token", "t")
		setConfig(t, dir, env, "slow", fmt.Sprintf(`trap "" TERM; echo $$ > %q; exec sleep 60`, pidFile))
		term := startInTmux(t, dir, interruptible+" up --yes -- "+bin)
		waitForFile(t, term, pidFile)
		term.tmux("send-keys", "-t", "gw", "C-c")
		term.waitFor("interrupt again to stop at once")
		began := time.Now()
		term.tmux("send-keys", "-t", "gw", "C-c")
		s := term.waitFor("GW-EXIT=")
		if took := time.Since(began); took > 20*time.Second {
			t.Errorf("the second Ctrl-C took %v to stop gw", took)
		}
		for _, want := range []string{"interrupted again: stopping now", "run \"gw refresh\" to resolve them", "GW-EXIT=130\n"} {
			if !strings.Contains(s, want) {
				t.Errorf("the screen does not show %q:\n%s", want, s)
			}
		}
		// The command ends with gw, which started it.
		if pid := recordedPID(t, pidFile); !endsWithin(pid, 10*time.Second) {
			t.Errorf("the command %d still runs 10s after gw was forced out", pid)
		}
		// The command was cut short: what it did is unknown, so the state
		// must not forget it. It never finished, so it cannot be recorded
		// as created: its create is pending.
		if _, recorded := exported(t, dir, env)[slowURN]; recorded {
			t.Errorf("the create a forced exit cut short is recorded as done")
		}
		if pending := pendingURNs(t, dir, env); !slices.Contains(pending, slowURN) {
			t.Errorf("the create a forced exit cut short is not pending (pending: %v):\n%s", pending, s)
		}
	})
}

// recordedPID is the process ID written in pidFile.
func recordedPID(t *testing.T, pidFile string) int {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("%s holds %q, not a process ID", pidFile, b)
	}
	return pid
}

// endsWithin reports whether process pid stops running (it is gone or a
// zombie) within d.
func endsWithin(pid int, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return true
		}
		if _, rest, _ := strings.Cut(string(stat), ") "); strings.HasPrefix(rest, "Z") || strings.HasPrefix(rest, "X") {
			return true
		}
	}
	return false
}

// setConfig runs gw config set with args.
func setConfig(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	if code, out := gwIn(t, dir, env, append([]string{"config", "set"}, args...)...); code != 0 {
		t.Fatalf("config set %q: %d %s", args, code, out)
	}
}

// waitForFile waits until path exists, while gw runs in term.
func waitForFile(t *testing.T, term *tmuxTerminal, path string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if s := term.screen(); strings.Contains(s, "GW-EXIT=") {
			t.Fatalf("gw ended before %s appeared:\n%s", path, s)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s never appeared:\n%s", path, term.screen())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// pendingURNs are the URNs of the stack's pending operations, as gw stack
// export writes them.
func pendingURNs(t *testing.T, dir string, env []string) []string {
	t.Helper()
	code, out := gwIn(t, dir, env, "stack", "export")
	if code != 0 {
		t.Fatalf("stack export: %d %s", code, out)
	}
	return exportedPending(t, out)
}

// exportedPending are the URNs of the pending operations in out, what gw
// stack export wrote.
func exportedPending(t *testing.T, out string) []string {
	t.Helper()
	var d struct {
		Deployment struct {
			Pending []struct {
				Resource struct {
					URN string `json:"urn"`
				} `json:"resource"`
			} `json:"pending_operations"`
		} `json:"deployment"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("stack export: %v\n%s", err, out)
	}
	var urns []string
	for _, p := range d.Deployment.Pending {
		urns = append(urns, p.Resource.URN)
	}
	return urns
}

// TestCtrlCAtAPrompt: Ctrl-C while gw asks whether to go ahead ends gw at
// once, changing nothing, as a "n" would: nothing has started, so there
// is nothing to wait for and no second Ctrl-C to ask for, and gw says
// nothing of steps in flight.
func TestCtrlCAtAPrompt(t *testing.T) {
	t.Parallel()
	bin := site(t)
	env := []string{"GW_PASSPHRASE=gw-test"}
	interruptible := fmt.Sprintf("trap true INT; GW_PASSPHRASE=gw-test %s", gwBinary(t))
	dir := siteProject(t)
	setConfig(t, dir, env, "dir", dir)
	setConfig(t, dir, env, "--secret", "token", "t")
	if code, out := gwIn(t, dir, env, "stack", "init", "scratch"); code != 0 {
		t.Fatal(out)
	}
	for _, tc := range []struct{ cmd, prompt string }{
		{"up -s dev -- " + bin, "[y/N]"},
		{"stack rm scratch", "Type its name to confirm:"},
		{"config set --secret -s dev token", "value: "},
		{"stack change-secrets-provider -s scratch passphrase", "New passphrase: "},
	} {
		term := startInTmux(t, dir, interruptible+" "+tc.cmd)
		term.waitFor(tc.prompt)
		term.tmux("send-keys", "-t", "gw", "C-c")
		s := term.waitFor("GW-EXIT=")
		if !strings.Contains(s, "GW-EXIT=1\n") || !strings.Contains(s, "cancelled: nothing was") || strings.Contains(s, "steps in flight") {
			t.Errorf("gw %s, Ctrl-C at the prompt:\n%s", tc.cmd, s)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "index.html")); !os.IsNotExist(err) {
		t.Errorf("the up interrupted at its prompt wrote the page: %v", err)
	}
	if code, out := gwIn(t, dir, env, "stack", "ls"); code != 0 || !strings.Contains(out, "scratch") {
		t.Errorf("the stack rm interrupted at its prompt removed the stack: %d\n%s", code, out)
	}
	if code, out := gwIn(t, dir, env, "config", "get", "-s", "dev", "token"); code != 0 || out != "t\n" {
		t.Errorf("the config set interrupted at its prompt changed the value: %d %q", code, out)
	}
}
