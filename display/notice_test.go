package display

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
)

// A notice written while the live table runs takes the table's place and
// the table is drawn again under it, so that the next redraw, which moves
// up over the table's lines only, leaves the notice on the screen.
func TestNoticeAboveTheLiveTable(t *testing.T) {
	var buf bytes.Buffer
	r := New(&buf, Options{Mode: ModeInteractive, Width: 80, Color: ColorNever})
	defer r.Close()
	r.Event(engine.OperationStartEvent{Operation: engine.OpUp, Project: "web", Stack: "dev"})
	r.Event(engine.StepStartEvent{StepEvent: step(engine.StepCreate, thing, "slow", false, nil, nil)})
	r.mu.Lock()
	r.redraw(false)
	drawn := buf.Len()
	r.mu.Unlock()

	r.Notice("interrupted: stopping\n")
	r.mu.Lock()
	after := buf.String()[drawn:]
	lines := r.frame.lines
	r.mu.Unlock()
	want := cursorUp(3) + "\r" + clearDown + "interrupted: stopping\n" + "\r" + clearLine + "Updating web/dev\n"
	if !strings.HasPrefix(after, want) {
		t.Errorf("after the notice:\n%q\nwant it to start with\n%q", after, want)
	}
	if lines != 3 {
		t.Errorf("the table drawn under the notice has %d lines; want 3", lines)
	}
	// The next redraws move up over the table, not the notice.
	time.Sleep(3 * redrawInterval)
	r.mu.Lock()
	out := buf.String()
	r.mu.Unlock()
	if strings.Contains(out[drawn:], cursorUp(4)) {
		t.Errorf("a redraw moved over the notice:\n%q", out[drawn:])
	}
}

// Outside interactive mode, or with no operation running, a notice is
// written as it is.
func TestNoticeWithoutLiveTable(t *testing.T) {
	for _, mode := range []Mode{ModePlain, ModeInteractive} {
		var buf bytes.Buffer
		r := New(&buf, Options{Mode: mode, Width: 80, Color: ColorNever})
		r.Notice("note\n")
		if buf.String() != "note\n" {
			t.Errorf("mode %v: %q", mode, buf.String())
		}
		r.Close()
	}
}
