//go:build unix

package store

import (
	"errors"
	"os"
	"strings"
	"sync"
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

// processSpace names this process's table of processes: on Linux the
// kernel's boot id and the PID namespace ("<boot>/pid:[4026531836]"), so
// that containers sharing a host name, or the same host after a reboot,
// are told apart. Elsewhere it is empty: the host name says it all.
var processSpace = sync.OnceValue(func() string {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(boot)) + "/" + ns
})
