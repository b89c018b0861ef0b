package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

	"github.com/groundwork-iac/groundwork/state"

	"github.com/groundwork-iac/groundwork/state/secrets"
)

// journalHeader is the payload of the first record of every journal. It
// ties the journal to the exact snapshot file it continues (Base, see
// baseID) and says where its entries' Seqs begin and which pending
// operations of the base are steps still running (InFlight).
type journalHeader struct {
	Format   int            `json:"format"`
	Base     string         `json:"base"`
	FirstSeq uint64         `json:"firstSeq"`
	InFlight []wireInFlight `json:"inFlight,omitempty"`
}

type wireInFlight struct {
	Seq     uint64 `json:"seq"`
	Pending int    `json:"pending"`
}

// baseID identifies the exact bytes of a snapshot file: the value of its
// "mac" member when that is an HMAC, which already covers every byte
// before it (and costs nothing more to find: the file ends with it), else
// the hex SHA-256 of the file. Every journal header and every replay need
// it, so for an authenticated snapshot naming it costs no second pass over
// its bytes.
func baseID(snapshot []byte) string {
	if seal, ok := splitSnapshotMAC(snapshot); ok && seal.alg == macHMAC && len(seal.sum) == macSize {
		return macHMAC + ":" + hex.EncodeToString(seal.sum)
	}
	sum := sha256.Sum256(snapshot)
	return hex.EncodeToString(sum[:])
}

// baseIDOfText is baseID of a snapshot file held as a string. An HMAC's
// member is read from the file's end.
func baseIDOfText(text string) string {
	const tail = 128 // holds a "mac" member whole
	if len(text) > tail {
		if seal, ok := splitSnapshotMAC([]byte(text[len(text)-tail:])); ok && seal.alg == macHMAC && len(seal.sum) == macSize {
			return macHMAC + ":" + hex.EncodeToString(seal.sum)
		}
	}
	h := sha256.New()
	io.WriteString(h, text)
	return hex.EncodeToString(h.Sum(nil))
}

// headerRecord frames the header of a journal that continues the snapshot
// base names (see baseID): tagged (as the first link of the journal's
// chain) when m is set.
func headerRecord(base string, firstSeq uint64, inFlight []state.InFlight, m *recordMAC) []byte {
	h := journalHeader{Format: state.JournalFormatVersion, Base: base, FirstSeq: firstSeq}
	for _, f := range inFlight {
		h.InFlight = append(h.InFlight, wireInFlight{Seq: f.Seq, Pending: f.Pending})
	}
	payload, _ := json.Marshal(h) // cannot fail: plain fields
	if m != nil {
		return appendTagged(nil, recordTaggedHeader, 0, payload, m, &zeroTag)
	}
	return appendRecord(nil, recordHeader, 0, payload)
}

// replay folds the journal onto base, the snapshot decoded from baseData.
// A journal whose header names another base is stale — its entries are
// already in baseData, which a checkpoint wrote just before it crashed or
// before the journal could be reset — and is ignored. An empty journal, or
// one whose header record is torn, holds nothing to replay.
//
// mac is set when baseData carries a keyed MAC: every record of the
// journal must then carry a tag that matches (recordChain), and none may
// otherwise. Records are checked before they are decoded.
func replay(ctx context.Context, base *state.Snapshot, baseData, journal []byte, mgr secrets.Manager, stack string, mac *recordMAC) (*state.Snapshot, error) {
	var fold *state.Fold
	stale := false
	n := 0
	ed := newEntryDecoder(mgr)
	chain := &recordChain{stack: stack, mac: mac}
	// Begin entries are read lazily; begins is where to find the full
	// record of each step that has not ended yet.
	begins := map[uint64][]byte{}
	_, err := scanRecords(journal, func(r record) error {
		if stale {
			return nil
		}
		if n++; n%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if fold == nil {
			if r.typ != recordHeader && r.typ != recordTaggedHeader {
				return &state.CorruptJournalError{Offset: r.offset, Reason: "the first record is not a header"}
			}
			payload, err := untag(r)
			if err != nil {
				return err
			}
			h, err := decodeHeader(payload)
			if err != nil {
				return err
			}
			if h.Base != baseID(baseData) {
				stale = true
				return nil
			}
			if err := chain.verify(r); err != nil {
				return err
			}
			inFlight := make([]state.InFlight, len(h.InFlight))
			for i, f := range h.InFlight {
				inFlight[i] = state.InFlight{Seq: f.Seq, Pending: f.Pending}
			}
			fold, err = state.NewFold(base, h.FirstSeq-1, inFlight)
			if err != nil {
				return &state.CorruptJournalError{Offset: r.offset, Reason: err.Error()}
			}
			return nil
		}
		if r.typ != recordEntry && r.typ != recordTaggedEntry {
			return &state.CorruptJournalError{Offset: r.offset, Reason: fmt.Sprintf("unexpected record type %d", r.typ)}
		}
		if err := chain.verify(r); err != nil {
			return err
		}
		payload, err := untag(r)
		if err != nil {
			return err
		}
		e, err := ed.decode(ctx, string(payload), r.seq, true)
		if err != nil {
			return fmt.Errorf("journal entry %d at byte %d: %w", r.seq, r.offset, err)
		}
		// Unknown values are not searched for entry by entry: Load checks
		// the integrity of the whole result, which finds them.
		if err := fold.ApplyKnown(&e); err != nil {
			return fmt.Errorf("the journal cannot be replayed at byte %d: %w", r.offset, err)
		}
		switch e.Kind {
		case state.EntryBegin:
			begins[e.Seq] = payload
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
	for seq, payload := range begins {
		e, err := ed.decode(ctx, string(payload), seq, false)
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

func decodeHeader(payload []byte) (*journalHeader, error) {
	if _, err := checkVersion(payload, "journal", "format", state.JournalFormatVersion); err != nil {
		return nil, err
	}
	var h journalHeader
	if err := json.Unmarshal(payload, &h); err != nil {
		return nil, fmt.Errorf("the journal header is malformed: %w", err)
	}
	if h.FirstSeq == 0 {
		return nil, fmt.Errorf("the journal header's first Seq is 0")
	}
	return &h, nil
}
