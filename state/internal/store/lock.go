package store

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/groundwork-iac/groundwork/state"
)

// local reports whether li's holder is a process this one can check:
// same host, same table of processes.
func local(li state.LockInfo) bool {
	return li.Host == hostname() && li.ProcessSpace == processSpace()
}

// gone reports whether li's holder is provably gone: a process this one
// can check that no longer runs.
func gone(li state.LockInfo) bool { return local(li) && !processAlive(li.PID) }

func newLockInfo(operation string, now time.Time) state.LockInfo {
	var tok [16]byte
	_, _ = rand.Read(tok[:])
	return state.LockInfo{PID: os.Getpid(), Host: hostname(), Time: now.UTC(), Operation: operation, Token: hex.EncodeToString(tok[:]),
		ProcessSpace: processSpace()}
}

func parseLockInfo(data []byte) (state.LockInfo, error) {
	var li state.LockInfo
	if err := json.Unmarshal(data, &li); err != nil {
		return li, fmt.Errorf("the lock record is malformed: %w", err)
	}
	return li, nil
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown"
	}
	return h
}
