package command_test

import (
	"testing"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers/command"
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
