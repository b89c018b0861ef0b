package format

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/groundwork-iac/groundwork/state"
)

// JournalHeader is the payload of the first record of every journal. It
// ties the journal to the exact snapshot file it continues (Base, see
// BaseID) and says where its entries' Seqs begin and which pending
// operations of the base are steps still running (InFlight).
type JournalHeader struct {
	Format   int            `json:"format"`
	Base     string         `json:"base"`
	FirstSeq uint64         `json:"firstSeq"`
	InFlight []wireInFlight `json:"inFlight,omitempty"`
}

type wireInFlight struct {
	Seq     uint64 `json:"seq"`
	Pending int    `json:"pending"`
}

// BaseID identifies the exact bytes of a snapshot file: the value of its
// "mac" member when that is an HMAC, which already covers every byte
// before it (and costs nothing more to find: the file ends with it), else
// the hex SHA-256 of the file. Every journal header and every replay need
// it, so for an authenticated snapshot naming it costs no second pass over
// its bytes.
func BaseID(snapshot []byte) string { return baseID(snapshot) }

// BaseIDOfText is BaseID of a snapshot file held as a string.
func BaseIDOfText(text string) string { return baseID(text) }

func baseID[T string | []byte](snapshot T) string {
	// An HMAC's member is read from the end of the file, past its
	// trailing white space: a well-formed one is shorter than tail.
	const tail = 128
	end := len(snapshot)
	for end > 0 && (snapshot[end-1] == '\n' || snapshot[end-1] == ' ' || snapshot[end-1] == '\r' || snapshot[end-1] == '\t') {
		end--
	}
	if seal, ok := splitSnapshotMAC(string(snapshot[max(0, end-tail):])); ok && seal.alg == AlgHMAC && len(seal.sum) == MACSize {
		return AlgHMAC + ":" + hex.EncodeToString(seal.sum)
	}
	h := sha256.New()
	feed(snapshot, func(p []byte) { h.Write(p) })
	return hex.EncodeToString(h.Sum(nil))
}

// HeaderRecord frames the header of a journal that continues the snapshot
// base names (see BaseID): tagged (as the first link of the journal's
// chain) when m is set.
func HeaderRecord(base string, firstSeq uint64, inFlight []state.InFlight, m *RecordMAC) []byte {
	h := JournalHeader{Format: state.JournalFormatVersion, Base: base, FirstSeq: firstSeq}
	for _, f := range inFlight {
		h.InFlight = append(h.InFlight, wireInFlight{Seq: f.Seq, Pending: f.Pending})
	}
	payload, _ := json.Marshal(h) // cannot fail: plain fields
	if m != nil {
		return AppendTagged(nil, RecordTaggedHeader, 0, payload, m, &zeroTag)
	}
	return AppendRecord(nil, RecordHeader, 0, payload)
}

// DecodeHeader reads the payload of a journal's header record: a
// *state.FormatVersionError for a journal format newer than this library
// reads, an error for a malformed one.
func DecodeHeader(payload []byte) (*JournalHeader, error) {
	if _, err := checkVersion(payload, "journal", "format", state.JournalFormatVersion); err != nil {
		return nil, err
	}
	var h JournalHeader
	if err := json.Unmarshal(payload, &h); err != nil {
		return nil, fmt.Errorf("the journal header is malformed: %w", err)
	}
	if h.FirstSeq == 0 {
		return nil, fmt.Errorf("the journal header's first Seq is 0")
	}
	return &h, nil
}
