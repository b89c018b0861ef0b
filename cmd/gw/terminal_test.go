package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmuxTerminal is a gw running in a real terminal: a tmux session of a
// server of its own, which the test types into and reads the screen of.
type tmuxTerminal struct {
	t      *testing.T
	socket string
}

// startInTmux runs the shell command line in dir in a new tmux terminal;
// the test is skipped where tmux is missing.
func startInTmux(t *testing.T, dir, line string) *tmuxTerminal {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the terminal tests need it")
	}
	term := &tmuxTerminal{t: t, socket: fmt.Sprintf("gw-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	// The shell stays after gw, so that its status can be read.
	term.tmux("new-session", "-d", "-s", "gw", "-x", "150", "-y", "50", "-c", dir, "sh", "-c", line+"; echo GW-EXIT=$?; sleep 600")
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", term.socket, "kill-server").Run() })
	return term
}

func (term *tmuxTerminal) tmux(args ...string) string {
	term.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", term.socket}, args...)...).CombinedOutput()
	if err != nil {
		term.t.Fatalf("tmux %q: %v\n%s", args, err, out)
	}
	return string(out)
}

// screen is what the terminal shows, its scrollback included.
func (term *tmuxTerminal) screen() string {
	return term.tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", "gw")
}

// waitFor waits until the screen shows want, and returns the screen.
func (term *tmuxTerminal) waitFor(want string) string {
	term.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		s := term.screen()
		if strings.Contains(s, want) {
			return s
		}
		select {
		case <-ctx.Done():
			term.t.Fatalf("the terminal never showed %q:\n%s", want, s)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// typeLine types s and Enter.
func (term *tmuxTerminal) typeLine(s string) {
	term.t.Helper()
	term.tmux("send-keys", "-t", "gw", "-l", s)
	term.tmux("send-keys", "-t", "gw", "Enter")
}

// TestPromptsInATerminal answers gw's prompts in a real terminal: up
// previews and asks, a "n" changes nothing and a "y" goes ahead; stack rm
// asks for the stack's name; change-secrets-provider reads the new
// passphrase without echoing it.
func TestPromptsInATerminal(t *testing.T) {
	t.Parallel()
	bin := site(t)
	dir := siteProject(t)
	gwCmd := fmt.Sprintf("GW_PASSPHRASE=gw-test %s", gwBinary(t))
	if code, out := gwIn(t, dir, []string{"GW_PASSPHRASE=gw-test"}, "config", "set", "dir", dir); code != 0 {
		t.Fatal(out)
	}
	if code, out := gwIn(t, dir, []string{"GW_PASSPHRASE=gw-test"}, "config", "set", "--secret", "token", "t"); code != 0 {
		t.Fatal(out)
	}
	page := filepath.Join(dir, "index.html")

	term := startInTmux(t, dir, gwCmd+" up -- "+bin)
	s := term.waitFor("Do you want to perform this up on stack dev? [y/N]")
	if !strings.Contains(s, "create") {
		t.Errorf("the prompt came without a preview:\n%s", s)
	}
	term.typeLine("n")
	s = term.waitFor("GW-EXIT=")
	if !strings.Contains(s, "cancelled: nothing was changed") || !strings.Contains(s, "GW-EXIT=1") {
		t.Errorf("answering n:\n%s", s)
	}
	if _, err := os.Stat(page); !os.IsNotExist(err) {
		t.Fatalf("a cancelled up wrote the page: %v", err)
	}

	term = startInTmux(t, dir, gwCmd+" up -- "+bin)
	term.waitFor("[y/N]")
	term.typeLine("y")
	s = term.waitFor("GW-EXIT=")
	if !strings.Contains(s, "GW-EXIT=0") || !strings.Contains(s, "Outputs:") {
		t.Errorf("answering y:\n%s", s)
	}
	if _, err := os.Stat(page); err != nil {
		t.Errorf("the up did not write the page: %v", err)
	}

	if code, out := gwIn(t, dir, []string{"GW_PASSPHRASE=gw-test"}, "stack", "init", "scratch"); code != 0 {
		t.Fatal(out)
	}
	term = startInTmux(t, dir, gwCmd+" stack rm scratch")
	term.waitFor("Type its name to confirm:")
	term.typeLine("scratch")
	if s := term.waitFor("GW-EXIT="); !strings.Contains(s, "Removed stack scratch.") || !strings.Contains(s, "GW-EXIT=0") {
		t.Errorf("stack rm with the name typed:\n%s", s)
	}

	term = startInTmux(t, dir, gwCmd+" stack change-secrets-provider passphrase -s dev")
	term.waitFor("New passphrase:")
	term.typeLine("typed in secret")
	s = term.waitFor("GW-EXIT=")
	if !strings.Contains(s, "GW-EXIT=0") || strings.Contains(s, "typed in secret") {
		t.Errorf("change-secrets-provider from the terminal (the passphrase must not echo):\n%s", s)
	}
	if code, out := gwIn(t, dir, []string{"GW_PASSPHRASE=typed in secret"}, "config", "get", "token"); code != 0 || out != "t\n" {
		t.Errorf("config get with the passphrase typed: %d %q", code, out)
	}
}

// TestConfigSetAsksInATerminal: "gw config set KEY" without a value, in
// a terminal, asks for it as the Pulumi CLI does: one line ends it, and a
// secret's is not echoed. (From a pipe, the value is all of stdin.)
func TestConfigSetAsksInATerminal(t *testing.T) {
	t.Parallel()
	dir := siteProject(t)
	env := []string{"GW_PASSPHRASE=gw-test"}
	gwCmd := fmt.Sprintf("GW_PASSPHRASE=gw-test %s", gwBinary(t))
	for _, tc := range []struct {
		args  []string
		typed string
		echo  bool
	}{
		{[]string{"config", "set", "--secret", "token"}, "typed s3cret", false},
		{[]string{"config", "set", "region"}, "eu-west-1", true},
	} {
		term := startInTmux(t, dir, gwCmd+" "+strings.Join(tc.args, " "))
		term.waitFor("value: ")
		term.typeLine(tc.typed)
		s := term.waitFor("GW-EXIT=")
		if !strings.Contains(s, "GW-EXIT=0") || strings.Contains(s, tc.typed) != tc.echo {
			t.Errorf("gw %q, typing %q (echoed: %v):\n%s", tc.args, tc.typed, tc.echo, s)
		}
		key := tc.args[len(tc.args)-1]
		if code, out := gwIn(t, dir, env, "config", "get", key); code != 0 || out != tc.typed+"\n" {
			t.Errorf("config get %s after typing %q: %d %q", key, tc.typed, code, out)
		}
	}
	if code, out := gwIn(t, dir, env, "config"); code != 0 || !strings.Contains(strings.Join(strings.Fields(out), " "), "site:token [secret]") {
		t.Errorf("the typed token is not kept as a secret: %d\n%s", code, out)
	}
}
