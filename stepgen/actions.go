package stepgen

import (
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// What the generator asks of its host and what the host answers: provider
// calls, their answers, the actions of each event and the replies to
// registrations.

// CallKind says which provider method a Call needs.
type CallKind int

// The provider calls the generator can ask for.
const (
	CallCheck CallKind = iota
	CallDiff
	// CallAnalyze asks the engine to run its analyzers (policies) on the
	// checked resource, New. An error in the answer (a mandatory policy
	// violated, or an analyzer that failed) refuses the resource: the
	// step it comes to fails with that error without calling a provider
	// (Step.Refused).
	CallAnalyze
)

// Call is a provider call the generator needs answered before it can go on
// with a registration. The engine makes the call (concurrently with other
// calls) and passes the result to Generator.Answer.
type Call struct {
	Kind CallKind
	Reg  *Registration
	// Provider is the provider reference and Type the resource type; the
	// engine resolves them the same way steps do.
	Provider string
	Type     string
	Check    providers.CheckRequest
	Diff     providers.DiffRequest
	// DiffAfterCheck, on a Check call, says that the registration needs
	// a Diff as soon as its Check succeeds without failures. Diff then
	// holds that Diff's request, complete but for NewInputs, which are
	// the checked inputs (an empty map for none). A host may make the
	// Diff right after the Check and answer both at once, with Diffed
	// set and Diff and DiffErr filled in (deploy.Ask does); a host that ignores
	// the field is asked for the Diff later, in a call of its own. It is
	// there so that a resource's Check and Diff make one trip through
	// the host rather than two.
	DiffAfterCheck bool
	// phase is where the answer takes the registration; a byte, beside
	// DiffAfterCheck, so that a call and the slice that asks for it fit
	// 224 bytes.
	phase phase
	// New is the checked resource an analyze call is about.
	New *resource.State

	work *work
	// dependent is the resource a delete-before-replace dependents diff
	// is about.
	dependent *resource.State
}

// callAlone is a call and the one-element slice that asks for it,
// allocated together: most events ask for a single call.
type callAlone struct {
	call Call
	list [1]*Call
}

// ask returns the actions that ask for the one call c.
func ask(c Call) Actions {
	b := &callAlone{call: c}
	b.list[0] = &b.call
	return Actions{Calls: b.list[:]}
}

// Answer is the result of a Call.
type Answer struct {
	Call  *Call
	Check providers.CheckResponse
	Diff  providers.DiffResponse
	Err   error
	// Diffed says that a Check call's answer also carries the Diff its
	// DiffAfterCheck asked for: its response in Diff, its error in
	// DiffErr.
	Diffed  bool
	DiffErr error
}

// Actions is what the generator asks the host to do next: provider calls
// to make (each answered through Answer), steps to run (each once the
// steps it Needs have succeeded, its Outcome fed back through Done), and
// registrations to answer. Any may be empty.
type Actions struct {
	Calls   []*Call
	Steps   []*Step
	Replies []Reply
}

// Reply answers a registration: with the resource its step produced, or
// with the error that failed the step.
type Reply struct {
	Reg    *Registration
	Result providers.RegisterResult
	Err    error
	// Step is set when Err is the outcome of the registration's step: it
	// failed, or was skipped. The resource was registered; only its step
	// did not succeed.
	Step *Step
}
