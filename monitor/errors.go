package monitor

import (
	"errors"
	"fmt"
	"strings"

	"github.com/groundwork-iac/groundwork/resource"
)

// ReportedError is how a Deployer fails a registration whose failure the
// deployment reports itself, so that the operation fails with it whatever
// the program does: the resource's step failed, or was skipped because a
// resource it needs did not succeed (URN names the resource), or the
// deployment is ending or the registration's context ended (URN is
// empty). A server can then tell a program that the deployment is going
// away, or that a registration whose step did not succeed is answered,
// rather than hand it an error to report (see monitor/grpcserver); the
// program API does not report it a second time.
type ReportedError struct {
	Err error
	// URN names the resource when Err is the outcome of its step; the
	// resource was registered, only its step did not succeed, so an
	// operation that continues after errors goes on.
	URN resource.URN
	// Skipped says the step never ran, because a resource it needs did
	// not succeed.
	Skipped bool
}

// Error names the resource whose step did not succeed, once.
func (e *ReportedError) Error() string {
	msg := e.Err.Error()
	if e.URN == "" || strings.Contains(msg, string(e.URN)) {
		return msg
	}
	return string(e.URN) + ": " + msg
}

func (e *ReportedError) Unwrap() error { return e.Err }

// Reported reports whether err is a failure the deployment has reported
// itself (a *ReportedError).
func Reported(err error) bool {
	var r *ReportedError
	return errors.As(err, &r)
}

// StepOutcome reports whether err is the outcome of a registered
// resource's step (a *ReportedError naming the resource), and if so the
// resource's URN and whether the step was skipped.
func StepOutcome(err error) (urn resource.URN, skipped, ok bool) {
	var r *ReportedError
	if !errors.As(err, &r) || r.URN == "" {
		return "", false, false
	}
	return r.URN, r.Skipped, true
}

// NoProviderError reports a custom resource that names no provider while
// default providers are disabled for its package.
type NoProviderError struct {
	Type    string
	Package string
}

func (e *NoProviderError) Error() string {
	return fmt.Sprintf("resource of type %s names no provider and default providers are disabled for package %q; pass an explicit provider", e.Type, e.Package)
}
