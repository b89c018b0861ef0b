package format

import (
	"bytes"
	"testing"
)

// TestRecordPayloadOffset checks that PayloadOffset locates each record's
// payload in the journal, for plain and tagged records, empty payloads
// included: a replay reads the entries from a text copy of the journal
// at those offsets.
func TestRecordPayloadOffset(t *testing.T) {
	payloads := [][]byte{[]byte(`{"version":4}`), nil, []byte(`{"kind":"begin"}`), bytes.Repeat([]byte("x"), 300)}
	var journal []byte
	for i, p := range payloads {
		typ := RecordEntry
		if i == 0 {
			typ = RecordHeader
		}
		if i%2 == 1 {
			typ++ // RecordTaggedHeader, RecordTaggedEntry: the tag is part of the payload
			p = append(bytes.Clone(p), make([]byte, MACSize)...)
		}
		journal = AppendRecord(journal, typ, uint64(i), p)
	}
	text := string(journal)
	n := 0
	if _, err := ScanRecords(journal, func(r Record) error {
		at := r.PayloadOffset()
		if got := text[at : at+int64(len(r.Payload))]; got != string(r.Payload) {
			t.Errorf("record %d: text at PayloadOffset %d is %q, want %q", n, at, got, r.Payload)
		}
		n++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != len(payloads) {
		t.Fatalf("scanned %d records, want %d", n, len(payloads))
	}
}
