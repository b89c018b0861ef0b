package engine

import (
	"errors"
	"fmt"

	"github.com/groundwork-iac/groundwork/dag"
	"github.com/groundwork-iac/groundwork/resource"
)

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
