package state

import (
	"fmt"

	"github.com/groundwork-iac/groundwork/resource"
)

// EntryKind says what a journal Entry records.
type EntryKind uint8

// The kinds of journal entry.
const (
	// EntryBegin records that a step is about to act on a resource: it
	// adds the pending operation {New if set, else Old; Op}. It must be
	// durable before the provider is called.
	EntryBegin EntryKind = iota + 1
	// EntrySuccess ends the step that began at Begin: it clears that
	// pending operation, removes Old (if set) and the records listed in
	// With, and records New (if set).
	EntrySuccess
	// EntryFailure ends the step that began at Begin without changing
	// any resource: it only clears the pending operation. A step that
	// failed but left a partial resource behind ends with EntrySuccess
	// whose New carries InitErrors instead.
	EntryFailure
	// EntryWrite changes resources at once, with no step around it: it
	// applies Old→New like EntrySuccess (for instance a component's new
	// outputs). It removes the records listed in With, and condemns Old
	// (see Entry.Condemn), as EntrySuccess does.
	EntryWrite
	// EntryClearPending drops a pending operation inherited from an
	// earlier run that crashed: the first inherited operation of kind Op
	// on the URN of Old (or New).
	EntryClearPending
)

var entryKindNames = [...]string{"", "begin", "success", "failure", "write", "clear-pending"}

// String names the kind as the journal format spells it.
func (k EntryKind) String() string {
	if int(k) < len(entryKindNames) && k != 0 {
		return entryKindNames[k]
	}
	return fmt.Sprintf("entry-kind(%d)", uint8(k))
}

// ParseEntryKind returns the kind the journal format spells s.
func ParseEntryKind(s string) (EntryKind, bool) {
	for i, n := range entryKindNames {
		if i > 0 && n == s {
			return EntryKind(i), true
		}
	}
	return 0, false
}

// Entry is one record of the journal. See Journal for how entries fold into
// a snapshot.
type Entry struct {
	Kind EntryKind
	// Seq is the entry's position in the stack's history, assigned by
	// Journal.Append; it is ignored on input.
	Seq uint64
	// Begin is, for EntrySuccess and EntryFailure, the Seq that
	// Journal.Append returned for the step's EntryBegin.
	Begin uint64
	// Op is the operation kind of an EntryBegin or EntryClearPending.
	Op resource.OperationKind
	// Old is the recorded resource the entry replaces or removes, matched
	// by URN, ID and Delete flag; nil for none.
	Old *resource.State
	// New is the resource the entry records; nil for none.
	New *resource.State
	// With lists records that leave the state together with Old, in this
	// same entry, each matched like Old by URN, ID and Delete flag; empty
	// for none. The engine lists the resources deleted with Old's
	// (deletedWith): their records must go exactly when the delete of
	// Old's resource is recorded, not before it (that delete may fail)
	// and not after it (a crash in between would leave records naming a
	// resource that is gone). Only an EntrySuccess or EntryWrite that
	// removes Old (New nil) may carry With.
	With []*resource.State
	// Condemn, on an EntrySuccess or EntryWrite with a live Old and New,
	// keeps Old recorded but marked Delete, in its place, and records New
	// after it instead of in its place (under its own URN: a renamed
	// resource's old copy keeps the URN it was recorded under). It is how the create of a
	// replacement (create-before-delete) is recorded: the old copy is
	// condemned in the very entry that records its replacement, so never
	// before the replacement exists, and a failed create leaves it live.
	Condemn bool
}

// Validate checks the shape of e, independently of any fold: an
// *EntryError for a malformed entry.
func (e *Entry) Validate() error {
	bad := func(format string, args ...any) error {
		return &EntryError{Kind: e.Kind, Seq: e.Seq, Reason: fmt.Sprintf(format, args...)}
	}
	for _, s := range []*resource.State{e.Old, e.New} {
		if s != nil && s.URN == "" {
			return bad("a resource in the entry has no URN")
		}
	}
	if len(e.With) > 0 {
		if err := e.validateWith(); err != nil {
			return err
		}
	}
	if e.Condemn {
		if err := e.validateCondemn(); err != nil {
			return err
		}
	}
	switch e.Kind {
	case EntryBegin:
		if e.Op == "" {
			return bad("a begin entry needs an operation kind")
		}
		if e.Old == nil && e.New == nil {
			return bad("a begin entry needs a resource (Old or New)")
		}
	case EntrySuccess, EntryFailure:
		if e.Begin == 0 {
			return bad("an end entry needs the Seq of its begin entry")
		}
	case EntryWrite:
		if e.Old == nil && e.New == nil {
			return bad("a write entry needs Old, New or both")
		}
	case EntryClearPending:
		if e.Op == "" || (e.Old == nil && e.New == nil) {
			return bad("a clear-pending entry needs an operation kind and a resource")
		}
	default:
		return bad("unknown entry kind")
	}
	return nil
}

// validateWith checks the shape of an entry with With. It is apart from
// validate, which every Append runs, so that an entry without With pays
// nothing for it.
func (e *Entry) validateWith() error {
	bad := func(reason string) error { return &EntryError{Kind: e.Kind, Seq: e.Seq, Reason: reason} }
	if e.Kind != EntrySuccess && e.Kind != EntryWrite {
		return bad("only a success or write entry may remove records with Old")
	}
	if e.Old == nil || e.New != nil {
		return bad("records may leave with Old only in an entry that removes Old (Old set, New nil)")
	}
	for _, s := range e.With {
		if s == nil || s.URN == "" {
			return bad("a record listed in With has no URN")
		}
	}
	return nil
}

// validateCondemn checks the shape of an entry that condemns Old.
func (e *Entry) validateCondemn() error {
	bad := func(reason string) error { return &EntryError{Kind: e.Kind, Seq: e.Seq, Reason: reason} }
	switch {
	case e.Kind != EntrySuccess && e.Kind != EntryWrite:
		return bad("only a success or write entry may condemn Old")
	case e.Old == nil || e.New == nil || len(e.With) > 0:
		return bad("an entry that condemns Old needs Old and New, and no With")
	case e.Old.Delete || e.New.Delete:
		return bad("an entry that condemns Old needs a live Old and a live New")
	}
	return nil
}

// EntryError reports a journal entry that cannot be applied: malformed, or
// inconsistent with what the journal already holds (an end without its
// begin, an Old that is not recorded). Append returns it without writing
// the entry; replaying a journal that holds such an entry fails with it.
//
// An entry whose New would break an integrity rule — a reference to a
// resource that is not recorded, a missing or unresolved provider, an
// unknown value, a second live copy of a URN — is rejected too; Err is
// then the *IntegrityError. Removals are not checked against the
// resources that refer to what is removed: the engine removes dependents
// first, and Commit's integrity check catches it if not.
type EntryError struct {
	Kind   EntryKind
	Seq    uint64
	Reason string
	Err    error // the underlying *IntegrityError, if any
}

// Error says which entry was rejected and why.
func (e *EntryError) Error() string {
	return fmt.Sprintf("journal entry %d (%s) rejected: %s", e.Seq, e.Kind, e.Reason)
}

// Unwrap returns Err.
func (e *EntryError) Unwrap() error { return e.Err }
