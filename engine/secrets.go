package engine

import (
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// Secrets are masked at the source. An operation's filter (d.secrets,
// a *resource.SecretFilter) learns the plaintext of every secret before
// any provider sees it, each where it enters the operation, once: the
// stack's configuration when the operation starts, the loaded snapshot's
// inputs and outputs before any provider is loaded (learnSnapshot), and
// what the steps and calls of the deployment loop hand their providers
// and get back (package deploy, secrets.go). So an unchanged resource
// costs a walk of its loaded state, its registered and its checked
// inputs, whatever it holds, and no more.
//
// Whatever comes back is masked before anything is built from it: a
// step's error and the init errors recorded in the state, a call's error
// and check failures (package deploy), every event's message
// (maskEvent), and the operation's error (run). The failure of a
// function applied to a secret is masked where it arises, with the
// secrets it was given (apply.go), since those may never reach a
// resource.

// learnSnapshot adds the secrets of the states an operation starts from.
func (d *deployment) learnSnapshot(snap *state.Snapshot) {
	for _, s := range snap.Resources {
		d.learnState(s)
	}
	for _, op := range snap.PendingOperations {
		if op.Resource != nil {
			d.learnState(op.Resource)
		}
	}
}

// learnState adds the secrets of a state's inputs and outputs.
func (d *deployment) learnState(s *resource.State) {
	d.secrets.AddMap(s.Inputs)
	d.secrets.AddMap(s.Outputs)
}

// maskEvent masks the messages an event carries. Its property values are
// masked when it is built (resource.PropertyMap.MaskSecrets).
func maskEvent(f *resource.SecretFilter, e Event) Event {
	switch ev := e.(type) {
	case StepFailedEvent:
		ev.Message = f.Mask(ev.Message)
		return ev
	case DiagnosticEvent:
		ev.Message = f.Mask(ev.Message)
		return ev
	case SummaryEvent:
		ev.Error = f.Mask(ev.Error)
		return ev
	}
	return e
}
