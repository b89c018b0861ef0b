package format

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/groundwork-iac/groundwork/state"
)

// The journal is a sequence of framed records (FORMAT.md, "Journal"):
//
//	length   uint32 LE   length of the body
//	lenCheck uint32 LE   CRC-32C of the length bytes, xor frameMagic
//	bodyCRC  uint32 LE   CRC-32C of the body
//	body     [length]byte: type (1 byte), seq (uint64 LE), payload (JSON),
//	         and, in a tagged record, the record's MAC (32 bytes; mac.go)
//
// The length has its own check so that a damaged length is never mistaken
// for a torn tail (a length that points past the end of the file).

const (
	frameHeaderSize = 12
	bodyHeaderSize  = 9
	maxBodySize     = 1 << 30
	frameMagic      = 0x67776a31 // "gwj1"
)

// Record types. Journals of stacks whose snapshots carry a keyed MAC use
// the tagged types only; other journals the plain ones only.
const (
	RecordHeader       byte = 1 // the journal header: base snapshot and first Seq
	RecordEntry        byte = 2 // one Entry
	RecordTaggedHeader byte = 3 // a header whose body ends with its MAC
	RecordTaggedEntry  byte = 4 // an entry whose body ends with its MAC
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// RecordSize is how many bytes AppendRecord (or, tagged, AppendUnsealed)
// adds for a payload of n bytes.
func RecordSize(n int, tagged bool) int {
	if tagged {
		return frameHeaderSize + bodyHeaderSize + n + MACSize
	}
	return frameHeaderSize + bodyHeaderSize + n
}

// AppendRecord frames one untagged record onto b.
func AppendRecord(b []byte, typ byte, seq uint64, payload []byte) []byte {
	n := bodyHeaderSize + len(payload)
	start := len(b)
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start:start+4], castagnoli)^frameMagic)
	b = append(b, 0, 0, 0, 0) // body CRC, filled below
	body := len(b)
	b = append(b, typ)
	b = binary.LittleEndian.AppendUint64(b, seq)
	b = append(b, payload...)
	binary.LittleEndian.PutUint32(b[start+8:], crc32.Checksum(b[body:], castagnoli))
	return b
}

// AppendUnsealed frames one tagged record onto b with room for its tag:
// the body ends with MACSize zero bytes, and its checksum is left zero.
// SealRecords fills in both before the record is written.
func AppendUnsealed(b []byte, typ byte, seq uint64, payload []byte) []byte {
	start := len(b)
	b = binary.LittleEndian.AppendUint32(b, uint32(bodyHeaderSize+len(payload)+MACSize))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start:start+4], castagnoli)^frameMagic)
	b = append(b, 0, 0, 0, 0) // body CRC, filled by SealRecords
	b = append(b, typ)
	b = binary.LittleEndian.AppendUint64(b, seq)
	b = append(b, payload...)
	return append(b, zeroTag[:]...)
}

// SealRecords fills in the tags and body checksums of the unsealed records
// batch holds, in order: the first chains to *prev, and *prev is left the
// last one's tag.
func SealRecords(batch []byte, m *RecordMAC, prev *[MACSize]byte) {
	for off := 0; off+frameHeaderSize <= len(batch); {
		n := int(binary.LittleEndian.Uint32(batch[off:]))
		body := batch[off+frameHeaderSize : off+frameHeaderSize+n]
		copy(body[n-MACSize:], m.tag(prev, body[:n-MACSize]))
		copy(prev[:], body[n-MACSize:])
		binary.LittleEndian.PutUint32(batch[off+8:], crc32.Checksum(body, castagnoli))
		off += frameHeaderSize + n
	}
}

// AppendTagged frames one sealed record onto b, its tag chained to prev
// (which it leaves as it is).
func AppendTagged(b []byte, typ byte, seq uint64, payload []byte, m *RecordMAC, prev *[MACSize]byte) []byte {
	start := len(b)
	b = AppendUnsealed(b, typ, seq, payload)
	chain := *prev
	SealRecords(b[start:], m, &chain)
	return b
}

// Record is one decoded frame of a journal.
type Record struct {
	Type    byte   // RecordHeader, RecordEntry, RecordTaggedHeader or RecordTaggedEntry
	Seq     uint64 // the entry's Seq (0 for a header)
	Payload []byte // aliases the input; in a tagged record, ends with the tag
	Offset  int64  // where the frame begins in the journal
	body    []byte // type, seq and payload: what a tag covers, and the tag
}

// PayloadOffset is where r's payload begins in the journal.
func (r Record) PayloadOffset() int64 {
	return r.Offset + frameHeaderSize + bodyHeaderSize
}

// ScanRecords calls fn for each intact record of data in order. It stops
// without error at a torn tail: a last record cut short, or one whose
// bytes are missing or zeroed because the crash came before they reached
// the disk. Damage followed by more data is a *CorruptJournalError.
func ScanRecords(data []byte, fn func(Record) error) (torn bool, err error) {
	off := 0
	for off < len(data) {
		rest := data[off:]
		if len(rest) < frameHeaderSize {
			return true, nil
		}
		n := binary.LittleEndian.Uint32(rest)
		if crc32.Checksum(rest[:4], castagnoli)^frameMagic != binary.LittleEndian.Uint32(rest[4:]) {
			if allZero(rest) {
				return true, nil
			}
			return false, &state.CorruptJournalError{Offset: int64(off), Reason: "record length fails its checksum"}
		}
		if n < bodyHeaderSize || n > maxBodySize {
			return false, &state.CorruptJournalError{Offset: int64(off), Reason: fmt.Sprintf("record length %d is impossible", n)}
		}
		end := frameHeaderSize + int(n)
		if end > len(rest) {
			return true, nil
		}
		body := rest[frameHeaderSize:end]
		if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(rest[8:]) {
			if end == len(rest) {
				return true, nil // the last record, partly written
			}
			return false, &state.CorruptJournalError{Offset: int64(off), Reason: "record body fails its checksum"}
		}
		r := Record{Type: body[0], Seq: binary.LittleEndian.Uint64(body[1:]), Payload: body[bodyHeaderSize:], body: body, Offset: int64(off)}
		if err := fn(r); err != nil {
			return false, err
		}
		off += end
	}
	return false, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
