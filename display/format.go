package display

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The ANSI color codes the renderer uses.
const (
	colorRed     = "31"
	colorGreen   = "32"
	colorYellow  = "33"
	colorMagenta = "35"
	colorCyan    = "36"
	colorDim     = "2"
	colorBold    = "1"
)

// palette paints text when color is on and leaves it alone otherwise.
type palette struct{ on bool }

func newPalette(on bool) palette { return palette{on: on} }

func (p palette) paint(color, s string) string {
	if !p.on || color == "" || s == "" {
		return s
	}
	return "\x1b[" + color + "m" + s + "\x1b[0m"
}

func itoa(n int) string { return strconv.Itoa(n) }

// formatDuration renders a duration briefly: "850µs", "12ms", "1.5s",
// "2m3s".
func formatDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return strconv.FormatInt(d.Microseconds(), 10) + "µs"
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Truncate(time.Second).String()
}

// truncate cuts s to at most width runes, marking the cut with "…". A
// width of zero or less leaves s alone.
func truncate(s string, width int) string {
	if width <= 0 || utf8.RuneCountInString(s) <= width {
		return s
	}
	if width == 1 {
		return "…"
	}
	i, n := 0, 0
	for j := range s {
		if n == width-1 {
			i = j
			break
		}
		n++
	}
	return s[:i] + "…"
}

// wrap breaks each line of s into lines of at most width runes, at a space
// where there is one, else within a word; every line but the first starts
// with indent. A width of zero or less leaves the lines whole; one no wider
// than indent cuts them (truncate).
func wrap(s string, width int, indent string) []string {
	in := utf8.RuneCountInString(indent)
	var out []string
	for i, l := range lines(s) {
		if i > 0 {
			l = indent + l
		}
		for width > in && utf8.RuneCountInString(l) > width {
			r := []rune(l)
			cut := width
			for j := width; j > in; j-- {
				if r[j] == ' ' {
					cut = j
					break
				}
			}
			out = append(out, strings.TrimRight(string(r[:cut]), " "))
			l = indent + strings.TrimLeft(string(r[cut:]), " ")
		}
		out = append(out, truncate(l, width))
	}
	return out
}

// pad right-pads s with spaces to width runes.
func pad(s string, width int) string {
	if n := utf8.RuneCountInString(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}

// indentRest indents every line of s after the first.
func indentRest(s, indent string) string {
	s = strings.TrimRight(s, "\n")
	return strings.ReplaceAll(s, "\n", "\n"+indent)
}

// lines splits a message into lines, dropping a trailing newline.
func lines(s string) []string {
	return strings.Split(strings.TrimRight(s, "\n"), "\n")
}
