package format

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestDecodeTimeAsParse reads sequences of times through one decoder, so
// that the minute it keeps from one is used on the next, and checks each
// against time.Parse: the same time (location included) or, where Parse
// refuses the text, an error.
func TestDecodeTimeAsParse(t *testing.T) {
	base := time.Date(2025, 12, 31, 23, 59, 0, 0, time.UTC)
	written := func(t time.Time) string { return string(appendRFC3339Nano(nil, t)) }
	cases := []struct {
		name  string
		texts []string
	}{
		{"seconds of one minute", []string{"2025-12-31T23:59:00Z", "2025-12-31T23:59:01Z", "2025-12-31T23:59:59Z", "2025-12-31T23:59:00Z"}},
		{"fractions of every length", []string{"2025-12-31T23:59:00Z", "2025-12-31T23:59:07.5Z", "2025-12-31T23:59:07.05Z",
			"2025-12-31T23:59:07.123456789Z", "2025-12-31T23:59:07.000000001Z", "2025-12-31T23:59:07.10Z"}},
		{"the next minute, hour, day and year", []string{"2025-12-31T23:59:58Z", "2026-01-01T00:00:00Z", "2026-01-01T00:00:01.25Z", "2025-12-31T23:59:58.5Z"}},
		{"not in the writer's shape", []string{"2025-12-31T23:59:00Z", "2025-12-31T23:59:60Z", "2025-12-31T23:59:61Z", "2025-12-31T23:59:6Z",
			"2025-12-31T23:59:07.Z", "2025-12-31T23:59:07.1234567891Z", "2025-12-31T23:59:07.12a Z", "2025-12-31T23:59:07.1z",
			"2025-12-31T23:59:07+00:00", "2025-12-31T23:59:07.5+01:00", "2025-12-31T23:59:07.5-0100", "2025-12-31T23:59:07,5Z",
			"2025-12-31T23:59", "2025-12-31T23:59:", "2025-12-31T23:59:5", "2025-12-31T23:59:5Z", "2025-12-31T23:59:a5Z", "2025-12-31T23:59:07Z"}},
		{"an offset time's minute is not kept", []string{"2025-12-31T23:59:07+01:00", "2025-12-31T23:59:08Z", "2025-12-31T23:59:09Z"}},
		{"an invalid date never is", []string{"2025-02-30T10:00:00Z", "2025-02-30T10:00:01Z", "2025-02-28T10:00:00Z", "2025-02-28T10:00:01.5Z"}},
		{"years at the edges", []string{"0000-01-01T00:00:00Z", "0000-01-01T00:00:30.5Z", "9999-12-31T23:59:00Z", "9999-12-31T23:59:59.999999999Z"}},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var random []string
	at := base
	for range 2000 {
		at = at.Add(time.Duration(rng.Int64N(int64(3 * time.Second))))
		random = append(random, written(at))
	}
	cases = append(cases, struct {
		name  string
		texts []string
	}{"times as the writer puts them", random})

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, share := range []bool{true, false} {
				quoted := make([]string, len(tc.texts))
				for i, s := range tc.texts {
					quoted[i] = `"` + s + `"`
				}
				text := "[" + strings.Join(quoted, ",") + "]"
				d := newDecoder(text, nil)
				if share {
					d = newSharingDecoder(text, nil)
				}
				i := 0
				if err := d.eachElement(func() error {
					got, err := d.time()
					want, perr := time.Parse(time.RFC3339Nano, tc.texts[i])
					switch {
					case perr != nil && err == nil:
						return fmt.Errorf("%q: read as %v, but time.Parse refuses it: %v", tc.texts[i], got, perr)
					case perr == nil && err != nil:
						return fmt.Errorf("%q: %v, but time.Parse reads it as %v", tc.texts[i], err, want)
					case perr == nil && (got != want || got.Location() != want.Location()):
						return fmt.Errorf("%q: read as %#v, time.Parse reads %#v", tc.texts[i], got, want)
					}
					i++
					return nil // a refused time was read past all the same
				}); err != nil {
					t.Fatalf("share=%t: %v", share, err)
				}
			}
		})
	}
}
