// Package command is a built-in provider that runs commands on the machine
// that runs the deployment: one when the resource is created, optionally
// others when it is updated and deleted. It takes no configuration.
// Register it in a providers.Registry with Register, or use New directly.
// In a program, declare its resources with the typed constructors
// NewCommand, whose arguments and outputs are Go structs naming the
// properties below.
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
//   - dir (string, optional): the working directory of the commands
//     (default: the deployment's).
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
// process the command started outlives it. On Linux the group also ends
// if the deployment's process is killed (SIGKILL, the OOM killer) while
// the command runs.
//
// In a preview nothing runs and stdout and stderr are unknown. Read
// returns the recorded state, since a command's effect cannot be read
// back, and for the same reason a Command cannot be imported.
package command
