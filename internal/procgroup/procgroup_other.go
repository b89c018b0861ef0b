//go:build unix && !linux

package procgroup

import "os/exec"

// awaitExit reaps the leader: without waitid's WNOWAIT it cannot wait
// for the exit without reaping.
func awaitExit(cmd *exec.Cmd) (reaped bool, err error) {
	return true, cmd.Wait()
}

// leaderExited reports false: without waitid's WNOWAIT the leader's exit
// cannot be seen without reaping it.
func leaderExited(int) bool { return false }

// groupAlive reports whether any process of group pgid exists (there is
// never a watchdog to leave out).
func groupAlive(pgid, _ int) bool { return killZero(pgid) }

// holdThread does nothing: there is no parent-death signal to tie to a
// thread.
func holdThread(*exec.Cmd) (release func()) { return func() {} }

// watchdog is never started (see the package doc).
type watchdog struct{}

func startWatchdog(int) *watchdog { return nil }

func (*watchdog) pid() int { return 0 }

func (*watchdog) stop() {}
