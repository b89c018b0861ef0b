package random

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-iac/groundwork/providers/internal/props"
	"github.com/groundwork-iac/groundwork/resource"
)

// maxExact bounds Integer's range: numbers are float64s, exact up to 2^53.
const maxExact = 1 << 53

// integerKind is random:index:Integer.
type integerKind struct{}

func (integerKind) keys() []string { return []string{"min", "max", "seed", "keepers"} }

func (integerKind) readResult(r *reader) func() (resource.PropertyValue, error) {
	r.keepers()
	lo := r.RequiredInt("min", -maxExact, maxExact)
	hi := r.RequiredInt("max", -maxExact, maxExact)
	seed := r.Str("seed")
	if lo.Set && hi.Set && !lo.Unknown && !hi.Unknown && lo.Value > hi.Value {
		r.Fail("max", "is %d, less than min %d", hi.Value, lo.Value)
	}
	if r.Unknown() || len(r.Failures()) > 0 {
		return nil
	}
	return func() (resource.PropertyValue, error) {
		n, err := randomIn(lo.Value, hi.Value, seed)
		return resource.NewNumber(float64(n)), err
	}
}

// randomIn returns a number in [lo, hi]: uniform from crypto/rand, or, with
// a seed, the same number every time for the same seed and range.
func randomIn(lo, hi int64, seed props.Field[string]) (int64, error) {
	span := uint64(hi-lo) + 1 // at most 2^54+1: no overflow
	if !seed.Set {
		n, err := intn(int64(span))
		return lo + n, err
	}
	// Rejection sampling over a SHA-256 counter stream keeps a seeded
	// draw uniform too.
	limit := ^uint64(0) - ^uint64(0)%span
	for counter := uint64(0); ; counter++ {
		h := sha256.New()
		h.Write([]byte(seed.Value))
		binary.Write(h, binary.BigEndian, counter)
		x := binary.BigEndian.Uint64(h.Sum(nil))
		if x < limit {
			return lo + int64(x%span), nil
		}
	}
}

var integerID = regexp.MustCompile(`^\s*(-?\d+)\s*(?:,\s*(-?\d+)\s*,\s*(-?\d+)\s*)?$`)

// parseID adopts "N" (min and max are N too) or "N,MIN,MAX".
func (integerKind) parseResult(id string) (resource.PropertyMap, resource.PropertyValue, error) {
	m := integerID.FindStringSubmatch(id)
	if m == nil {
		return nil, resource.PropertyValue{}, fmt.Errorf("the ID of an Integer to import is %q, want the number, or the number, min and max separated by commas (\"7\" or \"7,1,10\")", id)
	}
	nums := make([]int64, 0, 3)
	for _, s := range m[1:] {
		if s == "" {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || n < -maxExact || n > maxExact {
			return nil, resource.PropertyValue{}, fmt.Errorf("the ID of an Integer to import is %q: %s is out of range", id, s)
		}
		nums = append(nums, n)
	}
	n, lo, hi := nums[0], nums[0], nums[0]
	if len(nums) == 3 {
		lo, hi = nums[1], nums[2]
	}
	if n < lo || n > hi {
		return nil, resource.PropertyValue{}, fmt.Errorf("the ID of an Integer to import is %q: %d is not between %d and %d", id, n, lo, hi)
	}
	inputs := resource.PropertyMap{"min": resource.NewNumber(float64(lo)), "max": resource.NewNumber(float64(hi))}
	return inputs, resource.NewNumber(float64(n)), nil
}

// uuidKind is random:index:UUID.
type uuidKind struct{}

func (uuidKind) keys() []string { return []string{"keepers"} }

func (uuidKind) readResult(r *reader) func() (resource.PropertyValue, error) {
	r.keepers()
	if r.Unknown() || len(r.Failures()) > 0 {
		return nil
	}
	return func() (resource.PropertyValue, error) { return resource.NewString(newUUID()), nil }
}

// newUUID returns a random (version 4, RFC 4122 variant) UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// newUUID7 returns a version 7 UUID (RFC 9562): the Unix time of now in
// milliseconds in its first 48 bits, then random bits.
func newUUID7(now time.Time) string {
	var b [16]byte
	rand.Read(b[6:]) // never fails
	ms := uint64(now.UnixMilli())
	for i := range 6 {
		b[i] = byte(ms >> (40 - 8*i))
	}
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// parseID adopts the ID as the UUID, written in lower case.
func (uuidKind) parseResult(id string) (resource.PropertyMap, resource.PropertyValue, error) {
	if !uuidPattern.MatchString(id) {
		return nil, resource.PropertyValue{}, fmt.Errorf("the ID of a UUID to import is %q, want a UUID such as 2f1c7a4e-8b1d-4c5e-9f3a-0d6b7e8c9a10", id)
	}
	return resource.PropertyMap{}, resource.NewString(strings.ToLower(id)), nil
}
