package procgroup

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// holdThread makes cmd's process get SIGKILL when the thread that starts
// it exits, and locks the calling goroutine to its thread so that the
// thread lives until release is called (see the package doc). Without
// the lock, the goroutine could start the leader on a thread that a
// goroutine locked later ends with itself.
func holdThread(cmd *exec.Cmd) (release func()) {
	runtime.LockOSThread()
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	return runtime.UnlockOSThread
}

// watchdogShell is the watchdog's shell and watchdogScript its script:
// ignore the signals a graceful stop or a closing terminal sends, wait
// for standard input to end (the host is gone, or ended the watchdog),
// then kill the whole process group.
const (
	watchdogShell  = "/bin/sh"
	watchdogScript = "trap '' HUP INT TERM; read -r _; kill -9 0"
)

// watchdog is the process that ends a group whose host died (see the
// package doc). The host holds the write end of its standard input.
type watchdog struct {
	cmd   *exec.Cmd
	alarm *os.File
}

// startWatchdog starts a watchdog in group pgid. It returns nil if none
// can be started: the group then ends with the host only as far as the
// leader's parent-death signal goes.
func startWatchdog(pgid int) *watchdog {
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	cmd := exec.Command(watchdogShell, "-c", watchdogScript)
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return nil
	}
	return &watchdog{cmd: cmd, alarm: w}
}

// pid returns the watchdog's process ID, 0 for none.
func (d *watchdog) pid() int {
	if d == nil {
		return 0
	}
	return d.cmd.Process.Pid
}

// stop kills the watchdog, without its group, and reaps it. The write end
// of its input is closed only then: closed first, it would kill the group.
func (d *watchdog) stop() {
	if d == nil {
		return
	}
	_ = d.cmd.Process.Kill()
	_ = d.cmd.Wait()
	d.alarm.Close()
}
