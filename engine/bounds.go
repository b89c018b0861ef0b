package engine

import (
	"time"

	"github.com/groundwork-iac/groundwork/deploy"
)

// An operation's provider calls are bounded by a deploy.Bounds, which the
// operation makes with its grace period (the GracePeriod option) and
// hands the deployment loop as its provider source: a call that changes
// the world has the grace period after cancellation to answer, or fails
// with an *UnansweredError and stays a pending operation; no call holds
// the operation past the grace period. The deploy package documents the
// rules.

// DefaultGracePeriod is the grace period of an operation run without the
// GracePeriod option.
const DefaultGracePeriod = deploy.DefaultGracePeriod

// TimeoutError is deploy.TimeoutError: the cause of a provider call that
// outlived its resource's custom timeout (the CustomTimeouts resource
// option).
type TimeoutError = deploy.TimeoutError

// UnansweredError is deploy.UnansweredError: it fails a step whose
// provider call changes the world and did not answer in time (the
// operation was cancelled and the grace period passed, the resource's
// custom timeout did, or the provider was lost before it answered). The
// step stays recorded as a pending operation that names its resource:
// the next operation warns of it, and a refresh resolves it.
type UnansweredError = deploy.UnansweredError

// grace returns the operation's grace period.
func (d *deployment) grace() time.Duration {
	if d.opts.grace == nil {
		return DefaultGracePeriod
	}
	return max(*d.opts.grace, 0)
}
