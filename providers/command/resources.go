package command

import "github.com/groundwork-iac/groundwork/engine"

// The program side: a typed constructor that declares a Command in an
// engine program, with Go structs for its inputs and outputs (the
// property names are those the package documentation lists). A zero Output
// in the arguments leaves the input out; engine.Val gives a constant.

// CommandArgs are the inputs of a Command.
type CommandArgs struct {
	// Create is the command line Create runs (required).
	Create engine.Output[string] `prop:"create"`
	// Update is the command line Update runs (default: Create).
	Update engine.Output[string] `prop:"update"`
	// Delete is the command line Delete runs (default: none).
	Delete engine.Output[string] `prop:"delete"`
	// Dir is the commands' working directory.
	Dir engine.Output[string] `prop:"dir"`
	// Environment holds variables added to the commands' environment.
	Environment engine.Output[map[string]string] `prop:"environment"`
	// Stdin is what the commands read on standard input.
	Stdin engine.Output[string] `prop:"stdin"`
	// Shell runs the command lines with /bin/sh -c.
	Shell engine.Output[bool] `prop:"shell"`
	// Triggers replace the resource when they change.
	Triggers engine.Output[[]any] `prop:"triggers"`
}

// Command is a command:index:Command.
type Command struct {
	*engine.Resource
	// Stdout and Stderr are what the last command that ran wrote, with
	// trailing newlines trimmed.
	Stdout engine.Output[string] `prop:"stdout"`
	Stderr engine.Output[string] `prop:"stderr"`
}

// NewCommand declares a Command.
func NewCommand(ctx *engine.Context, name string, args CommandArgs, opts ...engine.ResourceOption) *Command {
	return engine.NewResource[Command](ctx, CommandType, name, args, opts...)
}
