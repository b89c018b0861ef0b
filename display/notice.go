package display

// Notice writes text, a message of the program's own that belongs to no
// event (such as what an interrupt does), so that the live table does not
// draw over it: in interactive mode, while an operation runs, the table is
// cleared, text written in its place, and the table drawn again below it.
// Otherwise text is written as it is. text should end with a newline.
func (r *Renderer) Notice(text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mode != ModeInteractive || r.live == nil || r.closed {
		r.write(text)
		return
	}
	if r.frame.lines > 0 {
		r.write(cursorUp(r.frame.lines) + "\r" + clearDown)
	}
	r.write(text)
	r.frame = frameState{}
	r.redraw(false)
}
