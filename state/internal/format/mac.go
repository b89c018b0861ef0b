package format

import (
	"crypto/hmac"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/crc32"
	"strings"

	"github.com/groundwork-iac/groundwork/state"

	"github.com/groundwork-iac/groundwork/state/secrets"
)

// This file authenticates what a store writes (FORMAT.md,
// "Authentication"). A snapshot ends with a "mac" member over every byte
// before it: an HMAC-SHA-256 keyed by the stack's secrets manager, or, for
// a stack without one, a CRC-32C that catches accidental damage only. The
// records of a journal whose stack has a keyed MAC end with a tag chained
// to the record before, so that no record can be edited, dropped from the
// middle or moved.

// The algorithms a snapshot's "mac" member names.
const (
	AlgHMAC = "hmac-sha256" // keyed by the stack's secrets manager
	AlgCRC  = "crc32c"      // no key: catches accidents, not tampering
)

// MACSize is the size of an HMAC-SHA-256 tag.
const MACSize = 32

// MACMember introduces a snapshot's "mac" member, always its last.
const MACMember = `,"mac":"`

// The labels that open every MAC input, so that a snapshot's MAC can never
// pass for a journal record's or the other way round.
var (
	snapshotMACLabel = []byte("groundwork snapshot v2\x00")
	recordMACLabel   = []byte("groundwork journal record v2\x00")
)

// zeroTag is what the first record of a journal (its header) chains to.
var zeroTag [MACSize]byte

// managerMAC returns a new MAC keyed by mgr, or nil if mgr (possibly nil)
// cannot authenticate.
func managerMAC(mgr secrets.Manager) (hash.Hash, error) {
	a, ok := mgr.(secrets.Authenticator)
	if !ok {
		return nil, nil
	}
	h := a.NewMAC()
	if h == nil || h.Size() != MACSize {
		return nil, fmt.Errorf("the secrets manager of type %q gives a MAC that is not an HMAC-SHA-256", mgr.Type())
	}
	return h, nil
}

func authenticates(mgr secrets.Manager) bool {
	_, ok := mgr.(secrets.Authenticator)
	return ok
}

// MACAlgorithm is the algorithm of the "mac" member a store writes with mgr.
func MACAlgorithm(mgr secrets.Manager) string {
	if authenticates(mgr) {
		return AlgHMAC
	}
	return AlgCRC
}

// SealSnapshot ends an encoded snapshot — b holds everything up to its
// closing brace — with its "mac" member, computed over b.
func SealSnapshot(b []byte, mgr secrets.Manager) ([]byte, error) {
	h, err := managerMAC(mgr)
	if err != nil {
		return nil, err
	}
	var sum [MACSize]byte
	if h == nil {
		binary.BigEndian.PutUint32(sum[:], snapshotCRC(b))
		b = append(b, MACMember+AlgCRC+":"...)
		b = hex.AppendEncode(b, sum[:4])
		return append(b, "\"}\n"...), nil
	}
	h.Write(snapshotMACLabel)
	h.Write(b)
	b = append(b, MACMember+AlgHMAC+":"...)
	b = hex.AppendEncode(b, h.Sum(sum[:0]))
	return append(b, "\"}\n"...), nil
}

func snapshotCRC[T string | []byte](body T) uint32 {
	crc := crc32.Checksum(snapshotMACLabel, castagnoli)
	feed(body, func(p []byte) { crc = crc32.Update(crc, castagnoli, p) })
	return crc
}

// feed passes data to write: a []byte at once, a string through a small
// buffer, piece by piece, so that a snapshot held as a string (Load's)
// is hashed without a copy of it whole.
func feed[T string | []byte](data T, write func([]byte)) {
	switch d := any(data).(type) {
	case []byte:
		write(d)
	case string:
		buf := make([]byte, min(len(d), 32<<10))
		for d != "" {
			n := copy(buf, d)
			write(buf[:n])
			d = d[n:]
		}
	}
}

// snapshotSeal is a snapshot's "mac" member and the text it covers.
type snapshotSeal struct {
	body string // everything before the member
	alg  string
	sum  []byte // nil when the member is malformed
}

// splitSnapshotMAC finds the "mac" member that ends a snapshot: the file
// must end with `,"mac":"<alg>:<hex>"}` and white space.
func splitSnapshotMAC(data string) (snapshotSeal, bool) {
	end := len(strings.TrimRight(data, "\n \r\t"))
	if end < 2 || data[end-1] != '}' || data[end-2] != '"' {
		return snapshotSeal{}, false
	}
	i := strings.LastIndex(data[:end], MACMember)
	if i < 0 {
		return snapshotSeal{}, false
	}
	seal := snapshotSeal{body: data[:i]}
	if i+len(MACMember) > end-2 {
		// The member's opening quote is the one that ends the file:
		// `,"mac":"}`. It is malformed, like any member without a sum.
		return seal, true
	}
	alg, text, ok := strings.Cut(data[i+len(MACMember):end-2], ":")
	if !ok {
		return seal, true
	}
	seal.alg = alg
	if sum, err := hex.DecodeString(text); err == nil && len(sum) > 0 {
		seal.sum = sum
	}
	return seal, true
}

// SnapshotAuth is what Load requires of a snapshot's "mac" member and,
// once check has passed, the algorithm of the member it found.
type SnapshotAuth struct {
	Stack state.StackID // the stack, for errors
	Keyed bool          // the store has a secrets provider
	Trust bool          // the store accepts a snapshot without the MAC it requires (WithUnauthenticatedSnapshots)
	// Alg is set by the check: the algorithm of the file's "mac" member
	// ("" for none).
	Alg string
}

// secretsBlind reports whether check's verdict on data does not depend on
// the snapshot's secrets section or manager: the store has no secrets
// provider, and the file's "mac" member, if it has one, is not an HMAC
// (which such a store refuses in words that name the recorded manager).
// check can then run before that section is read.
func (a *SnapshotAuth) secretsBlind(data string) bool {
	if a.Keyed {
		return false
	}
	seal, ok := splitSnapshotMAC(data)
	return !ok || seal.alg != AlgHMAC
}

// check verifies the snapshot data, of format version, whose secrets
// section is sec and whose manager is mgr (nil when the snapshot records
// no secrets manager or the store has no secrets provider). A store with a
// secrets provider requires a keyed MAC unless the stack's manager cannot
// compute one; without trust, a snapshot lacking what is required is
// refused, whatever its version says, so that removing the MAC (or
// rewriting the file as format 1) does not get an edit past it.
func (a *SnapshotAuth) check(version int, data string, sec *state.SecretsState, mgr secrets.Manager) error {
	fail := func(missing bool, format string, args ...any) error {
		return &state.AuthenticationError{Stack: a.Stack, File: "snapshot", Missing: missing, Reason: fmt.Sprintf(format, args...)}
	}
	required := a.Keyed && (sec == nil || authenticates(mgr))
	var seal snapshotSeal
	found := false
	if version >= 2 {
		seal, found = splitSnapshotMAC(data)
	}
	if !found {
		switch {
		case a.Trust || (version < 2 && !required):
			return nil
		case version >= 2 && !strings.HasSuffix(strings.TrimRight(data, " \t\r\n"), "}"):
			return fail(false, "is cut short: it does not end with the \"mac\" member that closes every snapshot")
		case version < 2:
			return fail(true, "carries no MAC (it is in format version %d, which predates them), but this store authenticates every snapshot with the stack's secrets manager", version)
		case required:
			return fail(true, "carries no MAC (its \"mac\" member was removed), but this store authenticates every snapshot with the stack's secrets manager")
		}
		return fail(true, "has lost its \"mac\" member, which holds its checksum")
	}
	switch {
	case seal.alg == AlgHMAC && len(seal.sum) == MACSize:
		if mgr == nil && sec != nil {
			return fmt.Errorf("stack %q: the snapshot is authenticated by its secrets manager (type %q), which this store does not have: %w",
				a.Stack, sec.Type, state.ErrNoSecretsManager)
		}
		h, err := managerMAC(mgr)
		if err != nil {
			return err
		}
		if h == nil {
			if sec == nil {
				return fail(false, "names a keyed MAC but records no secrets manager to key it")
			}
			return fmt.Errorf("stack %q: the snapshot is authenticated by a MAC, which its secrets manager (type %q) cannot compute (it is not a secrets.Authenticator)",
				a.Stack, sec.Type)
		}
		var sum [MACSize]byte
		h.Write(snapshotMACLabel)
		feed(seal.body, func(p []byte) { h.Write(p) })
		if !hmac.Equal(h.Sum(sum[:0]), seal.sum) {
			return fail(false, "does not match its MAC: it was changed after groundwork wrote it, or written under another secrets key")
		}
	case seal.alg == AlgCRC && len(seal.sum) == 4:
		if required && !a.Trust {
			if sec == nil {
				return fail(true, "records no secrets manager and carries only an unkeyed checksum, but this store authenticates every snapshot with the stack's secrets manager")
			}
			return fail(true, "carries only an unkeyed checksum, but this store authenticates every snapshot with the stack's secrets manager")
		}
		if snapshotCRC(seal.body) != binary.BigEndian.Uint32(seal.sum) {
			return fail(false, "does not match its checksum: it was changed or damaged after groundwork wrote it")
		}
	default:
		return fail(false, "has a malformed \"mac\" member")
	}
	a.Alg = seal.alg
	return nil
}

// RecordMAC computes the tags of a keyed journal's records. A journal has
// one and uses it under its mutex, so tagging a record allocates nothing.
type RecordMAC struct {
	h   hash.Hash
	sum [MACSize]byte
}

// NewRecordMAC returns the record MAC keyed by mgr, or nil if mgr cannot
// authenticate.
func NewRecordMAC(mgr secrets.Manager) (*RecordMAC, error) {
	h, err := managerMAC(mgr)
	if h == nil || err != nil {
		return nil, err
	}
	return &RecordMAC{h: h}, nil
}

// tag returns the tag of the record whose body (type, seq, payload) is
// body and which follows the record whose tag is prev. The result is valid
// until the next call.
func (m *RecordMAC) tag(prev *[MACSize]byte, body []byte) []byte {
	m.h.Reset()
	m.h.Write(recordMACLabel)
	m.h.Write(prev[:])
	m.h.Write(body)
	return m.h.Sum(m.sum[:0])
}

// Tagged reports whether records of type typ end with a MAC.
func Tagged(typ byte) bool { return typ == RecordTaggedHeader || typ == RecordTaggedEntry }

// Untag returns a record's payload without its tag.
func Untag(r Record) ([]byte, error) {
	if !Tagged(r.Type) {
		return r.Payload, nil
	}
	if len(r.Payload) < MACSize {
		return nil, &state.CorruptJournalError{Offset: r.Offset, Reason: "a record is too short to hold its MAC"}
	}
	return r.Payload[:len(r.Payload)-MACSize], nil
}

// RecordChain checks, in order, the records of a journal that replay
// reads: they carry tags exactly when the journal's snapshot is keyed
// (mac set), and each tag matches.
type RecordChain struct {
	stack state.StackID
	mac   *RecordMAC
	prev  [MACSize]byte
}

// verify checks r, the record after the last one verified.
func (c *RecordChain) Verify(r Record) error {
	fail := func(missing bool, reason string) error {
		return &state.AuthenticationError{Stack: c.stack, File: "journal", Offset: r.Offset, Missing: missing, Reason: reason}
	}
	switch {
	case !Tagged(r.Type) && c.mac != nil:
		return fail(true, "carries no MAC, although the journal's snapshot is authenticated")
	case Tagged(r.Type) && c.mac == nil:
		return fail(false, "carries a MAC, although the journal's snapshot is not authenticated")
	case c.mac == nil:
		return nil
	}
	n := len(r.body) - MACSize
	if n < bodyHeaderSize {
		return &state.CorruptJournalError{Offset: r.Offset, Reason: "a record is too short to hold its MAC"}
	}
	if !hmac.Equal(c.mac.tag(&c.prev, r.body[:n]), r.body[n:]) {
		return fail(false, "does not match its MAC: the journal was changed after groundwork wrote it")
	}
	copy(c.prev[:], r.body[n:])
	return nil
}

// NewRecordChain starts checking the chain of a journal's records: the
// tags of a journal continuing a keyed snapshot (mac set), or their
// absence (mac nil). stack names the stack in errors.
func NewRecordChain(stack state.StackID, mac *RecordMAC) *RecordChain {
	return &RecordChain{stack: stack, mac: mac}
}
