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
			cause, trace := causeOf(m)
			pe.Reported = append(pe.Reported, cause)
			if trace != "" {
				c.Log(engine.SeverityDebug, "", trace)
			}
		}
		return err
	}
	for _, m := range msgs {
		c.Log(engine.SeverityError, "", m)
	}
	return err
}

// rpcStatus is how a gRPC error that crossed the program's SDK starts: in
// Go "rpc error: code = Unknown desc = ", in Node.js "2 UNKNOWN: ".
var rpcStatus = regexp.MustCompile(`rpc error: code = [A-Za-z]+ desc = |\b\d{1,2} (CANCELLED|UNKNOWN|INVALID_ARGUMENT|` +
	`DEADLINE_EXCEEDED|NOT_FOUND|ALREADY_EXISTS|PERMISSION_DENIED|RESOURCE_EXHAUSTED|FAILED_PRECONDITION|ABORTED|` +
	`OUT_OF_RANGE|UNIMPLEMENTED|INTERNAL|UNAVAILABLE|DATA_LOSS|UNAUTHENTICATED): `)

// nodeUncaught is the header the Pulumi Node.js SDK puts before an
// uncaught exception it logs.
var nodeUncaught = regexp.MustCompile(`^Running program '[^\n]*' failed with an unhandled exception:\s*`)

// causeOf splits an error a program logged into its cause and its stack
// trace ("" if none): a Node.js error's "at ..." lines and what follows
// them (the properties util.inspect prints after the trace). The cause is
// without the wording the Pulumi SDKs wrap it in ("an unhandled error
// occurred: program failed:", "waiting for RPCs:", "Running program ...
// failed with an unhandled exception:", util.inspect's "<ref *1>") and
// without the gRPC status of an engine error that crossed the wire: that
// error was the engine's own message.
func causeOf(msg string) (cause, trace string) {
	msg = strings.TrimSpace(msg)
	msg = strings.TrimSpace(strings.TrimPrefix(msg, "an unhandled error occurred: program failed:"))
	msg = strings.TrimPrefix(msg, "waiting for RPCs: ")
	msg = nodeUncaught.ReplaceAllString(msg, "")
	msg = refMarker.ReplaceAllString(msg, "")
	var kept, stack []string
	for _, line := range strings.Split(msg, "\n") {
		if t := strings.TrimSpace(line); len(stack) > 0 || strings.HasPrefix(t, "at ") && len(kept) > 0 {
			stack = append(stack, line)
			continue
		}
		kept = append(kept, line)
	}
	return rpcStatus.ReplaceAllString(strings.Join(kept, "\n"), ""), strings.Join(stack, "\n")
}

// refMarker is how util.inspect starts an error that refers to itself.
var refMarker = regexp.MustCompile(`^<ref \*\d+> `)
