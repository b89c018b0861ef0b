package format

import "time"

// A snapshot's times are written in UTC as "YYYY-MM-DDTHH:MM:SS[.F]Z" (see
// appendRFC3339Nano), and resources recorded together mostly share their
// first 16 bytes, the minute. A decoder keeps the last minute it parsed,
// so that a time of the same minute is read as that minute plus its
// seconds, sparing the general parser for all but the first of them.

// minuteLen is the length of "YYYY-MM-DDTHH:MM".
const minuteLen = len("2006-01-02T15:04")

// lastMinute is a minute as text ("YYYY-MM-DDTHH:MM") and as the UTC time
// it starts at.
type lastMinute struct {
	text string
	at   time.Time
}

// read returns the time text states if text is in the writer's shape and
// of the minute m holds; ok is false otherwise, and text must then be
// parsed in full.
func (m *lastMinute) read(text string) (t time.Time, ok bool) {
	if m.text == "" || len(text) <= minuteLen || text[:minuteLen] != m.text {
		return time.Time{}, false
	}
	ns, ok := secondsOfMinute(text[minuteLen:])
	if !ok {
		return time.Time{}, false
	}
	return m.at.Add(time.Duration(ns)), true
}

// remember keeps the minute of text, which was parsed as t, if text is in
// the writer's shape; keep says how to keep the minute's text.
func (m *lastMinute) remember(text string, t time.Time, keep func(string) string) {
	if len(text) <= minuteLen || text[:minuteLen] == m.text {
		return
	}
	if ns, ok := secondsOfMinute(text[minuteLen:]); ok {
		m.text, m.at = keep(text[:minuteLen]), t.Add(-time.Duration(ns))
	}
}

// secondsOfMinute reads the rest of a time in the writer's shape after its
// minute, ":SS" with an optional fraction of 1 to 9 digits, then "Z", as
// nanoseconds into the minute.
func secondsOfMinute(s string) (int64, bool) {
	if len(s) < len(":00Z") || s[0] != ':' || s[len(s)-1] != 'Z' || !isDigit(s[1]) || !isDigit(s[2]) || s[1] > '5' {
		return 0, false
	}
	ns := int64(s[1]-'0')*10 + int64(s[2]-'0')
	ns *= int64(time.Second)
	frac := s[3 : len(s)-1]
	if len(frac) == 0 {
		return ns, true
	}
	if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
		return 0, false
	}
	var f int64
	for i := 1; i < 10; i++ {
		f *= 10
		if i < len(frac) {
			if !isDigit(frac[i]) {
				return 0, false
			}
			f += int64(frac[i] - '0')
		}
	}
	return ns + f, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
