//go:build !linux

package store

// processStart returns "": this system's start times are not read, so a
// lock's PID reused by another process keeps it standing (see
// state.LockInfo.ProcessStart).
func processStart(int) string { return "" }
