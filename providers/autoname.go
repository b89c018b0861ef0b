package providers

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"

	"github.com/groundwork-iac/groundwork/resource"
)

// DefaultAutoNameLength is the length of the suffix AutoName appends when
// asked for a non-positive length.
const DefaultAutoNameLength = 7

// maxAutoNameLength bounds the suffix so that bad input cannot make AutoName
// allocate without limit.
const maxAutoNameLength = 256

// AutoName returns name followed by "-" and randLen lowercase hexadecimal
// characters derived from seed and name. It is deterministic: the same seed
// and name always give the same result, so a provider that auto-names a
// resource from CheckRequest.RandomSeed keeps the name across previews and
// updates, and picks a fresh one only when the engine hands it a fresh seed
// (a replacement). A non-positive randLen means DefaultAutoNameLength; a
// length above 256 is cut to 256.
//
// With an empty seed the suffix depends on the name only; callers that want
// distinct names for equal names must supply distinct seeds.
func AutoName(name string, seed []byte, randLen int) string {
	if randLen <= 0 {
		randLen = DefaultAutoNameLength
	}
	randLen = min(randLen, maxAutoNameLength)
	suffix := make([]byte, 0, randLen+sha256.Size*2)
	var counter [8]byte
	for block := uint64(0); len(suffix) < randLen; block++ {
		h := sha256.New()
		h.Write(seed)
		h.Write([]byte{0})
		h.Write([]byte(name))
		binary.BigEndian.PutUint64(counter[:], block)
		h.Write(counter[:])
		suffix = hex.AppendEncode(suffix, h.Sum(nil))
	}
	return name + "-" + string(suffix[:randLen])
}

// NewRandomSeed returns the random seed of the resource urn in a stack whose
// own seed is stackSeed: an HMAC-SHA-256 of the URN keyed by the stack seed.
// It is deterministic per resource and stack, and different for different
// resources, so it is what the engine passes as CheckRequest.RandomSeed. (To
// give a replacement a fresh auto-name, the engine passes a fresh random
// seed instead.)
func NewRandomSeed(urn resource.URN, stackSeed []byte) []byte {
	mac := hmac.New(sha256.New, stackSeed)
	mac.Write([]byte(urn))
	return mac.Sum(nil)
}
