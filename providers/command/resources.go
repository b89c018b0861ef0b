package command

import "github.com/groundwork-iac/groundwork/program"

// The program side: a typed constructor that declares a Command in an
// in-process program (package program), with Go structs for its inputs
// and outputs (the property names are those the package documentation
// lists). A zero Output in the arguments leaves the input out;
// program.Val gives a constant.

// CommandArgs are the inputs of a Command.
type CommandArgs struct {
	// Create is the command line Create runs (required).
	Create program.Output[string] `prop:"create"`
	// Update is the command line Update runs (default: Create).
	Update program.Output[string] `prop:"update"`
	// Delete is the command line Delete runs (default: none).
	Delete program.Output[string] `prop:"delete"`
	// Dir is the commands' working directory.
	Dir program.Output[string] `prop:"dir"`
	// Environment holds variables added to the commands' environment.
	Environment program.Output[map[string]string] `prop:"environment"`
	// Stdin is what the commands read on standard input.
	Stdin program.Output[string] `prop:"stdin"`
	// Shell runs the command lines with /bin/sh -c.
	Shell program.Output[bool] `prop:"shell"`
	// Triggers replace the resource when they change.
	Triggers program.Output[[]any] `prop:"triggers"`
}

// Command is a command:index:Command.
type Command struct {
	*program.Resource
	// Stdout and Stderr are what the last command that ran wrote, with
	// trailing newlines trimmed.
	Stdout program.Output[string] `prop:"stdout"`
	Stderr program.Output[string] `prop:"stderr"`
}

// NewCommand declares a Command.
func NewCommand(ctx *program.Context, name string, args CommandArgs, opts ...program.ResourceOption) *Command {
	return program.NewResource[Command](ctx, CommandType, name, args, opts...)
}
