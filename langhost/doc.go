// Package langhost runs Pulumi SDK programs — Go and Node.js programs
// written with Pulumi's own SDKs — as groundwork programs: what Pulumi's
// language hosts do for the Pulumi CLI, done in-process for an Engine.
//
// A Program is a command. Its Run method is an engine.Program, so it goes
// wherever an in-process program does:
//
//	prog := langhost.Command("./bin/infra") // a built Pulumi Go program
//	res, err := eng.Up(ctx, prog.Run)
//
// # How a program is launched
//
// Run serves the deployment's monitor.Monitor over gRPC (package
// monitor/grpcserver) on a loopback port, for this run only, and starts
// the command in its own process group with the environment the SDKs
// read:
//
//	PULUMI_MONITOR, PULUMI_ENGINE   the server's address (both services)
//	PULUMI_PROJECT, PULUMI_STACK    the engine's project and stack
//	PULUMI_ORGANIZATION             Program.Organization ("organization")
//	PULUMI_ROOT_DIRECTORY           the project's folder
//	PULUMI_CONFIG                   {"<namespace>:<key>": "value", ...}
//	PULUMI_CONFIG_SECRET_KEYS       ["<namespace>:<key>", ...] (secret keys)
//	PULUMI_DRY_RUN                  "true" in a preview, else "false"
//	PULUMI_PARALLEL                 the operation's parallelism
//
// A Node.js program (Language NodeJS, see Node) is started the way
// Pulumi's Node.js language host starts it: node runs the run entry point
// of the @pulumi/pulumi package that the program itself depends on
// (NodeRunModule, as node resolves it from the program's folder), with
// the addresses, organization, project, stack, working folder,
// parallelism and dry-run as flags, followed by the program's entry module
// ("." for the one its package.json names) and its arguments:
//
//	node <dir>/node_modules/@pulumi/pulumi/cmd/run/index.js \
//	    --monitor 127.0.0.1:PORT --engine 127.0.0.1:PORT \
//	    --organization organization --project P --stack S \
//	    --parallel N [--dry-run] --pwd <dir> . [args...]
//
// The configuration comes from PULUMI_CONFIG, as for Go programs. So `npm install` (with
// @pulumi/pulumi among the dependencies) is all a Node.js program needs.
// As under Pulumi's Node.js language host, TypeScript is on unless
// Program.NoTypeScript: the run entry point registers ts-node (the
// program's own, or the one @pulumi/pulumi ships), so that the entry "."
// finds the program's package.json main, else index.js, else index.ts.
//
// # While it runs
//
// Every request of the program goes through the deployment's Monitor,
// the same path the in-process API takes. The SDKs register the stack's
// root resource ("pulumi:pulumi:Stack") themselves; since the engine's
// Context has already registered it, that registration is answered with
// the Context's root, and the outputs the program registers for it become
// the stack outputs (engine.Result.Outputs). A program that ends without
// registering them (the SDKs register them last, and not when one of them
// failed) leaves the stack's outputs as they were. Each line the program
// prints on stdout or stderr, and each message it logs through the Engine
// service, becomes an engine.DiagnosticEvent.
//
// Transforms and resource hooks the program registers are run by calling
// the program back (see monitor/grpcserver); its hooks become the
// operation's (engine.Context.RegisterHook). A program that says it has
// finished registering (SignalAndWaitForShutdown, which the SDKs call when
// the program succeeded) is left running, serving its callbacks, while the
// engine deletes the recorded resources it did not declare: Run returns at
// that point, and the program is let go and waited for in a function it
// defers (engine.Context.Defer) until those deletes are done.
//
// A program that exits with a non-zero status fails the operation with a
// *ProgramError quoting the end of its stderr; registrations that failed
// have been reported as step failures already. A program that logged the
// error that ended it and exited with the status by which the Pulumi SDKs
// say so (32) fails with that error as the ProgramError's message, once,
// without the SDK's wrapping or gRPC status words. When the operation is
// cancelled the program's process group gets SIGTERM, and SIGKILL after
// Program.GracePeriod; so does whatever a program that exited left running
// in its group. Nothing the program started outlives the operation; on
// Linux nothing outlives this process either, even killed with SIGKILL
// (the group then gets SIGKILL too).
//
// A Node.js program runs with a small module preloaded (node --require)
// that makes util.inspect format errors without colors, so that an
// uncaught error is reported as soon as it is thrown: on some Node.js
// releases the SDK's colored report of it spins for a minute or more
// (nodeshim.go says why).
//
// # Programs in this process
//
// Serve is the serving half of Run on its own: it serves the deployment
// to a program that a function starts and waits for, with all of the
// above except the process. Package langhost/inline, a module of its own
// (the Go SDK's pulumi package brings many modules with it), uses it to
// run func(*pulumi.Context) error programs inside the host's process:
//
//	res, err := eng.Up(ctx, inline.Program(func(ctx *pulumi.Context) error { ... }))
package langhost
