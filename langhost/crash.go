package langhost

import (
	"regexp"
	"strings"
)

// crashFilter tells a Go program's crash report apart from the rest of
// what it writes to stderr. A crash report is a "panic: " or "fatal
// error: " line, the rest of its message, and then a goroutine trace: the
// message becomes the ProgramError's, and the trace goes to the debug
// diagnostics instead of burying the message. Lines that turn out to be
// no crash report are passed on as they came.
type crashFilter struct {
	info, debug func(string)

	held    []string // from a "panic: " line until its trace begins
	trace   bool     // in the goroutine trace
	message []string // the crash message, once its trace began
}

// maxCrashMessage bounds the lines held as a possible crash message.
const maxCrashMessage = 50

var goroutineHeader = regexp.MustCompile(`^goroutine \d+ \[`)

func (f *crashFilter) line(s string) {
	switch {
	case f.trace:
		f.debug(s)
	case f.held == nil && (strings.HasPrefix(s, "panic: ") || strings.HasPrefix(s, "fatal error: ")):
		f.held = []string{s}
	case f.held != nil && goroutineHeader.MatchString(s):
		f.message, f.held, f.trace = f.held, nil, true
		f.debug(s)
	case f.held != nil && len(f.held) < maxCrashMessage:
		f.held = append(f.held, s)
	case f.held != nil:
		f.release()
		f.info(s)
	default:
		f.info(s)
	}
}

// release passes held lines on: they were no crash report after all.
func (f *crashFilter) release() {
	for _, l := range f.held {
		f.info(l)
	}
	f.held = nil
}

// crash returns the crash message, or "" if the program did not crash:
// the text after "panic: ", without the blank line before the trace.
func (f *crashFilter) crash() string {
	if f.message == nil {
		return ""
	}
	// The runtime indents a message's later lines with tabs.
	lines := make([]string, 0, len(f.message))
	for _, l := range f.message {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	msg := strings.Join(lines, "\n")
	return strings.TrimPrefix(strings.TrimPrefix(msg, "panic: "), "fatal error: ")
}

// sdkConfigCommand is the command the Pulumi SDKs name in their error
// for a missing config value.
const sdkConfigCommand = "`pulumi config set"

// withConfigCommand has a message name the host's command for setting
// config (Program.ConfigCommand) where the SDKs name Pulumi's.
func withConfigCommand(msg, command string) string {
	if command == "" {
		return msg
	}
	return strings.ReplaceAll(msg, sdkConfigCommand, "`"+command)
}
