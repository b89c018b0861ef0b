package display

import (
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/groundwork-iac/groundwork/engine"
)

// Mode selects how a Renderer writes the event stream.
type Mode int

// The modes.
const (
	// ModeAuto is ModeInteractive when the writer is a terminal and
	// ModePlain otherwise.
	ModeAuto Mode = iota
	// ModeInteractive redraws a table of resources in place.
	ModeInteractive
	// ModePlain writes one line per event, without escape codes unless
	// color is forced.
	ModePlain
	// ModeJSON writes each event as one JSON object per line.
	ModeJSON
)

// String names the mode.
func (m Mode) String() string {
	switch m {
	case ModeInteractive:
		return "interactive"
	case ModePlain:
		return "plain"
	case ModeJSON:
		return "json"
	}
	return "auto"
}

// ColorMode says whether a Renderer colors its output.
type ColorMode int

// The color modes.
const (
	// ColorAuto colors interactive output unless the NO_COLOR environment
	// variable is set or TERM is "dumb"; plain output is never colored.
	ColorAuto ColorMode = iota
	// ColorNever writes no color codes.
	ColorNever
	// ColorAlways colors interactive and plain output.
	ColorAlways
)

// Options configure a Renderer. The zero value renders in ModeAuto with
// automatic color, hiding unchanged resources and showing property diffs
// only in previews.
type Options struct {
	Mode Mode
	// Width is the width in columns that interactive rows are cut to. Zero
	// means the terminal's width, or 80 if it cannot be known. Plain and
	// JSON output are never cut.
	Width int
	// ShowSames lists resources that did not change.
	ShowSames bool
	// ShowDiff shows property-level changes for every operation, the
	// inputs of created and deleted resources, and the outputs a refresh
	// found drifted. Without it, changes are
	// shown for updates and replacements in previews only.
	ShowDiff bool
	// ShowDebug shows debug diagnostics, which are hidden otherwise.
	ShowDebug bool
	// Color says whether to color the output; see ColorMode.
	Color ColorMode
}

// redrawInterval bounds how often the interactive table is redrawn.
const redrawInterval = 100 * time.Millisecond

// Renderer writes an engine's event stream to a writer. Its Event method
// is meant to be used as engine.Config.OnEvent; it may be called from any
// goroutine, and one Renderer may follow several operations in turn.
//
// In interactive mode the Renderer owns a goroutine that redraws the table
// while an operation runs; it stops when the operation's SummaryEvent
// arrives or when Close is called. Call Close when done with the Renderer.
type Renderer struct {
	opts Options
	mode Mode
	pal  palette
	fd   int // the terminal's descriptor, or -1
	now  func() time.Time

	mu     sync.Mutex
	w      io.Writer
	m      *model
	live   *liveFrame // interactive only: the running redraw goroutine
	frame  frameState // interactive only: what is on the screen
	closed bool
}

// New returns a Renderer writing to w.
func New(w io.Writer, opts Options) *Renderer {
	r := &Renderer{opts: opts, w: w, fd: -1, now: time.Now, m: newModel()}
	if f, ok := w.(interface{ Fd() uintptr }); ok && term.IsTerminal(int(f.Fd())) {
		r.fd = int(f.Fd())
	}
	r.mode = opts.Mode
	if r.mode == ModeAuto {
		r.mode = ModePlain
		if r.fd >= 0 {
			r.mode = ModeInteractive
		}
	}
	r.pal = newPalette(r.colored())
	return r
}

// colored decides whether output gets color codes.
func (r *Renderer) colored() bool {
	switch {
	case r.mode == ModeJSON || r.opts.Color == ColorNever:
		return false
	case r.opts.Color == ColorAlways:
		return true
	}
	return r.mode == ModeInteractive && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}

// Mode returns the mode the Renderer writes in (never ModeAuto).
func (r *Renderer) Mode() Mode { return r.mode }

// Event renders one event. Events after Close are ignored.
func (r *Renderer) Event(e engine.Event) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	var stop *liveFrame
	switch r.mode {
	case ModeJSON:
		r.writeJSON(e)
	case ModeInteractive:
		stop = r.interactiveEvent(e)
	default:
		r.plainEvent(e)
	}
	r.mu.Unlock()
	if stop != nil {
		stop.wait()
	}
}

// Close stops the redraw goroutine, if one runs, after drawing the table a
// last time. It is safe to call more than once; it always returns nil.
func (r *Renderer) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	stop := r.live
	if stop != nil {
		r.live = nil
		r.redraw(true)
	}
	r.mu.Unlock()
	if stop != nil {
		stop.wait()
	}
	return nil
}

// write sends s to the writer. Errors are dropped: a display that cannot
// be written must not fail the deployment it describes.
func (r *Renderer) write(s string) {
	_, _ = io.WriteString(r.w, s)
}
