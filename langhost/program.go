package langhost

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/internal/procgroup"
	"github.com/groundwork-iac/groundwork/monitor/grpcserver"
)

// Language says how a Program's Command is started.
type Language string

// The languages.
const (
	// Executable runs Command as it is: a built Pulumi Go program, "go run
	// .", or any command whose process speaks to PULUMI_MONITOR.
	Executable Language = ""
	// NodeJS runs a Node.js Pulumi program: Command is its entry module
	// ("." for the package.json entry point) and the program's own
	// arguments, and node runs it through the @pulumi/pulumi package's run
	// entry point.
	NodeJS Language = "nodejs"
)

// DefaultOrganization is the organization told to programs when
// Program.Organization is empty.
const DefaultOrganization = "organization"

// Program is a Pulumi SDK program that runs in its own process. Its Run
// method is an engine.Program:
//
//	prog := langhost.Command("go", "run", ".")
//	prog.Dir = "./infra"
//	res, err := eng.Up(ctx, prog.Run)
type Program struct {
	// Command is the program and its arguments (for NodeJS, the entry
	// module and its arguments). Required.
	Command  []string
	Language Language
	// Dir is the program's working directory; "" is this process's.
	Dir string
	// Env are extra "KEY=value" variables, added to this process's
	// environment; the variables the engine sets (PULUMI_*) win over them.
	Env []string
	// Organization is told to the program as PULUMI_ORGANIZATION
	// (DefaultOrganization when empty).
	Organization string
	// RootDirectory is the project's folder (where its Pulumi.yaml is),
	// told to the program as PULUMI_ROOT_DIRECTORY; "" is Dir.
	RootDirectory string
	// Node is the node binary NodeJS programs run with; "" finds node on
	// PATH.
	Node string
	// NoTypeScript runs a NodeJS program without ts-node, as the runtime
	// option "typescript: false" of a Pulumi.yaml does. By default, as
	// under Pulumi's Node.js language host, TypeScript modules are
	// compiled as they load: a program without a package.json main and
	// without index.js runs its index.ts. Without TypeScript the program
	// starts faster but must be JavaScript.
	NoTypeScript bool
	// GracePeriod is how long the program and what it started have to
	// exit after SIGTERM, when the operation is cancelled or when the
	// program has exited leaving processes behind, before they are killed
	// (default five seconds).
	GracePeriod time.Duration
	// ConfigCommand is how the host's users set a config value, such as
	// "mytool config set"; a program's error about a missing config value
	// names it where the Pulumi SDKs name "pulumi config set".
	ConfigCommand string
}

// Command returns a Program that runs name with args.
func Command(name string, args ...string) *Program {
	return &Program{Command: append([]string{name}, args...)}
}

// Node returns a Program that runs the Node.js program entry ("." for the
// entry point its package.json names) with args.
func Node(entry string, args ...string) *Program {
	return &Program{Command: append([]string{entry}, args...), Language: NodeJS}
}

// ProgramError reports a program that exited with a non-zero status.
type ProgramError struct {
	Command  []string
	ExitCode int
	// Stderr holds the last lines the program wrote to stderr, less a Go
	// crash report's goroutine trace.
	Stderr []string
	// Crash is the message of the Go panic (or fatal error) the program
	// crashed with, "" if it did not; its goroutine trace went to the
	// debug diagnostics.
	Crash string
	// Reported are the errors the program logged before it exited with
	// the status by which the Pulumi SDKs say the cause was logged (32),
	// cleaned of the SDK's wrapping and of gRPC status words. They are
	// the cause, and not repeated as diagnostics.
	Reported []string
}

// LoggedCauses returns the errors the program logged as the cause of its
// failure (Reported): the engine leaves out a failure whose causes are all
// step failures it reports itself.
func (e *ProgramError) LoggedCauses() []string { return e.Reported }

// Error gives the program's crash message if it crashed, the errors it
// reported if it logged its cause, or else its status and the end of its
// stderr.
func (e *ProgramError) Error() string {
	if e.Crash != "" {
		return e.Crash
	}
	if len(e.Reported) > 0 {
		return strings.Join(e.Reported, "\n")
	}
	msg := fmt.Sprintf("%q exited with status %d", strings.Join(e.Command, " "), e.ExitCode)
	if len(e.Stderr) > 0 {
		msg += ":\n  " + strings.Join(e.Stderr, "\n  ")
	}
	return msg
}

// Run runs the program against the deployment of c: it serves c's Monitor
// over gRPC on a loopback port (see Serve), starts the program with the
// environment the Pulumi SDKs read, streams what it prints to the event
// stream as diagnostics, and waits for it and for everything it started. A
// non-zero exit is a *ProgramError. When the operation is cancelled the
// program's process group gets SIGTERM, and SIGKILL after GracePeriod; so
// do the processes a program that exited left running. Either way the
// operation returns only once the group has ended and the program has been
// reaped.
func (p *Program) Run(c *engine.Context) error {
	if len(p.Command) == 0 {
		return errors.New("the program has no command")
	}
	return Serve(c, func(ctx context.Context, addr string) error { return p.run(ctx, c, addr) })
}

// Serve runs a Pulumi SDK program against the deployment of c: it serves
// c's Monitor, and the engine service the SDKs log through, over gRPC on a
// loopback port, calls run with the operation's context and that port's
// address (the SDKs' monitor and engine address alike), and returns run's
// error once run has returned and the server has stopped. run must return
// once its program has ended, and soon after ctx ends. The operation
// returns only once run has returned (Serve defers that wait with
// engine.Context.Defer, which the engine runs even when it stopped waiting
// for the program itself).
//
// The program registers the stack's root resource itself (the SDKs do, as
// "pulumi:pulumi:Stack"); that registration is answered with c's own root
// resource, and the outputs the program registers for it become the stack
// outputs. A program that asks to wait for shutdown (the SDKs do, to serve
// the hooks of the deletes that follow the program) ends Serve at once,
// and is let go, and waited for, once those deletes are done.
func Serve(c *engine.Context, run func(ctx context.Context, addr string) error) error {
	ctx := c.Context()
	root, err := c.Root().URN()
	if err != nil {
		return err
	}
	// The engine stops waiting for the program once the operation's
	// context ends, but not for what Serve defers: the operation returns
	// only once run has returned and the server is stopped, which takes at
	// most the grace period once the context has ended. Deferred before
	// the context is looked at, so that either the operation waits for
	// finished or nothing is started.
	finished := make(chan struct{})
	c.Defer(func() error {
		<-finished
		return nil
	})
	if err := ctx.Err(); err != nil {
		close(finished)
		return fmt.Errorf("the program was not started: %w", context.Cause(ctx))
	}
	sd := newShutdown()
	sm := &stackMonitor{Monitor: c.Monitor(), root: root, export: c.Export}
	held := &reported{}
	srv, err := grpcserver.Start(ctx, grpcserver.Config{
		Monitor: sm,
		Log: func(m grpcserver.LogMessage) {
			if m.Ephemeral || !held.hold(engine.Severity(m.Severity), string(m.URN), m.Message) {
				logMessage(c, m)
			}
		},
		Packages: c,
		Hooks:    contextHooks{c},
		Shutdown: sd.wait,
		// The program goes on past a failed resource only if the
		// operation does.
		ContinueOnError: c.ContinueOnError(),
	})
	if err != nil {
		close(finished)
		return err
	}
	// Plugins building remote components register their children through
	// this server too.
	c.Monitor().SetAddress(srv.Addr())
	var runErr error
	go func() {
		defer close(finished)
		err := run(ctx, srv.Addr())
		stopErr := srv.Stop() // no message is logged after this
		runErr = errors.Join(held.settle(c, err), stopErr)
	}()
	// The stack's previous outputs, kept if the program registers none.
	prev, _ := c.Root().Outputs()
	select {
	case <-finished:
		sm.keepOutputs(prev)
		return runErr
	case <-sd.signalled:
		sm.keepOutputs(prev)
		// The program has finished registering and waits to serve the
		// hooks of the deletes that follow: it is let go, and waited
		// for, once they are done.
		c.Defer(func() error {
			sd.release()
			<-finished
			return runErr
		})
		return nil
	}
}

// run starts the process and waits for it.
func (p *Program) run(ctx context.Context, c *engine.Context, addr string) error {
	env, err := environment(c, p, addr)
	if err != nil {
		return err
	}
	argv, cleanup, err := p.argv(ctx, c, addr)
	if err != nil {
		return err
	}
	defer cleanup()
	// Every line is masked as it is read, so that neither what is logged
	// nor what a ProgramError quotes holds a secret the operation knows.
	stdout := newLineWriter(func(line string) { c.Log(engine.SeverityInfo, "", c.Mask(line)) }, 0)
	errLines := newLineWriter(func(line string) { c.Log(engine.SeverityInfo, "", line) }, stderrTail)
	crash := &crashFilter{
		info:  errLines.writeLine,
		debug: func(line string) { c.Log(engine.SeverityDebug, "", line) },
	}
	stderr := newLineWriter(func(line string) { crash.line(c.Mask(line)) }, 0)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = p.Dir, env, stdout, stderr
	grace := p.GracePeriod
	if grace <= 0 {
		grace = procgroup.DefaultGrace
	}
	// Output still open once the program's group has ended (a daemon it
	// started holds it) is closed after the grace period.
	cmd.WaitDelay = grace
	group, err := procgroup.Start(cmd, grace)
	if err != nil {
		return fmt.Errorf("starting the program %q: %w", strings.Join(argv, " "), err)
	}
	select {
	case <-group.Done():
	case <-ctx.Done():
		group.Stop(context.WithoutCancel(ctx))
	}
	err = group.Wait()
	stdout.flush()
	stderr.flush()
	crash.release()
	errLines.flush()
	if ctx.Err() != nil {
		return fmt.Errorf("the program was stopped: %w", context.Cause(ctx))
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return &ProgramError{Command: p.Command, ExitCode: exit.ExitCode(), Stderr: errLines.tail(),
			Crash: withConfigCommand(crash.crash(), p.ConfigCommand)}
	}
	if err != nil {
		return fmt.Errorf("running the program %q: %w", strings.Join(p.Command, " "), err)
	}
	return nil
}

// argv returns the command line that starts the program, and a function
// that removes what was prepared for it, to be called once it has ended.
func (p *Program) argv(ctx context.Context, c *engine.Context, addr string) ([]string, func(), error) {
	switch p.Language {
	case Executable:
		return p.Command, func() {}, nil
	case NodeJS:
		return p.nodeArgv(ctx, c, addr)
	}
	return nil, nil, fmt.Errorf("unknown program language %q (use Executable or NodeJS)", p.Language)
}

// logMessage passes a message the program logged on to the event stream.
// Ephemeral status messages are kept as debug diagnostics.
func logMessage(c *engine.Context, m grpcserver.LogMessage) {
	sev := engine.Severity(m.Severity)
	if m.Ephemeral {
		sev = engine.SeverityDebug
	}
	c.Log(sev, m.URN, m.Message)
}
