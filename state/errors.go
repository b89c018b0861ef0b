package state

import (
	"errors"
	"fmt"
)

// FormatVersionError reports a file written in a format newer than this
// library reads.
type FormatVersionError struct {
	What      string // "snapshot" or "journal"
	Found     int
	Supported int
}

// Error says which format was found and which is supported.
func (e *FormatVersionError) Error() string {
	return fmt.Sprintf("the %s is in format version %d, but this library reads versions up to %d; "+
		"upgrade groundwork to read it (it was not modified)", e.What, e.Found, e.Supported)
}

// AuthenticationError reports a snapshot or journal record that is not as
// a store wrote it: its MAC (keyed by the stack's secrets manager) or, for
// a stack without a secrets manager, its checksum does not match, or it
// carries none where the store requires one. Load refuses the stack
// before it writes anything; the files are left as they are.
type AuthenticationError struct {
	// Stack is the stack whose file failed.
	Stack StackID
	// File is "snapshot" or "journal".
	File string
	// Offset is the byte offset of the journal record that failed (File
	// "journal").
	Offset int64
	// Missing is set when the file carries no MAC the store accepts, as
	// opposed to one that does not match.
	Missing bool
	// Reason says what is wrong, following "the snapshot" or "the journal
	// record at byte N".
	Reason string
	// Restore says where the store keeps the snapshot its last write
	// replaced and how to put it back ("" when it keeps none).
	Restore string
}

// Error names the stack and the file, says what is wrong and what to do.
func (e *AuthenticationError) Error() string {
	where := "the snapshot"
	if e.File == "journal" {
		where = fmt.Sprintf("the journal record at byte %d", e.Offset)
	}
	msg := fmt.Sprintf("stack %q: %s %s; it was left untouched", e.Stack, where, e.Reason)
	switch {
	case e.File == "journal":
		return msg + " — restore the journal from a backup, or move it aside to fall back to the last snapshot"
	case e.Missing:
		return msg + ". If an older groundwork or a store without a secrets manager wrote it, and you trust the file, " +
			"load it once through a store opened with state.WithUnauthenticatedSnapshots(); the next write authenticates it"
	}
	if e.Restore != "" {
		return msg + " — restore it from a backup (" + e.Restore + ")"
	}
	return msg + " — restore it from a backup"
}

// CorruptJournalError reports damage in the middle of a journal: a record
// whose checksum fails while more data follows it. Unlike a torn last
// record (which a crash during a write leaves, and which is ignored), this
// means the file was damaged after it was written; the journal is not
// replayed, and nothing is written over it.
type CorruptJournalError struct {
	Offset int64
	Reason string
}

// Error says where the journal is damaged.
func (e *CorruptJournalError) Error() string {
	return fmt.Sprintf("the journal is damaged at byte %d (%s); it was left untouched — "+
		"restore it from a backup, or move it aside to fall back to the last snapshot", e.Offset, e.Reason)
}

// ErrNoSecretsManager is returned when a secret value must be written or
// read but the store was given no secrets provider (see WithSecrets).
var ErrNoSecretsManager = errors.New("a secret value needs a secrets manager, but the store has no secrets provider (see WithSecrets)")

// JournalMismatchError reports a stack whose journal cannot be trusted
// against its snapshot: the stack has a journal but no snapshot (the
// snapshot was removed; a crash never leaves this), or the journal was
// written after a snapshot other than the stored one (the snapshot was
// edited or replaced since: even a changed final newline counts). Replaying
// the journal on another snapshot could record the wrong resources, and
// ignoring it would forget what it records, so Load refuses the stack
// before it writes anything; both are left as they are.
type JournalMismatchError struct {
	// Stack is the stack refused.
	Stack StackID
	// NoSnapshot is set when the stack has a journal and no snapshot.
	NoSnapshot bool
	// Restore says where the store keeps the snapshot its last write
	// replaced and how to put it back ("" when it keeps none).
	Restore string
}

// Error says what is wrong with the stack and what to do.
func (e *JournalMismatchError) Error() string {
	if e.NoSnapshot {
		restore := ""
		if e.Restore != "" {
			restore = " (" + e.Restore + ")"
		}
		return fmt.Sprintf("stack %q has a journal but no snapshot: the snapshot was removed (a crash never leaves this), "+
			"and the journal alone cannot rebuild the stack; nothing was loaded or changed — put the snapshot back%s. "+
			"Only to forget the stack's resources (they stay in the cloud), remove the journal too", e.Stack, restore)
	}
	return fmt.Sprintf("stack %q: its journal follows another snapshot than the stored one, which was changed or "+
		"replaced after the journal was written (a changed final newline is enough); nothing was loaded or changed — "+
		"undo the change to the snapshot. Only to keep the stored snapshot and forget what the journal records "+
		"(resources the interrupted operation created or deleted), move the journal aside, then refresh the stack", e.Stack)
}
