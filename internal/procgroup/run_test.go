//go:build unix

package procgroup_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/internal/procgroup"
)

// runScript runs script with sh under Run in the background; the script
// prints the pid of a child it starts as its first line, which runScript
// returns with the channel Run's error arrives on.
func runScript(t *testing.T, ctx context.Context, script string, grace time.Duration) (child int, ran <-chan error) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	r, w := io.Pipe()
	cmd.Stdout = w
	errs := make(chan error, 1)
	go func() {
		err := procgroup.Run(ctx, cmd, grace)
		w.Close()
		errs <- err
	}()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the child's pid: %v (Run: %v)", err, <-errs)
	}
	go io.Copy(io.Discard, r)
	child, err = strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("the script printed %q, want the child's pid", line)
	}
	t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })
	return child, errs
}

// TestRunCancelled: when ctx ends, the whole group gets SIGTERM, and what
// ignores it gets SIGKILL once the grace period has passed; Run returns
// when the leader has exited, having killed what was left.
func TestRunCancelled(t *testing.T) {
	tests := []struct {
		name, script string
		// minWait is how long Run must take after the cancellation:
		// the grace period when the leader ignores SIGTERM.
		grace, minWait time.Duration
	}{
		{"polite", `sleep 300 & echo $!; wait`, time.Minute, 0},
		{"child ignores SIGTERM", `(trap '' TERM; exec sleep 300 >/dev/null) & echo $!; wait`, time.Minute, 0},
		{"all ignore SIGTERM", `trap '' TERM; sleep 300 & echo $!; wait; wait`, 300 * time.Millisecond, 300 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			child, ran := runScript(t, ctx, tt.script, tt.grace)
			cancel()
			began := time.Now()
			select {
			case err := <-ran:
				var exit *exec.ExitError
				var stopped *procgroup.StoppedError
				if !errors.As(err, &exit) || !errors.As(err, &stopped) {
					t.Errorf("Run of a cancelled script = %v, want a *StoppedError wrapping an *exec.ExitError", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("Run did not return after its context was cancelled")
			}
			if took := time.Since(began); took < tt.minWait {
				t.Errorf("Run returned %v after the cancellation, before the grace period of %v", took, tt.minWait)
			}
			if left := gone([]int{child}, 5*time.Second); len(left) > 0 {
				t.Errorf("the child %d outlived its cancelled group", child)
			}
		})
	}
}

// TestRunLeavesADaemon: a leader that exits on its own may leave a process
// running on purpose; Run leaves it alone.
func TestRunLeavesADaemon(t *testing.T) {
	child, ran := runScript(t, t.Context(), `sleep 300 >/dev/null 2>&1 & echo $!`, time.Second)
	if err := <-ran; err != nil {
		t.Fatalf("Run = %v", err)
	}
	time.Sleep(100 * time.Millisecond)
	if !running(child) {
		t.Errorf("the process %d the leader left running was ended", child)
	}
}

func TestRunErrors(t *testing.T) {
	err := procgroup.Run(t.Context(), exec.Command("sh", "-c", "exit 3"), time.Second)
	if exit, ok := errors.AsType[*exec.ExitError](err); !ok || exit.ExitCode() != 3 {
		t.Errorf("Run of exit 3 = %v, want an *exec.ExitError with code 3", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	cmd := exec.Command("sh", "-c", "exit 0")
	if err := procgroup.Run(ctx, cmd, time.Second); !errors.Is(err, context.Canceled) || cmd.Process != nil {
		t.Errorf("Run with its context done = %v (started: %v), want context.Canceled and nothing started", err, cmd.Process != nil)
	}
	if err := procgroup.Run(t.Context(), exec.Command("/nonexistent/command"), time.Second); err == nil {
		t.Error("Run of a command that does not exist succeeded")
	}
}
