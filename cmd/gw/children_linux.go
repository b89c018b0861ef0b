package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// killChildren kills, at once, every process gw started that still runs,
// with everything they started: each plugin, program and command runs as
// the leader of a process group of its own, and that whole group gets
// SIGKILL (a child in gw's own group gets it alone). It is for a forced
// exit, which cannot wait for the engine to end them gracefully; without
// it they would outlive gw, since an interrupt at the terminal reaches only
// gw's group.
func killChildren() {
	self := os.Getpid()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, name := range stats {
		b, err := os.ReadFile(name)
		if err != nil {
			continue // gone since the listing
		}
		pid, ppid, pgrp, ok := parentAndGroup(string(b))
		if !ok || ppid != self {
			continue
		}
		if pgrp == pid {
			_ = syscall.Kill(-pgrp, syscall.SIGKILL)
		} else {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// parentAndGroup reads the process, its parent and its process group from
// the text of /proc/PID/stat: "PID (COMM) STATE PPID PGRP ...", where
// COMM may hold any character, so the fields are counted from the last
// ')'. Zombies and dead processes are skipped (ok is false).
func parentAndGroup(stat string) (pid, ppid, pgrp int, ok bool) {
	i := strings.LastIndexByte(stat, ')')
	j := strings.IndexByte(stat, ' ')
	if i < 0 || j < 0 || j > i {
		return 0, 0, 0, false
	}
	fields := strings.Fields(stat[i+1:])
	if len(fields) < 3 || fields[0] == "Z" || fields[0] == "X" {
		return 0, 0, 0, false
	}
	var errs [3]error
	pid, errs[0] = strconv.Atoi(stat[:j])
	ppid, errs[1] = strconv.Atoi(fields[1])
	pgrp, errs[2] = strconv.Atoi(fields[2])
	return pid, ppid, pgrp, errs[0] == nil && errs[1] == nil && errs[2] == nil
}
