package langhost

import (
	"errors"
	"regexp"
	"strings"
	"sync"

	"github.com/groundwork-iac/groundwork/engine"
)

// exitLoggedError is the status the Pulumi SDKs exit with after logging
// the error that ended the program: the log holds the cause, the status
// says only that it was logged.
const exitLoggedError = 32

// reported holds the errors a program logs without naming a resource
// until it exits: when it then exits with exitLoggedError they are the
// cause of its failure and become the ProgramError's message, said once;
// otherwise they are passed on as diagnostics.
type reported struct {
	mu   sync.Mutex
	msgs []string
}

// hold keeps m if it is such an error and reports whether it did.
func (r *reported) hold(m engine.Severity, urn, msg string) bool {
	if m != engine.SeverityError || urn != "" {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, msg)
	return true
}

// settle ends the run whose outcome is err: the held errors become a
// logged-error exit's message, or diagnostics of c.
func (r *reported) settle(c *engine.Context, err error) error {
	r.mu.Lock()
	msgs := r.msgs
	r.msgs = nil
	r.mu.Unlock()
	var pe *ProgramError
	if errors.As(err, &pe) && pe.ExitCode == exitLoggedError && pe.Crash == "" && len(msgs) > 0 {
		for _, m := range msgs {
			pe.Reported = append(pe.Reported, causeOf(m))
		}
		return err
	}
	for _, m := range msgs {
		c.Log(engine.SeverityError, "", m)
	}
	return err
}

// rpcStatus is how a gRPC error that crossed the program's SDK starts.
var rpcStatus = regexp.MustCompile(`rpc error: code = [A-Za-z]+ desc = `)

// causeOf is the cause in an error a program logged, without the wording
// the Pulumi Go SDK wraps it in ("an unhandled error occurred: program
// failed:", "waiting for RPCs:") nor the gRPC status of an engine error
// that crossed the wire: that error was the engine's own message.
func causeOf(msg string) string {
	msg = strings.TrimSpace(msg)
	msg = strings.TrimSpace(strings.TrimPrefix(msg, "an unhandled error occurred: program failed:"))
	msg = strings.TrimPrefix(msg, "waiting for RPCs: ")
	return rpcStatus.ReplaceAllString(msg, "")
}
