package main

import (
	"io"
	"os"
	"sync"
	"sync/atomic"

	"golang.org/x/term"

	"github.com/groundwork-iac/groundwork/display"
)

// noticeBoard is gw's stderr. While an operation's live table is on the
// terminal, what gw writes to stderr (what an interrupt does, a plugin's
// log) is written above the table, which is drawn again below it: written
// straight to the terminal, the table's next redraw, which moves the
// cursor up over its own lines only, would write over it.
type noticeBoard struct {
	w io.Writer // stderr

	// changing is set while an operation that changes the stack runs its
	// steps (not while it previews or asks): what an interrupt says about
	// steps in flight is true only then.
	changing atomic.Bool

	mu    sync.Mutex
	table *display.Renderer // the live table, if stderr shares its terminal
}

func (b *noticeBoard) Write(p []byte) (int, error) {
	b.mu.Lock()
	t := b.table
	b.mu.Unlock()
	if t == nil {
		return b.w.Write(p)
	}
	t.Notice(string(p))
	return len(p), nil
}

// above makes the board write above r's table while r draws one on a
// terminal that stderr shows too; the function it returns ends that.
func (b *noticeBoard) above(r *display.Renderer) func() {
	f, ok := b.w.(*os.File)
	if r.Mode() != display.ModeInteractive || !ok || !term.IsTerminal(int(f.Fd())) {
		return func() {}
	}
	b.mu.Lock()
	b.table = r
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		b.table = nil
		b.mu.Unlock()
	}
}

// changingStack marks w, if it is gw's notice board, as showing an
// operation that changes the stack until the function it returns is
// called.
func changingStack(w io.Writer) func() {
	b, ok := w.(*noticeBoard)
	if !ok {
		return func() {}
	}
	b.changing.Store(true)
	return func() { b.changing.Store(false) }
}

// changesStack reports whether w shows an operation changing the stack;
// a writer that is not gw's notice board may.
func changesStack(w io.Writer) bool {
	b, ok := w.(*noticeBoard)
	return !ok || b.changing.Load()
}
