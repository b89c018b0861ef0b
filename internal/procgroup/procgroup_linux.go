package procgroup

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// awaitExit blocks until the leader has exited, leaving it unreaped (see
// the package doc): the Process reaps it with cmd.Wait once its group has
// ended.
func awaitExit(cmd *exec.Cmd) (reaped bool, err error) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, syscall.EINTR) {
			// Any other error (there is none for a child of ours) leaves
			// cmd.Wait to report it.
			return false, nil
		}
	}
}

// leaderExited reports whether the leader pid has exited: it is a
// zombie, or cmd.Wait has reaped it (the watchdog keeps its group, so its
// pid cannot have been taken by another process).
func leaderExited(pid int) bool {
	for {
		var info unix.Siginfo // Signo stays 0 if no child has exited
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT|unix.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.ECHILD):
			return true
		case err != nil:
			return false
		}
		return info.Signo == int32(syscall.SIGCHLD)
	}
}

// groupAlive reports whether a process of group pgid other than except
// is running: one that is neither a zombie nor dead. Zombies count for
// nothing (one whose parent is gone may never be reaped where PID 1 does
// not reap orphans).
func groupAlive(pgid, except int) bool {
	dir, err := os.Open("/proc")
	if err != nil {
		return killZero(pgid)
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return killZero(pgid)
	}
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		if name == strconv.Itoa(except) {
			continue
		}
		stat, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // gone since the listing
		}
		if state, group, ok := parseStat(stat); ok && group == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// parseStat reads the state and the process group from /proc/PID/stat:
// "PID (COMM) STATE PPID PGRP ...", where COMM may hold any character, so
// the fields are counted from the last ')'.
func parseStat(stat []byte) (state byte, pgrp int, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	fields := bytes.Fields(stat[i+1:])
	if len(fields) < 3 || len(fields[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err := strconv.Atoi(string(fields[2]))
	if err != nil {
		return 0, 0, false
	}
	return fields[0][0], pgrp, true
}
