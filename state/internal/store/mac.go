package store

import (
	"bytes"
	"crypto/hmac"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/crc32"

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
	macHMAC = "hmac-sha256" // keyed by the stack's secrets manager
	macCRC  = "crc32c"      // no key: catches accidents, not tampering
)

// macSize is the size of an HMAC-SHA-256 tag.
const macSize = 32

// macMember introduces a snapshot's "mac" member, always its last.
const macMember = `,"mac":"`

// The labels that open every MAC input, so that a snapshot's MAC can never
// pass for a journal record's or the other way round.
var (
	snapshotMACLabel = []byte("groundwork snapshot v2\x00")
	recordMACLabel   = []byte("groundwork journal record v2\x00")
)

// zeroTag is what the first record of a journal (its header) chains to.
var zeroTag [macSize]byte

// managerMAC returns a new MAC keyed by mgr, or nil if mgr (possibly nil)
// cannot authenticate.
func managerMAC(mgr secrets.Manager) (hash.Hash, error) {
	a, ok := mgr.(secrets.Authenticator)
	if !ok {
		return nil, nil
	}
	h := a.NewMAC()
	if h == nil || h.Size() != macSize {
		return nil, fmt.Errorf("the secrets manager of type %q gives a MAC that is not an HMAC-SHA-256", mgr.Type())
	}
	return h, nil
}

func authenticates(mgr secrets.Manager) bool {
	_, ok := mgr.(secrets.Authenticator)
	return ok
}

// macAlg is the algorithm of the "mac" member a store writes with mgr.
func macAlg(mgr secrets.Manager) string {
	if authenticates(mgr) {
		return macHMAC
	}
	return macCRC
}

// sealSnapshot ends an encoded snapshot — b holds everything up to its
// closing brace — with its "mac" member, computed over b.
func sealSnapshot(b []byte, mgr secrets.Manager) ([]byte, error) {
	h, err := managerMAC(mgr)
	if err != nil {
		return nil, err
	}
	var sum [macSize]byte
	if h == nil {
		binary.BigEndian.PutUint32(sum[:], snapshotCRC(b))
		b = append(b, macMember+macCRC+":"...)
		b = hex.AppendEncode(b, sum[:4])
		return append(b, "\"}\n"...), nil
	}
	h.Write(snapshotMACLabel)
	h.Write(b)
	b = append(b, macMember+macHMAC+":"...)
	b = hex.AppendEncode(b, h.Sum(sum[:0]))
	return append(b, "\"}\n"...), nil
}

func snapshotCRC(body []byte) uint32 {
	return crc32.Update(crc32.Checksum(snapshotMACLabel, castagnoli), castagnoli, body)
}

// snapshotSeal is a snapshot's "mac" member and the bytes it covers.
type snapshotSeal struct {
	body []byte // everything before the member
	alg  string
	sum  []byte // nil when the member is malformed
}

// splitSnapshotMAC finds the "mac" member that ends a snapshot: the file
// must end with `,"mac":"<alg>:<hex>"}` and white space.
func splitSnapshotMAC(data []byte) (snapshotSeal, bool) {
	end := len(data)
	for end > 0 && (data[end-1] == '\n' || data[end-1] == ' ' || data[end-1] == '\r' || data[end-1] == '\t') {
		end--
	}
	if end < 2 || data[end-1] != '}' || data[end-2] != '"' {
		return snapshotSeal{}, false
	}
	i := bytes.LastIndex(data[:end], []byte(macMember))
	if i < 0 {
		return snapshotSeal{}, false
	}
	seal := snapshotSeal{body: data[:i]}
	if i+len(macMember) > end-2 {
		// The member's opening quote is the one that ends the file:
		// `,"mac":"}`. It is malformed, like any member without a sum.
		return seal, true
	}
	alg, text, ok := bytes.Cut(data[i+len(macMember):end-2], []byte(":"))
	if !ok {
		return seal, true
	}
	seal.alg = string(alg)
	if sum, err := hex.DecodeString(string(text)); err == nil && len(sum) > 0 {
		seal.sum = sum
	}
	return seal, true
}

// snapshotAuth is what Load requires of a snapshot's "mac" member and,
// once check has passed, the algorithm of the member it found.
type snapshotAuth struct {
	stack string
	keyed bool // the store has a secrets provider
	trust bool // WithUnauthenticatedSnapshots
	alg   string
}

// secretsBlind reports whether check's verdict on data does not depend on
// the snapshot's secrets section or manager: the store has no secrets
// provider, and the file's "mac" member, if it has one, is not an HMAC
// (which such a store refuses in words that name the recorded manager).
// check can then run before that section is read.
func (a *snapshotAuth) secretsBlind(data []byte) bool {
	if a.keyed {
		return false
	}
	seal, ok := splitSnapshotMAC(data)
	return !ok || seal.alg != macHMAC
}

// check verifies the snapshot data, of format version, whose secrets
// section is sec and whose manager is mgr (nil when the snapshot records
// no secrets manager or the store has no secrets provider). A store with a
// secrets provider requires a keyed MAC unless the stack's manager cannot
// compute one; without trust, a snapshot lacking what is required is
// refused, whatever its version says, so that removing the MAC (or
// rewriting the file as format 1) does not get an edit past it.
func (a *snapshotAuth) check(version int, data []byte, sec *state.SecretsState, mgr secrets.Manager) error {
	fail := func(missing bool, format string, args ...any) error {
		return &state.AuthenticationError{Stack: a.stack, File: "snapshot", Missing: missing, Reason: fmt.Sprintf(format, args...)}
	}
	required := a.keyed && (sec == nil || authenticates(mgr))
	var seal snapshotSeal
	found := false
	if version >= 2 {
		seal, found = splitSnapshotMAC(data)
	}
	if !found {
		switch {
		case a.trust || (version < 2 && !required):
			return nil
		case version >= 2 && !bytes.HasSuffix(bytes.TrimRight(data, " \t\r\n"), []byte("}")):
			return fail(false, "is cut short: it does not end with the \"mac\" member that closes every snapshot")
		case version < 2:
			return fail(true, "carries no MAC (it is in format version %d, which predates them), but this store authenticates every snapshot with the stack's secrets manager", version)
		case required:
			return fail(true, "carries no MAC (its \"mac\" member was removed), but this store authenticates every snapshot with the stack's secrets manager")
		}
		return fail(true, "has lost its \"mac\" member, which holds its checksum")
	}
	switch {
	case seal.alg == macHMAC && len(seal.sum) == macSize:
		if mgr == nil && sec != nil {
			return fmt.Errorf("stack %q: the snapshot is authenticated by its secrets manager (type %q), which this store does not have: %w",
				a.stack, sec.Type, state.ErrNoSecretsManager)
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
				a.stack, sec.Type)
		}
		var sum [macSize]byte
		h.Write(snapshotMACLabel)
		h.Write(seal.body)
		if !hmac.Equal(h.Sum(sum[:0]), seal.sum) {
			return fail(false, "does not match its MAC: it was changed after groundwork wrote it, or written under another secrets key")
		}
	case seal.alg == macCRC && len(seal.sum) == 4:
		if required && !a.trust {
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
	a.alg = seal.alg
	return nil
}

// recordMAC computes the tags of a keyed journal's records. A journal has
// one and uses it under its mutex, so tagging a record allocates nothing.
type recordMAC struct {
	h   hash.Hash
	sum [macSize]byte
}

// newRecordMAC returns the record MAC keyed by mgr, or nil if mgr cannot
// authenticate.
func newRecordMAC(mgr secrets.Manager) (*recordMAC, error) {
	h, err := managerMAC(mgr)
	if h == nil || err != nil {
		return nil, err
	}
	return &recordMAC{h: h}, nil
}

// tag returns the tag of the record whose body (type, seq, payload) is
// body and which follows the record whose tag is prev. The result is valid
// until the next call.
func (m *recordMAC) tag(prev *[macSize]byte, body []byte) []byte {
	m.h.Reset()
	m.h.Write(recordMACLabel)
	m.h.Write(prev[:])
	m.h.Write(body)
	return m.h.Sum(m.sum[:0])
}

func tagged(typ byte) bool { return typ == recordTaggedHeader || typ == recordTaggedEntry }

// untag returns a record's payload without its tag.
func untag(r record) ([]byte, error) {
	if !tagged(r.typ) {
		return r.payload, nil
	}
	if len(r.payload) < macSize {
		return nil, &state.CorruptJournalError{Offset: r.offset, Reason: "a record is too short to hold its MAC"}
	}
	return r.payload[:len(r.payload)-macSize], nil
}

// recordChain checks, in order, the records of a journal that replay
// reads: they carry tags exactly when the journal's snapshot is keyed
// (mac set), and each tag matches.
type recordChain struct {
	stack string
	mac   *recordMAC
	prev  [macSize]byte
}

// verify checks r, the record after the last one verified.
func (c *recordChain) verify(r record) error {
	fail := func(missing bool, reason string) error {
		return &state.AuthenticationError{Stack: c.stack, File: "journal", Offset: r.offset, Missing: missing, Reason: reason}
	}
	switch {
	case !tagged(r.typ) && c.mac != nil:
		return fail(true, "carries no MAC, although the journal's snapshot is authenticated")
	case tagged(r.typ) && c.mac == nil:
		return fail(false, "carries a MAC, although the journal's snapshot is not authenticated")
	case c.mac == nil:
		return nil
	}
	n := len(r.body) - macSize
	if n < bodyHeaderSize {
		return &state.CorruptJournalError{Offset: r.offset, Reason: "a record is too short to hold its MAC"}
	}
	if !hmac.Equal(c.mac.tag(&c.prev, r.body[:n]), r.body[n:]) {
		return fail(false, "does not match its MAC: the journal was changed after groundwork wrote it")
	}
	copy(c.prev[:], r.body[n:])
	return nil
}
