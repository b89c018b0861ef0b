//go:build unix && !linux

package procgroup

import "os/exec"

// awaitExit reaps the leader: without waitid's WNOWAIT it cannot wait
// for the exit without reaping.
func awaitExit(cmd *exec.Cmd) (reaped bool, err error) {
	return true, cmd.Wait()
}

// groupAlive reports whether any process of group pgid exists.
func groupAlive(pgid int) bool { return killZero(pgid) }
