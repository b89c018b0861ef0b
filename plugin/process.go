package plugin

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/groundwork-iac/groundwork/internal/procgroup"
	"github.com/groundwork-iac/groundwork/resource"
)

// ExitError reports a plugin process that exited on its own (crashed,
// failed to start, or exited before printing its port). Calls in flight
// when it exited, and every call after, fail with it.
type ExitError struct {
	Plugin string
	Path   string
	// Err is how it ended: an *exec.ExitError, or why it could not start.
	Err error
	// Stderr holds the last lines the plugin wrote to stderr.
	Stderr []string
}

// Error names the plugin and how it ended, and quotes the end of its
// stderr.
func (e *ExitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "plugin %s (%s) exited unexpectedly: %v", e.Plugin, e.Path, e.Err)
	if len(e.Stderr) == 0 {
		b.WriteString("; it wrote nothing to stderr")
		return b.String()
	}
	b.WriteString("; the last lines it wrote to stderr:")
	for _, l := range e.Stderr {
		b.WriteString("\n    " + l)
	}
	return b.String()
}

// Unwrap returns how the process ended.
func (e *ExitError) Unwrap() error { return e.Err }

// process is a running plugin binary, the leader of a process group of
// its own (see package internal/procgroup), and the goroutines that watch
// it: one reader each for stdout and stderr, and a waiter that waits for
// the group to end. All three end once the group has ended and the
// output is drained; done is closed then.
type process struct {
	name, path string
	group      *procgroup.Process
	out        output

	// lifetime ends when the plugin itself has exited (what it started
	// may still be ending).
	lifetime context.Context
	done     chan struct{}
	exitErr  error // how it exited; set before done is closed

	stopMu   sync.Mutex
	stopping bool // we asked it to stop, so its exit is expected
}

// errExited is the cause of an RPC context cancelled because the plugin
// process died.
var errExited = errors.New("the plugin process exited")

// start launches the plugin and waits until it prints its port. The process
// outlives ctx, which bounds only the start.
func start(ctx context.Context, name, path string, opts Options) (*process, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, fmt.Errorf("start plugin %s: %w", name, context.Cause(ctx))
	}
	env, err := opts.environment(name)
	if err != nil {
		return nil, 0, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, 0, fmt.Errorf("start plugin %s: %w", name, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, 0, fmt.Errorf("start plugin %s: %w", name, err)
	}
	args := append([]string(nil), opts.Args...)
	if opts.EngineAddress != "" {
		args = append(args, opts.EngineAddress)
	}
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = outW, errW
	cmd.Env, cmd.Dir = env, opts.Dir
	group, err := procgroup.Start(cmd, opts.GracePeriod)
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, 0, &ExitError{Plugin: name, Path: path, Err: err}
	}
	lifetime, exited := context.WithCancel(context.Background())
	p := &process{name: name, path: path, group: group, lifetime: lifetime, done: make(chan struct{}), out: output{diag: opts.Diagnostics}}
	ports := make(chan int, 1)
	var readers sync.WaitGroup
	readers.Go(func() { p.readStdout(outR, ports, opts.Secrets) })
	readers.Go(func() { p.readStderr(errR, opts.Secrets) })
	go p.wait(&readers, exited, outR, errR)

	timeout := startTimeout(opts)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case port := <-ports:
		return p, port, nil
	case <-p.done:
		p.out.fail(true)
		return nil, 0, p.exitError()
	case <-ctx.Done():
		p.kill()
		p.out.fail(false)
		return nil, 0, fmt.Errorf("start plugin %s: %w", name, context.Cause(ctx))
	case <-timer.C:
	}
	p.kill()
	p.out.fail(true)
	return nil, 0, fmt.Errorf("start plugin %s (%s): it did not print its port within %v%s", name, path, timeout, p.quoteTail())
}

// startTimeout returns Options.StartTimeout or its default.
func startTimeout(opts Options) time.Duration {
	if opts.StartTimeout <= 0 {
		return time.Minute
	}
	return opts.StartTimeout
}

// readLines calls f with each line of r until r ends.
func readLines(r io.Reader, f func(string)) {
	br := bufio.NewReaderSize(r, 64*1024)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			f(strings.TrimRight(line, "\r\n"))
		}
		if err != nil {
			return
		}
	}
}

// readStdout reads the plugin's port: the first stdout line that is a port
// number. Lines before it, and everything after, are diagnostics.
func (p *process) readStdout(r io.Reader, ports chan<- int, secrets *resource.SecretFilter) {
	found := false
	readLines(r, func(line string) {
		if !found {
			if port, err := strconv.Atoi(strings.TrimSpace(line)); err == nil && port > 0 && port < 65536 {
				found = true
				ports <- port
				return
			}
		}
		p.out.stdout(secrets.Mask(line))
	})
}

func (p *process) readStderr(r io.Reader, secrets *resource.SecretFilter) {
	readLines(r, func(line string) { p.out.stderr(secrets.Mask(line)) })
}

// drainTimeout bounds how long the waiter waits for a plugin's output to
// end after the plugin exited (a child it left behind may hold its pipes).
const drainTimeout = 2 * time.Second

// wait waits for the plugin to exit (ending its lifetime), then for its
// process group to end and its output to be drained, and marks it done.
func (p *process) wait(readers *sync.WaitGroup, exited context.CancelFunc, pipes ...*os.File) {
	<-p.group.Exited()
	exited()
	err := p.group.Wait()
	drained := make(chan struct{})
	go func() { readers.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(drainTimeout):
		for _, f := range pipes {
			f.Close() // unblocks the readers
		}
		<-drained
	}
	for _, f := range pipes {
		f.Close()
	}
	if err == nil {
		err = errors.New("exit status 0")
	}
	p.exitErr = err
	close(p.done)
}

// exited returns the plugin's ExitError if it has exited on its own, nil
// while it runs or if it was asked to stop.
func (p *process) exited() *ExitError {
	select {
	case <-p.done:
	default:
		return nil
	}
	p.stopMu.Lock()
	defer p.stopMu.Unlock()
	if p.stopping {
		return nil
	}
	return p.exitError()
}

func (p *process) exitError() *ExitError {
	return &ExitError{Plugin: p.name, Path: p.path, Err: p.exitErr, Stderr: p.out.lastLines()}
}

func (p *process) quoteTail() string {
	lines := p.out.lastLines()
	if len(lines) == 0 {
		return ""
	}
	return "; the last lines it wrote to stderr:\n    " + strings.Join(lines, "\n    ")
}

// stop asks the plugin and everything it started to exit (SIGTERM to its
// process group), and kills them if they have not exited after the grace
// period or when ctx ends. It returns once they are gone and the
// goroutines watching the plugin have ended.
func (p *process) stop(ctx context.Context) {
	p.expectExit()
	p.group.Stop(ctx)
	<-p.done
}

// kill kills the plugin's process group and waits for the goroutines
// watching the plugin to end.
func (p *process) kill() {
	p.expectExit()
	p.group.Kill()
	<-p.done
}

func (p *process) expectExit() {
	p.stopMu.Lock()
	p.stopping = true
	p.stopMu.Unlock()
}
