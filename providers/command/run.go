package command

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/groundwork-iac/groundwork/internal/procgroup"
	"github.com/groundwork-iac/groundwork/resource"
)

const (
	// killGrace is how long a cancelled command's process group has
	// between SIGTERM and SIGKILL.
	killGrace = 2 * time.Second
	// waitDelay bounds the wait for output after the command exits or is
	// killed, for when a process it left behind holds its pipes open.
	waitDelay = killGrace + time.Second
	// maxOutput bounds how much of stdout and of stderr is kept.
	maxOutput = 1 << 20
	// maxEnvOutput bounds the recorded outputs passed to later commands
	// in the environment: the kernel limits each variable to 128 KiB.
	maxEnvOutput = 64 << 10
	// The stderr tail an ExitError carries.
	tailLines = 20
	tailBytes = 4 << 10
)

// invocation is one run of a command line.
type invocation struct {
	op    string // "create", "update", "delete" or "run", for errors
	line  string
	shell bool
	// interpreter, if set, runs line: line is appended to it as the last
	// argument (pulumi-command's interpreter, such as /bin/sh -c).
	interpreter []string
	// trimOne trims one trailing newline from the outputs, as
	// pulumi-command does, instead of all trailing newlines.
	trimOne bool
	dir     string
	env     map[string]string
	// extraEnv are NAME=value pairs added after env.
	extraEnv []string
	stdin    string
	// secret hides the command line from errors; secrets are the
	// plaintexts of the secrets the command sees, masked in errors.
	secret  bool
	secrets *resource.SecretFilter
}

// ExitError reports a command that ran and failed.
type ExitError struct {
	// Op is the command that failed: "create", "update", "delete" or
	// "run" (the command:local:run function).
	Op string
	// Command is the command line, or "[secret]" if it is secret.
	Command string
	// Code is the exit code, or -1 if a signal ended the command.
	Code int
	// Signal is the signal that ended the command, if one did.
	Signal string
	// Stderr is the end of what the command wrote to stderr: at most its
	// last 20 lines and 4 KiB, with the plaintext of every secret input
	// (and of a secret earlier output the command sees) masked.
	Stderr string

	signal syscall.Signal // the signal that ended the command, 0 for none
}

// OutcomeUnknown reports whether the command was stopped from outside
// before it finished: ended by SIGKILL, SIGTERM, SIGINT or SIGHUP (the OOM
// killer, a service manager stopping the deployment with its commands, a
// closed terminal). Such a command did part of its work, or all of it, and
// could not say which: the engine keeps its step as a pending operation,
// which a refresh resolves, rather than a failure that records nothing.
// A command that exits with a code, or that a signal of its own making
// ends (SIGSEGV, SIGABRT), failed.
func (e *ExitError) OutcomeUnknown() bool {
	switch e.signal {
	case syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP:
		return true
	}
	return false
}

func (e *ExitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the %s command %q ", e.Op, e.Command)
	if e.Signal != "" {
		fmt.Fprintf(&b, "was killed by signal %s", e.Signal)
	} else {
		fmt.Fprintf(&b, "exited with code %d", e.Code)
	}
	if e.Stderr == "" {
		b.WriteString(" and wrote nothing to stderr")
	} else {
		fmt.Fprintf(&b, "; the end of its stderr:\n%s", e.Stderr)
	}
	return b.String()
}

// run runs the command and returns its stdout and stderr with trailing
// newlines trimmed. The command runs in a process group of its own, which
// ends with the deployment's process if that is killed while the command
// runs; when ctx ends, the whole group gets SIGTERM, then SIGKILL after
// killGrace, and run returns an error wrapping ctx's error and its cause.
func run(ctx context.Context, inv invocation) (stdout, stderr string, err error) {
	stdout, stderr, err = runCommand(ctx, inv)
	// The errors other than an ExitError quote what exec says, which may
	// hold a secret (a secret command line whose executable is not
	// found, say).
	return stdout, stderr, inv.secrets.MaskError(err)
}

// runCommand is run without masking the errors' messages.
func runCommand(ctx context.Context, inv invocation) (stdout, stderr string, err error) {
	argv := []string{"/bin/sh", "-c", inv.line}
	switch {
	case len(inv.interpreter) > 0:
		argv = append(slices.Clone(inv.interpreter), inv.line)
	case !inv.shell:
		if argv, err = splitArgs(inv.line); err != nil {
			return "", "", fmt.Errorf("the %s command: %w", inv.op, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return "", "", stopped(ctx, inv)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = inv.dir
	cmd.Env = os.Environ()
	for k, v := range inv.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, inv.extraEnv...)
	cmd.Stdin = strings.NewReader(inv.stdin)
	var out, errOut capped
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = waitDelay
	// The command's process group ends when ctx does, and with the host
	// if the host is killed while it runs.
	// A command that exited on its own reports its exit, even if ctx
	// ended before its output was read to the end; only one that ctx
	// stopped while it ran was stopped.
	err = procgroup.Run(ctx, cmd, killGrace)
	if _, ok := errors.AsType[*procgroup.StoppedError](err); ok {
		return "", "", stopped(ctx, inv)
	}
	stdout, stderr = inv.trim(out.String()), inv.trim(errOut.String())
	var exitErr *exec.ExitError
	switch {
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
		// ErrWaitDelay: the command succeeded but left a process behind
		// that holds its output open; what it wrote before is kept.
		return stdout, stderr, nil
	case errors.As(err, &exitErr):
		e := &ExitError{Op: inv.op, Command: inv.describe(), Code: exitErr.ExitCode(), Stderr: tail(inv.secrets.Mask(stderr))}
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			e.signal = ws.Signal()
			e.Signal = e.signal.String()
		}
		return stdout, stderr, e
	default:
		return stdout, stderr, fmt.Errorf("the %s command %q could not run: %w", inv.op, inv.describe(), err)
	}
}

func (inv invocation) describe() string {
	if inv.secret {
		return "[secret]"
	}
	return inv.line
}

// stopped is the error of a command that ctx stopped (or kept from
// starting). It wraps both ctx's error and its cause.
func stopped(ctx context.Context, inv invocation) error {
	err, cause := ctx.Err(), context.Cause(ctx)
	if errors.Is(cause, err) {
		return fmt.Errorf("the %s command %q was stopped: %w", inv.op, inv.describe(), cause)
	}
	return fmt.Errorf("the %s command %q was stopped: %w: %w", inv.op, inv.describe(), err, cause)
}

// trim trims the trailing newlines of a command's output: all of them, or
// one for pulumi-command's types.
func (inv invocation) trim(s string) string {
	if inv.trimOne {
		return strings.TrimSuffix(s, "\n")
	}
	return strings.TrimRight(s, "\r\n")
}

// tail is the end of s: at most its last tailLines lines and tailBytes
// bytes, cut at a line or character boundary.
func tail(s string) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	t := strings.Join(lines, "")
	if len(t) > tailBytes {
		t = t[len(t)-tailBytes:]
		for i := range min(4, len(t)) {
			if t[i]&0xC0 != 0x80 { // not a UTF-8 continuation byte
				t = t[i:]
				break
			}
		}
		t = "…" + t
	}
	return t
}

// capped keeps the first maxOutput bytes written to it and notes that the
// rest was dropped.
type capped struct {
	b       strings.Builder
	dropped bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := maxOutput - c.b.Len(); room < len(p) {
		c.b.Write(p[:max(room, 0)])
		c.dropped = true
		return len(p), nil
	}
	c.b.Write(p)
	return len(p), nil
}

func (c *capped) String() string {
	if c.dropped {
		return c.b.String() + fmt.Sprintf("\n[groundwork: output cut after %d bytes]", maxOutput)
	}
	return c.b.String()
}

// workDir is the folder a command with the dir input dir runs in, given
// the provider's working folder wd: dir, taken relative to wd when it is
// relative; wd when dir is empty. "" is this process's working folder.
func workDir(wd, dir string) string {
	if wd == "" || filepath.IsAbs(dir) {
		return dir
	}
	return filepath.Join(wd, dir)
}
