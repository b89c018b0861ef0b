package command_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/command"
	"github.com/groundwork-iac/groundwork/resource"
)

// TestCancelKillsProcessGroup cancels a command whose shell has started a
// sleep in the background, and checks that the sleep dies with it — also
// when both ignore SIGTERM, so that only the SIGKILL after the grace period
// ends them.
func TestCancelKillsProcessGroup(t *testing.T) {
	tests := []struct{ name, script string }{
		{"polite", `sleep 300 & echo $! > "$PIDFILE"; wait`},
		{"ignores SIGTERM", `trap '' TERM; sleep 300 & echo $! > "$PIDFILE"; wait; wait`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := command.New()
			pidfile := filepath.Join(t.TempDir(), "pid")
			inputs := check(t, p, resource.PropertyMap{
				"create":      str(tt.script),
				"shell":       resource.NewBool(true),
				"environment": resource.NewObject(resource.PropertyMap{"PIDFILE": str(pidfile)}),
			})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := p.Create(ctx, providers.CreateRequest{URN: urn, Inputs: inputs})
				done <- err
			}()
			pid := waitForPID(t, pidfile)
			if processGone(pid) {
				t.Fatalf("the background sleep %d is not running before the cancellation", pid)
			}
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Create of a cancelled command = %v, want an error wrapping context.Canceled", err)
				}
			case <-time.After(15 * time.Second):
				t.Fatal("Create did not return after its context was cancelled")
			}
			deadline := time.Now().Add(5 * time.Second)
			for !processGone(pid) {
				if time.Now().After(deadline) {
					t.Fatalf("the background sleep %d outlived its cancelled command", pid)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

func waitForPID(t *testing.T, pidfile string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		data, err := os.ReadFile(pidfile)
		if s, complete := strings.CutSuffix(string(data), "\n"); err == nil && complete {
			pid, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("pid file holds %q", data)
			}
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the command never wrote its pid file")
	return 0
}

// processGone reports whether pid no longer runs: it does not exist, or it
// is a zombie waiting to be reaped.
func processGone(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(data), ") ")
	return strings.HasPrefix(rest, "Z") || strings.HasPrefix(rest, "X")
}

func TestTimeout(t *testing.T) {
	p := command.New()
	inputs := check(t, p, resource.PropertyMap{"create": str("sleep 30")})
	start := time.Now()
	_, err := p.Create(t.Context(), providers.CreateRequest{URN: urn, Inputs: inputs, Timeout: 200 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timeout") {
		t.Errorf("Create past its timeout = %v, want an error wrapping context.DeadlineExceeded that mentions the timeout", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Create took %v to stop at a 200ms timeout", took)
	}
}

// TestExitBeforeTimeout: a command that exits with a code of its own
// before its timeout failed, with that code and its stderr (secrets
// masked), even when the timeout expires before its output is read to
// the end — here because a process it left behind holds stderr open past
// the timeout, which is what the timeout's SIGTERM then ends. Only a
// command still running at the timeout was stopped.
func TestExitBeforeTimeout(t *testing.T) {
	p := command.New()
	inputs := check(t, p, resource.PropertyMap{
		"create":      str(`echo "oops $TOKEN" >&2; sleep 30 & exit 3`),
		"shell":       resource.NewBool(true),
		"environment": resource.NewObject(resource.PropertyMap{"TOKEN": resource.NewSecret(str("hunter22"))}),
	})
	_, err := p.Create(t.Context(), providers.CreateRequest{URN: urn, Inputs: inputs, Timeout: time.Second})
	var exit *command.ExitError
	if !errors.As(err, &exit) || exit.Code != 3 || exit.Signal != "" || exit.Stderr != "oops [secret]" {
		t.Fatalf("Create of a command that exited with 3 before its timeout = %#v, want an *ExitError with code 3 and stderr %q", err, "oops [secret]")
	}
	if errors.Is(err, context.DeadlineExceeded) || exit.OutcomeUnknown() {
		t.Errorf("Create of a command that exited before its timeout = %v, reported as stopped", err)
	}
}
