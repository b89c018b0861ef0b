package format

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// The encoder's fast paths must write exactly what the plain code they
// replace wrote: these tests compare them with that code.

// appendStringByByte is appendString as it was before plainPrefix: one byte
// at a time.
func appendStringByByte(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if plainASCII[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func TestAppendStringMatchesByteLoop(t *testing.T) {
	var cases []string
	// Every byte value at every position of strings up to 24 bytes long,
	// so each lane of the eight-byte test sees each byte.
	for n := 1; n <= 24; n++ {
		for pos := 0; pos < n; pos++ {
			for c := 0; c < 256; c++ {
				b := []byte(strings.Repeat("a", n))
				b[pos] = byte(c)
				cases = append(cases, string(b))
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "Z", "0", " ", "~", "\"", "\\", "\n", "\x00", "\x1f", "\x7f", "é", "😀", "\u2028", "\xff", "\xc3"}
	for range 20000 {
		var sb strings.Builder
		for range r.IntN(40) {
			sb.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		cases = append(cases, sb.String())
	}
	cases = append(cases, "", "plain ascii of some length, longer than eight bytes")
	for _, s := range cases {
		got, want := appendString(nil, s), appendStringByByte(nil, s)
		if string(got) != string(want) {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
		}
		if n := plainPrefix(s); n > len(s) || !strings.HasPrefix(string(want[1:]), s[:n]) {
			t.Fatalf("plainPrefix(%q) = %d", s, n)
		}
	}
}

func TestAppendRFC3339NanoMatchesTimeFormat(t *testing.T) {
	east := time.FixedZone("east", 5*3600+30*60)
	times := []time.Time{
		time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC),
		time.Date(2025, 6, 1, 12, 0, 0, 100, east),
		time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 2, 29, 7, 8, 9, 120000000, time.Local),
		time.Now(),
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 10000 {
		times = append(times, time.Unix(r.Int64N(253402300799), r.Int64N(1e9)))
	}
	for _, tm := range times {
		got, want := appendRFC3339Nano(nil, tm), tm.UTC().AppendFormat(nil, time.RFC3339Nano)
		if string(got) != string(want) {
			t.Fatalf("appendRFC3339Nano(%v) = %s, want %s", tm, got, want)
		}
	}
}
