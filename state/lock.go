package state

import (
	"fmt"
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
	// ProcessSpace names the table of processes PID belongs to: on Linux
	// the kernel's boot and the PID namespace, so that a process in
	// another container that shares the host's name is never mistaken
	// for one of this host's. Empty where the system has no such notion.
	ProcessSpace string `json:"processSpace,omitempty"`
	// ProcessStart tells the holder from a later process that was given
	// the same PID: on Linux the time the process started, in clock ticks
	// since boot (field 22 of /proc/PID/stat; ProcessSpace names the
	// boot). A lock whose PID runs with another start time is stale.
	// Empty where the system gives no such mark, and in locks taken by
	// versions that did not record it: a process running with the PID of
	// such a lock cannot be told from its holder.
	ProcessStart string `json:"processStart,omitempty"`
}

// describe says who holds the lock: `process 42 on host "ci-7", running
// "update" since 2025-01-02T03:04:05Z (3m0s ago)`.
func (li LockInfo) describe() string {
	return fmt.Sprintf("process %d on host %q, running %q since %s (%s ago)", li.PID, li.Host, li.Operation,
		li.Time.Format(time.RFC3339), time.Since(li.Time).Round(time.Second))
}

// LockedError reports that a stack is locked by someone else.
type LockedError struct {
	Stack  StackID
	Holder LockInfo
	// Running is set when the holder is a process on this host that was
	// provably still running when the lock was found: its PID runs, with
	// the start time the lock records.
	Running bool
	// PIDInUse is set when the holder is not provably running but a
	// process on this host runs with its PID: the lock records no start
	// time to tell the two apart, so it is not broken as stale, but it is
	// no proof that its holder still runs either.
	PIDInUse bool
	// Remedy says how to remove the lock once its holder is known to be
	// gone: the store's WithUnlockHint, or by default the ForceUnlock
	// method.
	Remedy string
}

// Error names the holder and what to do.
func (e *LockedError) Error() string {
	h := e.Holder
	msg := fmt.Sprintf("stack %q is locked by %s", e.Stack, h.describe())
	remedy := e.Remedy
	if remedy == "" {
		remedy = defaultUnlockHint
	}
	switch {
	case e.Running:
		return msg + ": wait for it to finish, or stop it (its lock is then broken by the next operation)"
	case e.PIDInUse:
		return msg + fmt.Sprintf(": a process with that PID runs, but the lock does not record when its holder started, "+
			"so it may be another process that was given the same PID; wait for the operation to finish; if it is gone, %s", remedy)
	case !h.Expires.IsZero():
		return msg + fmt.Sprintf(", under a lease that lapses at %s unless renewed: wait for it to finish; "+
			"if it is gone, the next operation after that takes the lock over, or %s now", h.Expires.Format(time.RFC3339), remedy)
	}
	return msg + ": wait for it to finish; if it is gone, " + remedy
}

// StaleLock is a lock that Store.Lock found and broke because its holder
// was provably gone: a process on this host that no longer ran, or a
// lease that lapsed without being renewed.
type StaleLock struct {
	Stack  StackID
	Holder LockInfo
	// Lapsed is set for a lease that lapsed; otherwise the holder was a
	// process on this host that no longer ran.
	Lapsed bool
}

// String says whose lock was broken and why, for a warning.
func (s *StaleLock) String() string {
	if s.Lapsed {
		return fmt.Sprintf("took over the lock of stack %q from %s: its lease lapsed at %s without being renewed, so its holder is gone",
			s.Stack, s.Holder.describe(), s.Holder.Expires.Format(time.RFC3339))
	}
	return fmt.Sprintf("broke the lock of stack %q left by %s: that process no longer runs (its PID is free or belongs to a process started later)",
		s.Stack, s.Holder.describe())
}

// ReplacedLock is implemented by the Locks of stores that break a stale
// lock by themselves (the file and memory stores and those of backendstore
// do). Replaced returns the lock this one replaced, or nil: a host should
// warn of it, since the operation that held it was interrupted.
type ReplacedLock interface {
	Replaced() *StaleLock
}

// defaultUnlockHint is the way out a LockedError names when the store was
// given none (WithUnlockHint).
const defaultUnlockHint = "remove the lock with the store's ForceUnlock method"
