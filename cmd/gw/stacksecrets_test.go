package main

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/state"
)

// gwIn runs the built gw in dir with env added, and returns its exit
// status and combined output.
func gwIn(t *testing.T, dir string, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(gwBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GW_PASSPHRASE=", "PULUMI_CONFIG_PASSPHRASE=", "PULUMI_CONFIG_PASSPHRASE_FILE="), env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	case err != nil:
		t.Fatalf("gw %q: %v", args, err)
	}
	return 0, string(out)
}

// goAPINames are words of the library's Go API that gw's output must not
// show its users.
var goAPINames = []string{"WithSecrets", "WithUnauthenticatedSnapshots", "state.", "secrets manager", "secrets provider"}

// noGoAPINames fails t if out names the Go API.
func noGoAPINames(t *testing.T, what, out string) {
	t.Helper()
	for _, name := range goAPINames {
		if strings.Contains(out, name) {
			t.Errorf("%s names %q:\n%s", what, name, out)
		}
	}
}

// TestChangePassphrase moves a stack with secrets in its state and its
// config file to a new passphrase: afterwards the new one opens both, the
// old one neither, and no file holds a secret in plaintext.
func TestChangePassphrase(t *testing.T) {
	t.Parallel()
	bin := site(t)
	dir := siteProject(t)
	oldEnv := []string{"GW_PASSPHRASE=old"}
	if code, out := gwIn(t, dir, oldEnv, "up", "--yes", "-c", "dir="+dir, "--secret-config", "token=t0k3n", "--", bin); code != 0 {
		t.Fatalf("up: %d\n%s", code, out)
	}
	newFile := filepath.Join(t.TempDir(), "new")
	if err := os.WriteFile(newFile, []byte("new\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out := gwIn(t, dir, oldEnv, "stack", "change-secrets-provider", "passphrase", "--new-passphrase-file", newFile)
	if code != 0 {
		t.Fatalf("change-secrets-provider: %d\n%s", code, out)
	}
	newEnv := []string{"GW_PASSPHRASE=new"}
	for _, args := range [][]string{{"stack", "output", "token", "--show-secrets"}, {"config", "get", "token"}} {
		if code, out := gwIn(t, dir, newEnv, args...); code != 0 || out != "t0k3n\n" {
			t.Errorf("gw %q with the new passphrase: %d %q", args, code, out)
		}
		if code, out := gwIn(t, dir, oldEnv, args...); code == 0 || !strings.Contains(out, "passphrase is wrong") {
			t.Errorf("gw %q with the old passphrase: %d %q; want the passphrase refused", args, code, out)
		}
	}
	if code, out := gwIn(t, dir, newEnv, "up", "--yes", "--", bin); code != 0 || strings.Contains(out, "+ create") {
		t.Errorf("up with the new passphrase: %d\n%s", code, out)
	}
	// Stdin gives the new passphrase too; the old one must open the stack.
	cmd := exec.Command(gwBinary(t), "stack", "change-secrets-provider", "passphrase")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader("third\n")
	cmd.Env = append(os.Environ(), "GW_PASSPHRASE=wrong")
	if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), "passphrase is wrong") {
		t.Errorf("change-secrets-provider with a wrong passphrase: %v\n%s", err, b)
	}
	cmd = exec.Command(gwBinary(t), "stack", "change-secrets-provider", "passphrase")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader("third\n")
	cmd.Env = append(os.Environ(), "GW_PASSPHRASE=new")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("change-secrets-provider from stdin: %v\n%s", err, b)
	}
	if code, out := gwIn(t, dir, []string{"GW_PASSPHRASE=third"}, "config", "get", "token"); code != 0 || out != "t0k3n\n" {
		t.Errorf("config get with the passphrase from stdin: %d %q", code, out)
	}
	noPlaintext(t, dir, "t0k3n")
}

// noPlaintext fails t if a file under dir holds secret.
func noPlaintext(t *testing.T, dir, secret string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(b), secret) {
			t.Errorf("%s holds the secret in plaintext", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPassphraseForAStackThatHadNone: a stack deployed without a
// passphrase is refused once GW_PASSPHRASE is set, with advice in gw's
// words; change-secrets-provider protects it with that passphrase. A
// secret with no passphrase set is refused in gw's words too.
func TestPassphraseForAStackThatHadNone(t *testing.T) {
	t.Parallel()
	bin := site(t)
	dir := siteProject(t)
	// The token is plain config, but the program exports it as a secret:
	// without a passphrase the state cannot record it.
	code, out := gwIn(t, dir, nil, "up", "--yes", "-c", "dir="+dir, "-c", "token=t0k3n", "--", bin)
	if code != exitError || !strings.Contains(out, "no passphrase is set: set GW_PASSPHRASE") {
		t.Errorf("up of a secret without a passphrase: %d; want a refusal that says to set GW_PASSPHRASE\n%s", code, out)
	}
	noGoAPINames(t, "up of a secret without a passphrase", out)

	withPass := []string{"GW_PASSPHRASE=now"}
	code, out = gwIn(t, dir, withPass, "up", "--yes", "--", bin)
	if code != exitError || !strings.Contains(out, `run "gw stack change-secrets-provider passphrase"`) {
		t.Errorf("up with a passphrase on a stack written without: %d; want advice to change the provider\n%s", code, out)
	}
	noGoAPINames(t, "up with a passphrase on a stack written without", out)
	if strings.Count(out, "change-secrets-provider") != 1 {
		t.Errorf("the error is printed more than once:\n%s", out)
	}
	if code, out = gwIn(t, dir, withPass, "stack", "change-secrets-provider", "passphrase"); code != 0 {
		t.Fatalf("change-secrets-provider: %d\n%s", code, out)
	}
	if code, out = gwIn(t, dir, withPass, "up", "--yes", "--", bin); code != 0 {
		t.Fatalf("up after change-secrets-provider: %d\n%s", code, out)
	}
	if code, out = gwIn(t, dir, withPass, "stack", "output", "token", "--show-secrets"); code != 0 || out != "t0k3n\n" {
		t.Errorf("stack output token: %d %q", code, out)
	}
	noPlaintext(t, filepath.Join(dir, ".groundwork"), "t0k3n")
}

// TestMessagesForCLI: the library's errors that name its Go API are said
// in gw's words.
func TestMessagesForCLI(t *testing.T) {
	for _, err := range []error{
		state.ErrNoSecretsManager,
		&state.AuthenticationError{Stack: state.StackID{Project: "site", Stack: "dev"}, File: "snapshot", Missing: true, Reason: "records no secrets manager"},
	} {
		msg := inCLIWords(err).Error()
		noGoAPINames(t, "the message", msg)
		if !strings.Contains(msg, "GW_PASSPHRASE") {
			t.Errorf("%q does not say what to do in gw's words", msg)
		}
	}
}
