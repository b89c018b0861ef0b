//go:build unix

// Package procgroup runs a child process as the leader of a process group
// of its own, so that the child and everything it starts end together.
//
// Plugins and programs start children of their own: a shell script that
// runs node, a node process that forks workers, "go run" that runs the
// program it built. Signalling the child alone leaves those running, and
// they outlive the engine. A Process signals its whole group instead:
//
//   - Stop sends SIGTERM to the group, and SIGKILL once the grace period
//     has passed (or its context ended) with anything of the group left.
//   - When the leader exits on its own, what it left running in its group
//     gets the same: SIGTERM, then SIGKILL after the grace period.
//
// Run is for a command that is run to its end rather than kept running
// (the built-in command provider's): it waits for the leader as
// exec.Cmd.Run does, ends the group when its context ends, and leaves
// alone what the leader left running when it exited on its own (a daemon
// started on purpose). While the leader runs, its group ends with the
// host just as a Process's does.
//
// Done is closed only when the leader has been reaped and no other member
// of its group runs. On Linux the leader is left unreaped (a zombie) until
// then, so that the group's ID, which is the leader's process ID, cannot
// be taken by an unrelated process while the group is being signalled; on
// other systems the leader is reaped first, with that small risk.
//
// # When the host dies
//
// A host killed with SIGKILL (or by the OOM killer) ends nothing itself.
// On Linux the group ends all the same:
//
//   - The leader gets SIGKILL as its parent-death signal
//     (PR_SET_PDEATHSIG). Linux sends it when the thread that started the
//     leader exits, not the process: Start therefore starts the leader
//     from a goroutine locked to its OS thread, which keeps the thread
//     until the leader has been reaped.
//   - The leader's children and grandchildren (node's workers, the binary
//     "go run" built) get no such signal. A watchdog does it for them: a
//     /bin/sh process in the group whose standard input is a pipe that
//     only the host holds open. When the host dies, the pipe reaches its
//     end and the watchdog sends SIGKILL to the whole group, itself
//     included. It ignores SIGTERM, SIGINT and SIGHUP, so that stopping
//     the group gracefully does not take it first; the Process ends it
//     once the rest of the group has ended, and does not count it as a
//     member that runs. Without /bin/sh there is no watchdog, and only
//     the leader ends with the host.
//
// On other systems nothing ends a group whose host was killed: what the
// host started runs on, unless it notices on its own (a plugin whose
// connection to the engine breaks, for instance).
//
// A child that moves itself out of the group (a daemon calling setsid)
// escapes; only a container or cgroup can follow it.
package procgroup

import (
	"context"
	"errors"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// DefaultGrace is the grace period of a Process started with none.
const DefaultGrace = 5 * time.Second

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
