package display

import (
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/groundwork-iac/groundwork/engine"
)

// The escape sequences of a redraw: move the cursor up n lines, clear a
// line, clear from the cursor to the end of the screen.
const (
	clearLine = "\x1b[2K"
	clearDown = "\x1b[J"
)

func cursorUp(n int) string { return "\x1b[" + strconv.Itoa(n) + "A" }

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// liveFrame is the redraw goroutine of one operation. The Renderer owns
// it: it starts it at the operation's start and stops it (halt) at the
// summary or on Close, always without holding the Renderer's lock, since
// the goroutine takes that lock to redraw.
type liveFrame struct {
	stop chan struct{}
	done chan struct{}
}

func (f *liveFrame) wait() {
	close(f.stop)
	<-f.done
}

// run redraws the frame on every tick until stopped. A frame the Renderer
// no longer shows (r.live != f) is never drawn.
func (r *Renderer) run(f *liveFrame) {
	defer close(f.done)
	t := time.NewTicker(redrawInterval)
	defer t.Stop()
	for {
		select {
		case <-f.stop:
			return
		case <-t.C:
			r.mu.Lock()
			if r.live == f {
				r.redraw(false)
			}
			r.mu.Unlock()
		}
	}
}

// interactiveEvent updates the table with one event. It returns the redraw
// goroutine to stop, if the event ends an operation; the caller stops it
// after releasing the lock.
func (r *Renderer) interactiveEvent(e engine.Event) (stop *liveFrame) {
	if _, ok := e.(engine.OperationStartEvent); ok || r.live == nil {
		if r.live != nil {
			stop = r.live // an operation that never summarized
			r.live = nil
			r.redraw(true)
		}
		r.m = newModel()
		r.frame = frameState{}
		f := &liveFrame{stop: make(chan struct{}), done: make(chan struct{})}
		r.live = f
		go r.run(f)
	}
	switch e := e.(type) {
	case engine.OperationStartEvent:
		r.m.start, r.m.started = e, true
	case engine.StepStartEvent:
		r.noteDiff(r.m.stepStart(e.StepEvent, r.now()), e.StepEvent)
	case engine.StepDoneEvent:
		rw := r.m.stepDone(e)
		r.noteDiff(rw, e.StepEvent)
		if d := drift(e); rw != nil && r.opts.ShowDiff && len(d) > 0 {
			rw.diff = d
		}
	case engine.StepFailedEvent:
		r.m.stepFailed(e)
	case engine.DiagnosticEvent:
		if e.Severity == engine.SeverityDebug && !r.opts.ShowDebug {
			return stop
		}
		line := string(e.Severity) + ": " + e.Message
		if rw := r.m.byURN[e.URN]; rw != nil {
			rw.diags = append(rw.diags, line)
		} else {
			line = string(e.Severity) + ": " + about(e.URN, e.Message) + e.Message
			r.m.general = append(r.m.general, line)
		}
	case engine.SummaryEvent:
		r.m.summary = &e
		if stop == nil {
			stop = r.live
		}
		r.live = nil
		r.redraw(true)
	}
	return stop
}

// noteDiff keeps the property diff of a step on its row when diffs are
// shown.
func (r *Renderer) noteDiff(rw *row, ev engine.StepEvent) {
	if rw == nil || !r.opts.ShowDiff && !ev.Preview {
		return
	}
	if d := propertyDiff(ev, r.opts.ShowDiff); len(d) > 0 {
		rw.diff = d
	}
}

// frameState is what is on the screen: the lines of the last frame drawn.
type frameState struct {
	lines int
	last  string
}

// redraw draws the table over the previous frame. The final frame (the
// operation has ended) is drawn in full with the summary below it, and the
// next operation's table starts under it.
func (r *Renderer) redraw(final bool) {
	width, height := r.size()
	ls := r.frameLines(width)
	if !final && height > 2 && len(ls) > height-1 {
		// Cursor movement cannot reach above the screen: show the
		// title and the newest lines that fit.
		keep := height - 2
		ls = append([]string{ls[0], "  …"}, ls[len(ls)-keep:]...)
	}
	if final && r.m.summary != nil {
		ls = append(ls, "")
		ls = append(ls, r.m.summaryLines(*r.m.summary, r.pal)...)
	}
	text := strings.Join(ls, "\n")
	if text == r.frame.last && !final {
		return
	}
	var b strings.Builder
	if r.frame.lines > 0 {
		b.WriteString(cursorUp(r.frame.lines))
	}
	b.WriteString("\r")
	for _, l := range ls {
		b.WriteString(clearLine + l + "\n")
	}
	b.WriteString(clearDown)
	r.write(b.String())
	r.frame = frameState{lines: len(ls), last: text}
	if final {
		r.frame = frameState{}
	}
}

// size returns the width to cut lines to and the screen's height (0 when
// not known).
func (r *Renderer) size() (width, height int) {
	if r.fd >= 0 {
		if w, h, err := term.GetSize(r.fd); err == nil {
			width, height = w, h
		}
	}
	if r.opts.Width > 0 {
		width = r.opts.Width
	}
	if width <= 0 {
		width = 80
	}
	return width, height
}

// frameLines renders the title, one line per shown row (with its
// failure, diagnostics and diff under it) and the diagnostics that belong
// to no row. Every line is cut to width before it is colored.
func (r *Renderer) frameLines(width int) []string {
	m := r.m
	title := "Running"
	if m.started {
		title = operationTitle(m.start)
	}
	out := []string{r.pal.paint(colorBold, truncate(title, width))}
	var shown []*row
	tw, nw, sw := len("Type"), len("Name"), len("Status")
	now := r.now()
	for _, rw := range m.rows {
		if rw.visible(r.opts.ShowSames) {
			shown = append(shown, rw)
			tw, nw = max(tw, len(rw.typ)), max(nw, len(rw.name))
			sw = max(sw, len([]rune(r.status(rw, now))))
		}
	}
	if len(shown) > 0 {
		head := "    " + pad("Type", tw) + "  " + pad("Name", nw) + "  " + pad("Status", sw)
		if !m.preview() {
			head += "  Time"
		}
		out = append(out, r.pal.paint(colorDim, truncate(strings.TrimRight(head, " "), width)))
	}
	for _, rw := range shown {
		line := " " + pad(rw.symbol(), 2) + " " + pad(rw.typ, tw) + "  " + pad(rw.name, nw) + "  " +
			pad(r.status(rw, now), sw) + "  " + r.elapsed(rw, now)
		color := actions[rw.act].color
		switch {
		case rw.failed:
			color = colorRed
		case rw.skipped:
			color = colorDim
		}
		out = append(out, r.pal.paint(color, truncate(strings.TrimRight(line, " "), width)))
		if rw.message != "" {
			prefix := "error: "
			if rw.skipped {
				prefix = "skipped: "
			}
			for _, l := range wrap("      "+prefix+rw.message, width, "      ") {
				out = append(out, r.pal.paint(color, l))
			}
		}
		for _, d := range rw.diags {
			for _, l := range wrap("      "+d, width, "       ") {
				out = append(out, r.pal.paint(diagColor(d), l))
			}
		}
		out = append(out, r.diffLines(cutAll(rw.diff, width-6), "      ")...)
	}
	if len(m.general) > 0 {
		out = append(out, "")
		for _, d := range m.general {
			for _, l := range wrap(d, width, " ") {
				out = append(out, r.pal.paint(diagColor(d), l))
			}
		}
	}
	return out
}

func cutAll(ls []string, width int) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = truncate(l, width)
	}
	return out
}

func diagColor(line string) string {
	sev, _, _ := strings.Cut(line, ":")
	return severityColor(engine.Severity(sev))
}

// status is a row's status column.
func (r *Renderer) status(rw *row, now time.Time) string {
	info := actions[rw.act]
	switch {
	case rw.failed:
		return "failed"
	case rw.running > 0:
		verb := info.running
		if rw.runningOp == engine.StepDeleteReplaced && !rw.dbr {
			verb = "deleting original"
		}
		frame := spinner[int(now.UnixNano()/int64(redrawInterval))%len(spinner)]
		return frame + " " + verb
	case rw.skipped:
		return "skipped"
	case r.m.preview():
		return info.verb
	}
	return info.done
}

// elapsed is a row's time column: the time its steps took, counting the
// running one up to now. Previews show none.
func (r *Renderer) elapsed(rw *row, now time.Time) string {
	if r.m.preview() || rw.skipped {
		return ""
	}
	d := rw.took
	if rw.running > 0 {
		d += now.Sub(rw.since)
	}
	return formatDuration(d)
}
