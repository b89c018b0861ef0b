//go:build unix

package state

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this pid exists on this host.
// Signal 0 checks existence without delivering anything; EPERM means the
// process exists but belongs to someone else. A pid the system has reused
// for another process counts as alive — the safe side.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
