//go:build unix

package procgroup

import (
	"context"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Run runs cmd as the leader of a process group of its own (it sets
// cmd.SysProcAttr.Setpgid) and waits for it, as cmd.Run does: it returns
// cmd.Wait's error, so cmd.WaitDelay bounds the wait for output that a
// process left behind holds open. cmd must have been made with
// exec.Command, not exec.CommandContext: Run watches ctx itself.
//
// While the leader runs, the group ends with the host as a Process's does
// (see "When the host dies" in the package doc): the leader has a
// parent-death signal and a watchdog shares its group. When ctx ends
// before Run returns, the whole group gets SIGTERM, and SIGKILL once grace
// has passed (zero or less means DefaultGrace); whatever of the group is
// left when the leader has exited gets SIGKILL then.
//
// The error says whether ctx stopped the leader: it is a *StoppedError
// if ctx ended before the leader started, or while it still ran and the
// leader then failed; the error of a leader that had exited before is
// cmd.Wait's own.
//
// Unlike a Process, Run leaves alone what the leader left running when it
// exited on its own, without ctx ending: a command may start a daemon on
// purpose. Such a process is no longer watched once Run returns.
func Run(ctx context.Context, cmd *exec.Cmd, grace time.Duration) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pgid = 0
	if grace <= 0 {
		grace = DefaultGrace
	}
	if ctx.Err() != nil {
		return &StoppedError{Err: context.Cause(ctx)}
	}
	// The leader's parent-death signal is tied to this thread: it is held
	// until the leader has been reaped.
	release := holdThread(cmd)
	defer release()
	if err := cmd.Start(); err != nil {
		return err
	}
	pgid := cmd.Process.Pid
	// The watchdog lives until the end: while it does, the group's ID
	// cannot be taken by another process, so the last SIGKILL below
	// cannot reach a stranger.
	dog := startWatchdog(pgid)
	defer dog.stop()

	exited := make(chan struct{})
	var (
		wg         sync.WaitGroup
		terminated bool // the group was sent SIGTERM; read after wg.Wait
		stopped    bool // ... while the leader still ran
	)
	wg.Go(func() {
		select {
		case <-exited:
			return
		case <-ctx.Done():
		}
		terminated = true
		stopped = !leaderExited(pgid)
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		escalate := time.NewTimer(grace)
		defer escalate.Stop()
		select {
		case <-exited:
		case <-escalate.C:
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
	})
	err := cmd.Wait()
	close(exited)
	wg.Wait()
	if terminated {
		// What of the group ignored SIGTERM dies now, with the watchdog.
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	if stopped && err != nil {
		return &StoppedError{Err: err}
	}
	return err
}
