// Command gw is a small deployment CLI built on groundwork's public API
// alone: it deploys Pulumi SDK programs (Go or Node.js) with the engine,
// keeping each stack's state in a folder or a PostgreSQL database and its
// configuration in Pulumi.<stack>.yaml, as the Pulumi CLI does.
//
//	gw preview [flags] [-- program [args...]]
//	gw up      [flags] [-- program [args...]]
//	gw refresh [flags]
//	gw destroy [flags]
//	gw import  [flags] TYPE NAME ID      (or --file resources.json)
//	gw config  [set KEY VALUE | get KEY | rm KEY] [--secret]
//	gw stack   output [NAME] | ls | export | import
//	gw unlock  [--force]
//	gw completion bash|zsh|fish|powershell
//
// "gw help", "gw --help" and "gw <command> --help" describe every command
// and flag, "gw --version" prints the version; README.md is the tour. The
// commands are cobra commands (cli.go adapts gw's run functions to them):
// a mistyped command or flag is a usage error that names the ones that
// come close.
//
// The program is the command after "--": a built Pulumi Go program, "go
// run .", or for a Node.js project (runtime: nodejs in Pulumi.yaml) the
// entry module and its arguments. Without one, a Go project runs "go run
// ." and a Node.js project its package.json entry point.
//
// Secrets (in the state and in Pulumi.<stack>.yaml) are encrypted with the
// passphrase in GW_PASSPHRASE, or else PULUMI_CONFIG_PASSPHRASE. The
// built-in providers (local, random, command) are always available for
// their own types; other types and packages, and versions only a plugin
// has, are served by plugins. gw exits 0 on success, 1 when the operation
// fails, 2 on a usage error and 130 when a second interrupt stops it at
// once, with the error on stderr.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/groundwork-iac/groundwork/engine"
)

// The exit statuses.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitInterrupted = 130 // 128 + SIGINT, as shells report it
)

// errInterrupted is the cause of an operation cancelled by an interrupt.
var errInterrupted = errors.New("interrupted")

func main() {
	// A write to a closed pipe (gw up --json | head) fails with EPIPE
	// instead of killing gw mid-operation: the display drops what it
	// cannot write and the operation ends and unlocks the stack. (Notify,
	// not Ignore: an ignored signal stays ignored in the programs and
	// plugins gw starts.)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	watched := make(chan struct{})
	stderr := &noticeBoard{w: os.Stderr}
	go func() {
		defer close(watched)
		interrupts(sigs, done, cancel, stderr, forceExit)
	}()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, stderr)
	close(done)
	<-watched
	signal.Stop(sigs)
	cancel(nil)
	os.Exit(code)
}

// forceExit ends gw at once with code. It ends nothing gw started before
// gw itself has ended: a command or plugin killed while gw still runs
// would fail its step, and the engine would record that failure, and so
// forget a change the step may have made in part. Once gw has ended,
// nothing more is recorded, and the plugins, programs and commands it
// started end with it (on Linux: each runs in a process group of its own
// that ends when the process that started it dies; internal/procgroup).
func forceExit(code int) {
	os.Exit(code)
}

// interrupts turns the first interrupt into a graceful cancellation and
// ends the process at the second (and so the plugins, programs and
// commands it started, see forceExit), until done. A stack left by a
// forced exit is recoverable as after a kill -9: its lock names a process
// that no longer runs, which the next operation breaks, and the steps
// that were running are pending operations that the next operation warns
// of and a refresh resolves. What it says about steps in flight it says
// only while an operation changes the stack (changesStack): at a prompt or
// in a preview nothing is in flight.
func interrupts(sigs <-chan os.Signal, done <-chan struct{}, cancel context.CancelCauseFunc, stderr io.Writer, exit func(int)) {
	select {
	case <-sigs:
	case <-done:
		return
	}
	changing := changesStack(stderr)
	if changing {
		fmt.Fprintf(stderr, "\ninterrupted: no new step starts; the steps in flight have %v to finish and are recorded, "+
			"and one that does not finish stays pending until \"gw refresh\" resolves it; interrupt again to stop at once\n", engine.DefaultGracePeriod)
	} else {
		fmt.Fprintln(stderr, "\ninterrupted")
	}
	cancel(errInterrupted)
	select {
	case <-sigs:
	case <-done:
		return
	}
	if changing || changesStack(stderr) {
		fmt.Fprintln(stderr, "interrupted again: stopping now. The steps that were running stay recorded as pending operations: run \"gw refresh\" to resolve them")
	} else {
		fmt.Fprintln(stderr, "interrupted again: stopping now")
	}
	exit(exitInterrupted)
}

// run is the whole CLI: it returns the exit status. Errors are printed
// here, once, at the end: the operation's own error only if the display
// has not shown it already.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	inv := &invocation{stdin: stdin, stdout: stdout, stderr: stderr}
	root := rootCommand(inv)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	err = inCLIWords(err)
	if err.Error() != inv.shownError {
		fmt.Fprintln(stderr, "error:", err)
	}
	var ue *usageError
	if errors.As(err, &ue) {
		path := ue.path
		if path == "" && cmd != nil {
			path = cmd.CommandPath()
		}
		if path == "" {
			path = "gw"
		}
		fmt.Fprintf(stderr, "Run \"%s --help\" for usage.\n", path)
		return exitUsage
	}
	return exitError
}

// version is gw's version: that of the module it was built from ("go
// install .../cmd/gw@v1.2.3" gives v1.2.3), else "(devel)".
func version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}
