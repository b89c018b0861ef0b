//go:build !unix

package procgroup

import (
	"context"
	"os/exec"
	"sync"
	"time"
)

// Process is a command running as the leader of what would be its process
// group; without process groups it stands for the leader alone (see the
// package doc). A goroutine started by Start watches it; it ends when Done
// is closed. The methods are safe for concurrent use.
type Process struct {
	cmd  *exec.Cmd
	done chan struct{} // the leader has exited and been reaped
	err  error         // how the leader ended (cmd.Wait); set before done is closed
	kill sync.Once
}

// Start starts cmd and watches it. grace is not used: nothing can ask the
// leader to exit gracefully. The caller must not call cmd.Wait: the
// Process does.
func Start(cmd *exec.Cmd, grace time.Duration) (*Process, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Pid returns the leader's process ID.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited is closed when the leader has exited; it is Done.
func (p *Process) Exited() <-chan struct{} { return p.done }

// Done is closed when the leader has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err returns how the leader ended, as exec.Cmd.Wait reports it (nil for
// a zero exit status). It is valid once Done is closed.
func (p *Process) Err() error {
	<-p.done
	return p.err
}

// Wait waits for Done and returns Err.
func (p *Process) Wait() error { return p.Err() }

// Stop ends the leader at once (there is no signal to ask it to exit) and
// returns when Done is closed.
func (p *Process) Stop(context.Context) { p.Kill() }

// Kill ends the leader and returns when Done is closed.
func (p *Process) Kill() {
	p.kill.Do(func() { _ = p.cmd.Process.Kill() })
	<-p.done
}

// Run runs cmd and waits for it, as cmd.Run does; when ctx ends before the
// leader has exited, the leader is ended at once (grace is not used) and
// the error is a *StoppedError. cmd must have been made with exec.Command,
// not exec.CommandContext: Run watches ctx itself.
func Run(ctx context.Context, cmd *exec.Cmd, grace time.Duration) error {
	if ctx.Err() != nil {
		return &StoppedError{Err: context.Cause(ctx)}
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	var (
		wg      sync.WaitGroup
		stopped bool // read after wg.Wait
	)
	wg.Go(func() {
		select {
		case <-exited:
		case <-ctx.Done():
			stopped = true
			_ = cmd.Process.Kill()
		}
	})
	err := cmd.Wait()
	close(exited)
	wg.Wait()
	if stopped && err != nil {
		return &StoppedError{Err: err}
	}
	return err
}
