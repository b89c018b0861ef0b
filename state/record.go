package state

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// The journal is a sequence of framed records (FORMAT.md, "Journal"):
//
//	length   uint32 LE   length of the body
//	lenCheck uint32 LE   CRC-32C of the length bytes, xor frameMagic
//	bodyCRC  uint32 LE   CRC-32C of the body
//	body     [length]byte: type (1 byte), seq (uint64 LE), payload (JSON)
//
// The length has its own check so that a damaged length is never mistaken
// for a torn tail (a length that points past the end of the file).

const (
	frameHeaderSize = 12
	bodyHeaderSize  = 9
	maxBodySize     = 1 << 30
	frameMagic      = 0x67776a31 // "gwj1"
)

// Record types.
const (
	recordHeader byte = 1 // the journal header: base snapshot and first Seq
	recordEntry  byte = 2 // one Entry
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendRecord frames one record onto b.
func appendRecord(b []byte, typ byte, seq uint64, payload []byte) []byte {
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
	return fmt.Sprintf("state: the journal is damaged at byte %d (%s); it was left untouched — "+
		"restore it from a backup, or move it aside to fall back to the last snapshot", e.Offset, e.Reason)
}

// record is one decoded frame.
type record struct {
	typ     byte
	seq     uint64
	payload []byte // aliases the input
	offset  int64
}

// scanRecords calls fn for each intact record of data in order. It stops
// without error at a torn tail: a last record cut short, or one whose
// bytes are missing or zeroed because the crash came before they reached
// the disk. Damage followed by more data is a *CorruptJournalError.
func scanRecords(data []byte, fn func(record) error) (torn bool, err error) {
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
			return false, &CorruptJournalError{Offset: int64(off), Reason: "record length fails its checksum"}
		}
		if n < bodyHeaderSize || n > maxBodySize {
			return false, &CorruptJournalError{Offset: int64(off), Reason: fmt.Sprintf("record length %d is impossible", n)}
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
			return false, &CorruptJournalError{Offset: int64(off), Reason: "record body fails its checksum"}
		}
		r := record{typ: body[0], seq: binary.LittleEndian.Uint64(body[1:]), payload: body[bodyHeaderSize:], offset: int64(off)}
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
