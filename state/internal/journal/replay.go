package journal

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/state"

	"github.com/groundwork-iac/groundwork/state/internal/format"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// Replay folds the journal onto base, the snapshot decoded from the file
// baseText. A journal whose header names another base fails with
// *OtherBaseError: whether it is stale (its entries already in baseText,
// which a checkpoint wrote just before it crashed) or follows a snapshot
// that was changed since is for the caller to tell; it is never replayed. An empty journal,
// or one whose header record is torn, holds nothing to replay.
//
// mac is set when baseText carries a keyed MAC: every record of the
// journal must then carry a tag that matches (RecordChain), and none may
// otherwise. Records are checked before they are decoded.
func Replay(ctx context.Context, base *state.Snapshot, baseText string, journal []byte, mgr secrets.Manager, stack state.StackID, mac *format.RecordMAC) (*state.Snapshot, error) {
	var fold *state.Fold
	n := 0
	ed := format.NewEntryDecoder(mgr)
	chain := format.NewRecordChain(stack, mac)
	// Begin entries are read lazily; begins is where to find the full
	// record of each step that has not ended yet.
	begins := map[uint64]string{}
	// The entries are decoded from one copy of the journal as text rather
	// than from a copy of each record's payload. The decoder copies what
	// it keeps: the snapshot replayed does not hold on to the copy.
	text := string(journal)
	_, err := format.ScanRecords(journal, func(r format.Record) error {
		if n++; n%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if fold == nil {
			if r.Type != format.RecordHeader && r.Type != format.RecordTaggedHeader {
				return &state.CorruptJournalError{Offset: r.Offset, Reason: "the first record is not a header"}
			}
			payload, err := format.Untag(r)
			if err != nil {
				return err
			}
			h, err := format.DecodeHeader(payload)
			if err != nil {
				return err
			}
			if h.Base != format.BaseIDOfText(baseText) {
				return &OtherBaseError{Base: h.Base}
			}
			if err := chain.Verify(r); err != nil {
				return err
			}
			inFlight := make([]state.InFlight, len(h.InFlight))
			for i, f := range h.InFlight {
				inFlight[i] = state.InFlight{Seq: f.Seq, Pending: f.Pending}
			}
			fold, err = state.NewFold(base, h.FirstSeq-1, inFlight)
			if err != nil {
				return &state.CorruptJournalError{Offset: r.Offset, Reason: err.Error()}
			}
			return nil
		}
		if r.Type != format.RecordEntry && r.Type != format.RecordTaggedEntry {
			return &state.CorruptJournalError{Offset: r.Offset, Reason: fmt.Sprintf("unexpected record type %d", r.Type)}
		}
		if err := chain.Verify(r); err != nil {
			return err
		}
		payload, err := format.Untag(r)
		if err != nil {
			return err
		}
		at := r.PayloadOffset()
		entry := text[at : at+int64(len(payload))]
		e, err := ed.Decode(ctx, entry, r.Seq, true)
		if err != nil {
			return fmt.Errorf("journal entry %d at byte %d: %w", r.Seq, r.Offset, err)
		}
		// Unknown values are not searched for entry by entry: Load checks
		// the integrity of the whole result, which finds them.
		if err := fold.ApplyKnown(&e); err != nil {
			return fmt.Errorf("the journal cannot be replayed at byte %d: %w", r.Offset, err)
		}
		switch e.Kind {
		case state.EntryBegin:
			begins[e.Seq] = entry
		case state.EntrySuccess, state.EntryFailure:
			delete(begins, e.Begin)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if fold == nil {
		return base, nil
	}
	// Read the steps that never ended in full: they become pending
	// operations.
	for seq, entry := range begins {
		e, err := ed.Decode(ctx, entry, seq, false)
		if err != nil {
			return nil, fmt.Errorf("journal entry %d: %w", seq, err)
		}
		r := e.New
		if r == nil {
			r = e.Old
		}
		fold.SetPendingResource(seq, r)
	}
	return fold.Snapshot(), nil
}

// OtherBaseError reports a journal whose header names a snapshot other
// than the one it was to be replayed on.
type OtherBaseError struct {
	// Base is the header's name for the snapshot the journal follows
	// (see format.BaseID).
	Base string
}

func (e *OtherBaseError) Error() string {
	return "the journal follows another snapshot (" + e.Base + ")"
}
