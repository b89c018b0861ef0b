package langhost

import (
	"bytes"
	"strings"
	"sync"
)

// stderrTail is how many of the last stderr lines a ProgramError quotes.
const stderrTail = 20

// maxLine bounds a line held while waiting for its end: a longer one is
// passed on in pieces.
const maxLine = 64 << 10

// lineWriter passes what a program writes on, one line at a time, and
// keeps the last lines for error messages.
type lineWriter struct {
	emit func(string)
	keep int

	mu   sync.Mutex
	buf  []byte
	last []string
}

func newLineWriter(emit func(string), keep int) *lineWriter {
	return &lineWriter{emit: emit, keep: keep}
}

// Write passes on every complete line of p.
func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			if len(w.buf) >= maxLine {
				w.line(string(w.buf))
				w.buf = w.buf[:0]
			}
			return len(p), nil
		}
		w.line(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
}

// flush passes on an unfinished last line.
func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.line(string(w.buf))
		w.buf = nil
	}
}

// writeLine passes on one whole line.
func (w *lineWriter) writeLine(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.line(s)
}

func (w *lineWriter) line(s string) {
	s = strings.TrimSuffix(s, "\r")
	w.emit(s)
	if w.keep == 0 {
		return
	}
	if len(w.last) == w.keep {
		w.last = append(w.last[:0], w.last[1:]...)
	}
	w.last = append(w.last, s)
}

// tail returns the last lines written.
func (w *lineWriter) tail() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.last...)
}
