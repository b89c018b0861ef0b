//go:build unix

package procgroup

import (
	"context"
	"errors"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// pollInterval is how often the group is looked at while waiting for it
// to end.
const pollInterval = 10 * time.Millisecond

// killWait bounds how long a Process waits for its group to vanish after
// SIGKILL (a process in uninterruptible sleep dies only when it wakes).
const killWait = 2 * time.Second

// Process is a command running as the leader of a process group of its
// own. A goroutine started by Start watches it; it ends when Done is
// closed. The methods are safe for concurrent use.
type Process struct {
	cmd   *exec.Cmd
	pgid  int
	grace time.Duration
	dog   *watchdog // nil without one

	exited chan struct{} // the leader has exited
	done   chan struct{} // the leader is reaped and its group has ended
	err    error         // how the leader ended (cmd.Wait); set before done is closed

	mu     sync.Mutex
	termAt time.Time     // when the group was sent SIGTERM; zero before
	kill   chan struct{} // closed when the group is to be killed at once
	killed bool          // kill is closed
	ended  bool          // the group is gone: signal nothing more
}

// Start starts cmd as the leader of a new process group (it sets
// cmd.SysProcAttr.Setpgid) and watches it. grace is how long the group has
// to exit after SIGTERM before it gets SIGKILL; zero or less means
// DefaultGrace. The caller must not call cmd.Wait: the Process does.
func Start(cmd *exec.Cmd, grace time.Duration) (*Process, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pgid = 0
	if grace <= 0 {
		grace = DefaultGrace
	}
	p := &Process{
		cmd: cmd, grace: grace,
		exited: make(chan struct{}), done: make(chan struct{}), kill: make(chan struct{}),
	}
	// The goroutine that starts the leader is the one that watches it:
	// where the leader's parent-death signal is tied to the starting
	// thread, it holds that thread until the leader is reaped.
	started := make(chan error, 1)
	go func() {
		release := holdThread(cmd)
		defer release()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		p.pgid = cmd.Process.Pid
		p.dog = startWatchdog(p.pgid)
		started <- nil
		p.watch()
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

// Pid returns the leader's process ID, which is also the group's ID.
func (p *Process) Pid() int { return p.pgid }

// Exited is closed when the leader has exited, possibly before the rest of
// its group has ended (see Done).
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Done is closed when the leader has been reaped and nothing of its group
// runs any more.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err returns how the leader ended, as exec.Cmd.Wait reports it (nil for
// a zero exit status). It is valid once Done is closed.
func (p *Process) Err() error {
	<-p.done
	return p.err
}

// Wait waits for Done and returns Err.
func (p *Process) Wait() error { return p.Err() }

// Stop ends the group: SIGTERM to every member, then SIGKILL once the
// grace period since the first SIGTERM has passed or ctx has ended,
// whichever comes first. It returns when Done is closed.
func (p *Process) Stop(ctx context.Context) {
	termAt := p.terminate()
	timer := time.NewTimer(time.Until(termAt.Add(p.grace)))
	defer timer.Stop()
	select {
	case <-p.done:
		return
	case <-timer.C:
	case <-ctx.Done():
	}
	p.Kill()
}

// Kill sends SIGKILL to the group and returns when Done is closed.
func (p *Process) Kill() {
	p.mu.Lock()
	if !p.killed {
		p.killed = true
		close(p.kill)
	}
	p.mu.Unlock()
	p.signal(syscall.SIGKILL)
	<-p.done
}

// terminate sends SIGTERM to the group the first time it is called and
// returns when that was.
func (p *Process) terminate() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.termAt.IsZero() {
		p.termAt = time.Now()
		p.signalLocked(syscall.SIGTERM)
	}
	return p.termAt
}

func (p *Process) signal(sig syscall.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.signalLocked(sig)
}

// signalLocked signals every member of the group, unless the group is
// known to be gone. ESRCH (no member left) is no error.
func (p *Process) signalLocked(sig syscall.Signal) {
	if !p.ended {
		_ = syscall.Kill(-p.pgid, sig)
	}
}

// watch waits for the leader to exit, ends what is left of its group,
// reaps the leader and closes done.
func (p *Process) watch() {
	reaped, err := awaitExit(p.cmd)
	close(p.exited)
	p.endGroup()
	p.dog.stop()
	p.mu.Lock()
	p.ended = true
	p.mu.Unlock()
	if !reaped {
		err = p.cmd.Wait()
	}
	p.err = err
	close(p.done)
}

// endGroup waits for the members the leader left to exit: it sends them
// SIGTERM (unless Stop has), and SIGKILL when the grace period since
// then has passed or Kill is called.
func (p *Process) endGroup() {
	if !p.groupAlive() {
		return
	}
	termAt := p.terminate()
	deadline := time.NewTimer(time.Until(termAt.Add(p.grace)))
	defer deadline.Stop()
	if p.waitGone(deadline.C, p.kill) {
		return
	}
	p.signal(syscall.SIGKILL)
	p.waitGone(time.After(killWait), nil)
}

// groupAlive reports whether a member of the group other than the
// watchdog runs.
func (p *Process) groupAlive() bool { return groupAlive(p.pgid, p.dog.pid()) }

// waitGone polls until no member of the group but the watchdog runs
// (true), or until either channel delivers (false).
func (p *Process) waitGone(a <-chan time.Time, b <-chan struct{}) bool {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for p.groupAlive() {
		select {
		case <-tick.C:
		case <-a:
			return false
		case <-b:
			return false
		}
	}
	return true
}

// killZero reports whether group pgid has a member, zombies included,
// by sending it signal 0.
func killZero(pgid int) bool {
	err := syscall.Kill(-pgid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
