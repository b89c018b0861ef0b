package state

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"time"
)

// LockInfo says who holds a stack's lock.
type LockInfo struct {
	PID       int       `json:"pid"`
	Host      string    `json:"host"`
	Time      time.Time `json:"time"`
	Operation string    `json:"operation"`
	// Token tells this holder's lock from any later one, so Unlock never
	// removes a lock that was broken and taken again by someone else.
	Token string `json:"token"`
	// Expires is when the lock lapses unless its holder renews it, for
	// stores whose locks are leases (see Backend); zero for locks that
	// last until they are released or broken.
	Expires time.Time `json:"expires,omitzero"`
}

// LockedError reports that a stack is locked by someone else.
type LockedError struct {
	Stack  string
	Holder LockInfo
}

// Error names the holder and what to do.
func (e *LockedError) Error() string {
	h := e.Holder
	if !h.Expires.IsZero() {
		return fmt.Sprintf("state: stack %q is locked by process %d on host %q for %q since %s (%s ago), under a lease that lapses at %s unless renewed; "+
			"wait for it to finish, or if that process is gone, lock the stack again once the lease has lapsed",
			e.Stack, h.PID, h.Host, h.Operation, h.Time.Format(time.RFC3339), time.Since(h.Time).Round(time.Second), h.Expires.Format(time.RFC3339))
	}
	return fmt.Sprintf("state: stack %q is locked by process %d on host %q for %q since %s (%s ago); "+
		"wait for it to finish, or if that process is gone, break the lock (BreakLock)",
		e.Stack, h.PID, h.Host, h.Operation, h.Time.Format(time.RFC3339), time.Since(h.Time).Round(time.Second))
}

func newLockInfo(operation string, now time.Time) LockInfo {
	var tok [16]byte
	_, _ = rand.Read(tok[:])
	return LockInfo{PID: os.Getpid(), Host: hostname(), Time: now.UTC(), Operation: operation, Token: hex.EncodeToString(tok[:])}
}

func parseLockInfo(data []byte) (LockInfo, error) {
	var li LockInfo
	if err := json.Unmarshal(data, &li); err != nil {
		return li, fmt.Errorf("state: the lock record is malformed: %w", err)
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

// libraryVersion finds the groundwork module's version in the build
// information of the running program.
func libraryVersion() string {
	const path = "github.com/groundwork-iac/groundwork"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	if bi.Main.Path == path {
		return bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path == path {
			return d.Version
		}
	}
	return "(devel)"
}
