package format

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// A snapshot file held as a string is named as the same bytes are, at
// every size around the buffer BaseIDOfText hashes through.
func TestBaseIDOfTextIsBaseID(t *testing.T) {
	for _, n := range []int{0, 1, 127, 128, 129, 32<<10 - 1, 32 << 10, 32<<10 + 1, 100_000} {
		text := strings.Repeat("{\"resources\":[]}", n/16+1)[:n]
		sum := sha256.Sum256([]byte(text))
		want := hex.EncodeToString(sum[:])
		if got := BaseID([]byte(text)); got != want {
			t.Errorf("BaseID of %d bytes = %s, want %s", n, got, want)
		}
		if got := BaseIDOfText(text); got != want {
			t.Errorf("BaseIDOfText of %d bytes = %s, want %s", n, got, want)
		}
	}
}
