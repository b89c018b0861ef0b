package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/groundwork-iac/groundwork/dag"
	"github.com/groundwork-iac/groundwork/resource"
)

// aboutResource is the text of err, an error about the resource urn,
// naming the resource once: as err's text names it when it does (a typed
// error such as *ProtectedError names its resource, since it is also read
// alone), and prefixed with the URN when it does not (a provider's failure,
// which the step generator reports without the resource; see
// deploy.Apply).
func aboutResource(urn resource.URN, err error) string {
	msg := err.Error()
	if urn == "" || strings.Contains(msg, string(urn)) {
		return msg
	}
	return string(urn) + ": " + msg
}

// stepMessage is what a step's StepFailedEvent says: why it failed, or,
// for a step skipped because a step it waits for did not succeed, which
// one — without naming the step's own resource, which the event names, or
// repeating that step's failure, which its own event reports.
func stepMessage(err error, skipped bool) string {
	var skip *dag.SkippedError
	if !skipped || !errors.As(err, &skip) {
		return err.Error()
	}
	if skip.Dependency == "" {
		return skip.Cause.Error()
	}
	if dep := resource.URN(skip.Dependency); dep.IsValid() {
		return fmt.Sprintf("waits for %s %q, which did not succeed", dep.Type(), dep.Name())
	}
	return fmt.Sprintf("waits for %s, which did not succeed", skip.Dependency)
}
