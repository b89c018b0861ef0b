//go:build unix

package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers/command"
	"github.com/groundwork-iac/groundwork/resource"
)

// TestInterruptCommandSequences interrupts the create, update and delete
// commands of the built-in command provider, real processes, and checks
// that nothing a command was started for is forgotten: a command that
// finishes within the grace period is recorded with its outcome; one that
// does not (whether it stops on SIGTERM or ignores it), or that is
// stopped by a signal from outside before it finishes, is left as a
// pending operation that names the resource, which the next operation
// warns of and a refresh resolves (except a create, which has no ID to
// look for: it stays pending, and every operation warns of it).
func TestInterruptCommandSequences(t *testing.T) {
	const (
		finishes = `sleep 0.5; echo %s`
		polite   = `sleep 30`
		stubborn = `trap '' TERM; sleep 30`
	)
	tests := []struct {
		name string
		op   string // the operation interrupted: "create", "update" or "delete"
		// slow is what the interrupted command runs once it has started;
		// %s, if there, is replaced by the operation's name.
		slow  string
		grace time.Duration
		// kill, if set, is sent to the command's process group once the
		// operation is cancelled, from outside: a service manager that
		// stops the deployment and its commands, the OOM killer.
		kill syscall.Signal
		// recorded is the stdout slow is recorded with ("" when it is not
		// recorded); pending its pending operation, as "kind name".
		recorded string
		pending  []string
		// refreshed is the pending operation a refresh leaves.
		refreshed []string
	}{
		{name: "a create that finishes in the grace period", op: "create", slow: finishes, grace: time.Minute, recorded: "create"},
		{name: "a create that stops at the end of the grace period", op: "create", slow: polite, grace: 300 * time.Millisecond,
			pending: []string{"creating slow"}, refreshed: []string{"creating slow"}},
		{name: "a create that ignores SIGTERM", op: "create", slow: stubborn, grace: 300 * time.Millisecond,
			pending: []string{"creating slow"}, refreshed: []string{"creating slow"}},
		{name: "a create whose command is stopped by SIGTERM from outside", op: "create", slow: polite, grace: time.Minute, kill: syscall.SIGTERM,
			pending: []string{"creating slow"}, refreshed: []string{"creating slow"}},
		{name: "a create whose command is killed from outside", op: "create", slow: stubborn, grace: time.Minute, kill: syscall.SIGKILL,
			pending: []string{"creating slow"}, refreshed: []string{"creating slow"}},
		{name: "an update whose command is killed from outside", op: "update", slow: stubborn, grace: time.Minute, kill: syscall.SIGKILL,
			recorded: "v1", pending: []string{"updating slow"}},
		{name: "an update that finishes in the grace period", op: "update", slow: finishes, grace: time.Minute, recorded: "update"},
		{name: "an update that outlives the grace period", op: "update", slow: stubborn, grace: 300 * time.Millisecond,
			recorded: "v1", pending: []string{"updating slow"}},
		{name: "a delete that finishes in the grace period", op: "delete", slow: finishes, grace: time.Minute},
		{name: "a delete that outlives the grace period", op: "delete", slow: polite, grace: 300 * time.Millisecond,
			recorded: "v1", pending: []string{"deleting slow"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := enginetest.New(t)
			env.Provider(command.Package, "", command.New())
			urn := env.URN(command.CommandType, "slow")
			started := filepath.Join(t.TempDir(), "started")
			slow := fmt.Sprintf("echo $$ > %q.new; mv %[1]q.new %[1]q; ", started) + tt.slow
			if tt.slow == finishes {
				slow = fmt.Sprintf(slow, tt.op)
			}
			register := func(create string) engine.Program {
				return func(c *engine.Context) error {
					props := engine.Props{"create": create, "shell": true}
					if tt.op != "create" {
						props[tt.op] = slow
					}
					c.Register(command.CommandType, "slow", props)
					return nil
				}
			}
			if tt.op != "create" {
				if _, err := env.Up(register("echo v1")); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithCancelCause(t.Context())
			defer cancel(nil)
			go func() {
				for ctx.Err() == nil {
					if pid, err := os.ReadFile(started); err == nil {
						cancel(errors.New("interrupted"))
						if tt.kill != 0 {
							pgid, err := strconv.Atoi(strings.TrimSpace(string(pid)))
							if err != nil {
								t.Errorf("the command wrote %q, not its pid", pid)
								return
							}
							_ = syscall.Kill(-pgid, tt.kill)
						}
						return
					}
					time.Sleep(10 * time.Millisecond)
				}
			}()
			opts := []engine.Option{engine.GracePeriod(tt.grace)}
			var err error
			switch tt.op {
			case "create":
				_, err = upWithin(t, env, ctx, register(slow), opts...)
			case "update":
				_, err = upWithin(t, env, ctx, register("echo v2"), opts...)
			case "delete":
				_, err = env.Engine().Destroy(ctx, opts...)
			}
			if ce, ok := errors.AsType[*engine.CancelledError](err); !ok {
				t.Fatalf("error = %v; want a *CancelledError", err)
			} else if len(tt.pending) > 0 {
				want := []string{strings.TrimSuffix(tt.pending[0], "slow") + string(urn)}
				if !slices.Equal(ce.Pending, want) {
					t.Errorf("the error names the pending operations %v; want %v", ce.Pending, want)
				}
			}
			checkSlow(t, env, urn, tt.recorded, tt.pending)
			if len(tt.pending) == 0 {
				return
			}
			if _, err := env.Preview(func(*engine.Context) error { return nil }); err != nil {
				t.Fatal(err)
			}
			if !warnedOf(env.Events(), urn) {
				t.Errorf("the next operation does not warn of the pending operation: %v", env.Events())
			}
			if _, err := env.Engine().Refresh(t.Context()); err != nil {
				t.Fatalf("refresh: %v", err)
			}
			checkSlow(t, env, urn, tt.recorded, tt.refreshed)
		})
	}
}

// checkSlow checks that the command urn is recorded with the stdout
// recorded ("" for not recorded) and that the stack's pending operations
// are pending.
func checkSlow(t *testing.T, env *enginetest.Env, urn resource.URN, recorded string, pending []string) {
	t.Helper()
	r := env.Resource(urn)
	switch {
	case recorded == "" && r != nil:
		t.Errorf("slow is recorded (stdout %v); want it not recorded", r.Outputs["stdout"])
	case recorded != "" && r == nil:
		t.Errorf("slow is not recorded; want it recorded with stdout %q", recorded)
	case r != nil && !r.Outputs["stdout"].Equal(resource.NewString(recorded)):
		t.Errorf("slow is recorded with stdout %v; want %q", r.Outputs["stdout"], recorded)
	}
	if got := pendingOf(env.Snapshot()); !slices.Equal(got, pending) {
		t.Errorf("pending operations %v; want %v", got, pending)
	}
}
