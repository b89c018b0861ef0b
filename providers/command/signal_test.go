package command_test

import (
	"errors"
	"testing"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/command"
	"github.com/groundwork-iac/groundwork/resource"
)

// TestOutcomeUnknown: a command stopped from outside by a signal before it
// finished cannot say what it did, and its ExitError says so; a command
// that exits with a code, or that a signal of its own making ends, failed.
func TestOutcomeUnknown(t *testing.T) {
	tests := []struct {
		script string
		signal string // the ExitError's Signal, "" for an exit code
		want   bool
	}{
		{`exit 3`, "", false},
		{`kill -TERM $$`, "terminated", true},
		{`kill -KILL $$`, "killed", true},
		{`kill -INT $$`, "interrupt", true},
		{`kill -HUP $$`, "hangup", true},
		{`kill -SEGV $$`, "segmentation fault", false},
		{`kill -ABRT $$`, "aborted", false},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			t.Parallel()
			p := command.New()
			inputs := check(t, p, resource.PropertyMap{"create": str(tt.script), "shell": resource.NewBool(true)})
			_, err := p.Create(t.Context(), providers.CreateRequest{URN: urn, Inputs: inputs})
			var exit *command.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("Create = %v, want an *ExitError", err)
			}
			if exit.Signal != tt.signal || exit.OutcomeUnknown() != tt.want {
				t.Errorf("ExitError with Signal %q and OutcomeUnknown %v; want %q and %v", exit.Signal, exit.OutcomeUnknown(), tt.signal, tt.want)
			}
		})
	}
}
