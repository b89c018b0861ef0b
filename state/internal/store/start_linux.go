package store

import (
	"bytes"
	"os"
	"strconv"
)

// processStart returns when process pid started, in clock ticks since
// boot: field 22 of /proc/PID/stat, "PID (COMM) STATE PPID ...", counted
// from the last ')' since COMM may hold any character. It returns "" if
// the process does not exist or its record cannot be read.
func processStart(pid int) string {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return ""
	}
	// After the ')' come fields 3 (STATE) onwards: field 22 is the 20th.
	fields := bytes.Fields(stat[i+1:])
	if len(fields) < 20 {
		return ""
	}
	if _, err := strconv.ParseUint(string(fields[19]), 10, 64); err != nil {
		return ""
	}
	return string(fields[19])
}
