package plugin

import "sync"

// tailLines is how many of its last stderr lines a plugin's errors quote.
const tailLines = 20

// output is what a plugin writes, as lines: it keeps the last tailLines
// of stderr for errors to quote and passes every line (of stdout after
// the port, and of stderr) to the diagnostics function.
//
// Until the plugin has started, the lines are held: a plugin that fails
// to start is reported once, by the error that quotes the end of its
// stderr, not also line by line as it wrote them. A start that succeeds
// passes the held lines on in order (release); one that fails passes on
// only what its error does not quote (fail).
type output struct {
	diag func(string) // nil: lines are only kept for the tail

	mu    sync.Mutex
	tail  []string
	held  []heldLine
	open  bool // the start is over: lines go straight to diag
	nerrs int  // the stderr lines held
}

// heldLine is a line written before the start was over.
type heldLine struct {
	text   string
	stderr int // its index among the held stderr lines; -1 for stdout
}

// stdout takes a stdout line that is not the port.
func (o *output) stdout(line string) { o.add(line, false) }

// stderr takes a stderr line.
func (o *output) stderr(line string) { o.add(line, true) }

// add keeps line in the tail if it is stderr's, and passes it on or holds
// it. Lines are passed on under the lock, so that they keep their order
// across release.
func (o *output) add(line string, stderr bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	idx := -1
	if stderr {
		if len(o.tail) == tailLines {
			copy(o.tail, o.tail[1:])
			o.tail = o.tail[:tailLines-1]
		}
		o.tail = append(o.tail, line)
		idx = o.nerrs
		o.nerrs++
	}
	switch {
	case o.diag == nil:
	case o.open:
		o.diag(line)
	default:
		o.held = append(o.held, heldLine{line, idx})
	}
}

// lastLines returns the last stderr lines, for an error to quote.
func (o *output) lastLines() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.tail...)
}

// release ends the start of a plugin that started: the held lines are
// passed on, and later lines go straight through.
func (o *output) release() { o.settle(false) }

// fail ends the start of a plugin that did not start, once it has ended
// and its output has been read. With quoted set, the error that reports
// it quotes the tail (lastLines): the held lines are passed on but for
// those, which the error says; otherwise all are.
func (o *output) fail(quoted bool) { o.settle(quoted) }

func (o *output) settle(quoted bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.open {
		return
	}
	o.open = true
	firstQuoted := o.nerrs - len(o.tail)
	for _, h := range o.held {
		if quoted && h.stderr >= firstQuoted {
			continue
		}
		if o.diag != nil {
			o.diag(h.text)
		}
	}
	o.held = nil
}
