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

// A snapshot sealed by an HMAC is named by its MAC, however much white
// space follows it, whether held as bytes or as a string; a member that is
// not a well-formed HMAC leaves the file named by its SHA-256.
func TestBaseIDOfSealedSnapshot(t *testing.T) {
	sum := strings.Repeat("ab", MACSize)
	body := `{"version":3,"resources":[]}`
	tests := []struct {
		name, file string
		hashed     bool // named by its SHA-256 rather than its MAC
	}{
		{"sealed", body[:len(body)-1] + MACMember + AlgHMAC + ":" + sum + "\"}\n", false},
		{"no trailing white space", body[:len(body)-1] + MACMember + AlgHMAC + ":" + sum + "\"}", false},
		{"long trailing white space", body[:len(body)-1] + MACMember + AlgHMAC + ":" + sum + "\"}" + strings.Repeat(" \t\r\n", 50), false},
		{"a long body", strings.Repeat(" ", 100_000) + body[:len(body)-1] + MACMember + AlgHMAC + ":" + sum + "\"}\n", false},
		{"a checksum", body[:len(body)-1] + MACMember + AlgCRC + ":0badf00d\"}\n", true},
		{"a short sum", body[:len(body)-1] + MACMember + AlgHMAC + ":" + sum[:62] + "\"}\n", true},
		{"no member", body + "\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := AlgHMAC + ":" + sum
			if tt.hashed {
				h := sha256.Sum256([]byte(tt.file))
				want = hex.EncodeToString(h[:])
			}
			if got := BaseID([]byte(tt.file)); got != want {
				t.Errorf("BaseID = %s, want %s", got, want)
			}
			if got := BaseIDOfText(tt.file); got != want {
				t.Errorf("BaseIDOfText = %s, want %s", got, want)
			}
		})
	}
}
