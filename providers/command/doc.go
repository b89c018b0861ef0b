// Package command is a built-in provider that runs commands on the machine
// that runs the deployment: one when the resource is created, optionally
// others when it is updated and deleted. It takes no configuration.
// Register it in a providers.Registry with Register, or use New directly.
// In a program, declare its resources with the typed constructors
// NewCommand, whose arguments and outputs are Go structs naming the
// properties below.
//
// It serves two sets of types: groundwork's own command:index:Command, and
// pulumi-command's command:local:Command and command:local:run, with the
// inputs, outputs and defaults of pulumi-command's releases 1.0.0 to
// Version, so that programs written with pulumi-command's SDKs run
// unchanged. Register records it at Version, claiming the major version
// (providers.ClaimMajor): a program that asks for any 1.x release gets
// the built-in unless the user prefers the plugin
// (providers.PreferPlugins). pulumi-command's remote types
// (command:remote:*) are not served; the registry gives them to the
// pulumi-resource-command plugin. GetSchema answers the package schema of
// the types served.
//
// # command:index:Command
//
// Inputs:
//
//   - create (string, required): the command line run by Create.
//   - update (string, optional): the command line run by Update. Without
//     it, an update runs create again.
//   - delete (string, optional): the command line run by Delete. Without
//     it, deleting the resource runs nothing.
//   - dir (string, optional): the working directory of the commands;
//     a relative one is taken from the provider's working folder, which
//     is also the default (WorkDir; without it, this process's).
//   - environment (object of strings, optional): variables added to the
//     deployment's environment for the commands.
//   - stdin (string, optional): what the commands read on standard input.
//   - shell (bool, default false): without a shell, a command line is split
//     into a program and its arguments by shell-like quoting ('single',
//     "double" and backslash escapes) and nothing else — no variables,
//     globs, pipes or redirections — and run directly. With shell true it
//     is run by /bin/sh -c, with everything the shell does.
//   - triggers (array of anything, optional): a change replaces the
//     resource: the old one's delete command runs and the create command
//     runs again.
//
// Outputs: the inputs (shell defaulted) plus stdout and stderr, what the
// last command that ran wrote, with trailing newlines trimmed (each cut
// after 1 MiB). They are secret if any input is. Update and delete commands
// find the recorded stdout and stderr in the environment variables
// GROUNDWORK_STDOUT and GROUNDWORK_STDERR (each when at most 64 KiB), so a
// delete command can undo what create printed, such as the ID of something
// it made.
//
// Diff: a change of triggers replaces the resource; any other change
// updates it. Update runs the update command (or create) when create,
// update, dir, environment, stdin or shell changed; a change of delete
// alone is just recorded.
//
// A command that exits with a non-zero code fails the operation with an
// *ExitError carrying the code and the end of its stderr; a failed Create
// leaves no resource behind. A command stopped from outside before it
// finished, by SIGKILL, SIGTERM, SIGINT or SIGHUP, may have done part of
// its work: its *ExitError reports the outcome unknown (OutcomeUnknown),
// and the engine keeps the step as a pending operation, which a refresh
// resolves. A command that sees a secret (any input is
// one) is named "[secret]" in errors, and the plaintext of every secret it
// was given is masked in the stderr they quote (resource.SecretFilter): a
// secret the command transforms before printing it cannot be recognised. Each command runs in a process group of its
// own. When the operation's context is cancelled or its timeout expires,
// the whole group gets SIGTERM and, two seconds later, SIGKILL, so no
// process the command started outlives it; the operation fails as
// stopped, wrapping the context's error. A command that had already
// exited by then (its output held open by a process it left behind, say)
// reports its own exit instead, on Linux, where its exit can be seen. On Linux the group also ends
// if the deployment's process is killed (SIGKILL, the OOM killer) while
// the command runs.
//
// In a preview nothing runs and stdout and stderr are unknown. Read
// returns the recorded state, since a command's effect cannot be read
// back, and for the same reason a Command cannot be imported.
//
// # command:local:Command
//
// pulumi-command's local Command. Every input is optional, and the inputs
// are recorded as given (no defaults filled in):
//
//   - create, update, delete (string): the command lines run on create,
//     update (default: create; with neither, an update runs nothing) and
//     delete.
//   - interpreter (array of strings): the program and arguments that run a
//     command line, given as the last argument (default /bin/sh -c).
//   - dir, environment, stdin: as for command:index:Command.
//   - addPreviousOutputInEnv (bool, true when left out): update and delete
//     commands find the recorded stdout and stderr, when not empty, in
//     PULUMI_COMMAND_STDOUT and PULUMI_COMMAND_STDERR.
//   - assetPaths, archivePaths (arrays of globs): after a command runs, the
//     files under its directory they select become the assets output (an
//     object of path assets by relative path) and the archive output (an
//     archive of them). See assets.go for the glob syntax.
//   - logging ("stdout", "stderr", "stdoutAndStderr" or "none"): accepted
//     and recorded; an in-process provider has no log to write to, so
//     nothing is logged whatever its value.
//   - triggers (array of anything): a change replaces the resource.
//
// Outputs: the inputs plus stdout and stderr, with one trailing newline
// trimmed, and assets and archive when their paths are given. They are
// secret if any input is (pulumi-command leaves them plaintext; see
// COMPATIBILITY.md). The ID is the resource's name and eight hex digits.
//
// Diff: a change of triggers replaces the resource; any other change,
// delete's alone included, updates it, and an update runs the update (or
// create) command. A preview runs nothing: a create's outputs are unknown,
// an update's keep the recorded ones.
//
// # command:local:run
//
// pulumi-command's run function: it runs command (required) with the same
// inputs but create, update, delete and triggers, in every preview and
// update, and returns its arguments plus stdout and stderr (and assets and
// archive). A command that fails fails the call.
package command
