package command_test

import (
	"testing"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers/command"
	"github.com/groundwork-iac/groundwork/resource"
)

// The typed constructor runs the command and its outputs decode.
func TestTypedCommand(t *testing.T) {
	env := enginetest.New(t)
	env.Provider(command.Package, command.Version, command.New())
	var stdout, stderr string
	_, err := env.Up(func(ctx *engine.Context) error {
		c := command.NewCommand(ctx, "hello", command.CommandArgs{
			Create:      engine.Val("echo hello $WHO; echo oops >&2"),
			Shell:       engine.Val(true),
			Environment: engine.Val(map[string]string{"WHO": "world"}),
		})
		var err error
		if stdout, err = c.Stdout.Await(ctx.Context()); err != nil {
			return err
		}
		stderr, err = c.Stderr.Await(ctx.Context())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if stdout != "hello world" || stderr != "oops" {
		t.Errorf("stdout %q, stderr %q", stdout, stderr)
	}
}

// Issue 29: triggers computed from an output that a preview does not know
// yet (here the stdout of a command that is replaced) are unknown in the
// preview, and may replace the command; they used to be left out, which
// showed as triggers removed.
func TestComputedTriggersInAPreview(t *testing.T) {
	env := enginetest.New(t)
	env.Provider(command.Package, command.Version, command.New())
	program := func(word string) engine.Program {
		return func(ctx *engine.Context) error {
			src := command.NewCommand(ctx, "src", command.CommandArgs{
				Create:   engine.Val("echo " + word),
				Triggers: engine.Val([]any{word}),
			})
			command.NewCommand(ctx, "user", command.CommandArgs{
				Create:   engine.Val("true"),
				Triggers: engine.Apply(src.Stdout, func(s string) []any { return []any{s} }),
			})
			return nil
		}
	}
	if _, err := env.Up(program("one")); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Preview(program("two")); err != nil {
		t.Fatal(err)
	}
	var saw bool
	for _, e := range env.Events() {
		ev, ok := e.(engine.StepDoneEvent)
		if !ok || ev.URN.Name() != "user" || ev.Op != engine.StepCreateReplacement {
			continue
		}
		saw = true
		if trig := ev.NewInputs["triggers"]; !trig.IsUnknown() {
			t.Errorf("user's triggers = %v, want unknown", trig)
		}
		if d := ev.Diff["triggers"]; d.Kind != resource.DiffUpdateReplace {
			t.Errorf("user's triggers diff = %v, want update-replace", d.Kind)
		}
	}
	if !saw {
		t.Errorf("the preview does not replace user: %v", env.Events())
	}
}
