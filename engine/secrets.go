package engine

import (
	"slices"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// Secrets are masked at the source. An operation's filter (d.secrets,
// a *resource.SecretFilter) learns the plaintext of every secret before
// any provider sees it, each where it enters the operation, once: the
// stack's configuration when the operation starts, the loaded snapshot's
// inputs and outputs before any provider is loaded (learnSnapshot), a
// registration's inputs when they are checked (learnCall), the inputs a
// Check returns (maskAnswer), and what a step that calls its provider
// hands it and gets back (learnStep, maskOutcome). Everything else a
// provider is handed is built from those: an old state is either loaded
// or left by a step of this operation, a step that calls no provider
// (same, replace, outputs, discard) leaves registered inputs and old
// outputs (a component's registered inputs, which no Check sees, are
// learned by the step), and a Diff's new inputs are a Check's answer. So an unchanged
// resource costs a walk of its loaded state, its registered and its
// checked inputs, whatever it holds, and no more.
//
// Whatever comes back is masked before anything is built from it: a
// step's error and the init errors recorded in the state (maskOutcome),
// a call's error and check failures (maskAnswer), every event's message
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

// learnStep adds the secrets a step hands its provider that the
// operation has not seen: its new inputs (a Read's or an import's are
// registered inputs no Check saw). Its old state is loaded or left by a
// step of this operation, learned then. A step that calls no provider
// hands nothing; only a component's inputs, which no Check saw, are
// learned then.
func (d *deployment) learnStep(s *stepgen.Step) {
	if !callsProvider(s.Op) {
		if s.New != nil && !s.New.Custom {
			d.secrets.AddMap(s.New.Inputs)
		}
		return
	}
	if s.New != nil {
		d.secrets.AddMap(s.New.Inputs)
	}
}

// callsProvider says whether applying a step of operation op calls the
// resource's provider (deploy.Apply).
func callsProvider(op stepgen.Op) bool {
	switch op {
	case stepgen.OpSame, stepgen.OpReplace, stepgen.OpOutputs, stepgen.OpDiscard:
		return false
	}
	return true
}

// learnCall adds the secrets a Check or Diff hands its provider that the
// operation has not seen: the registered inputs a Check is given. Its old
// inputs, and a Diff's old state, are an old state's (learned when loaded
// or when the step that left it ended); a Diff's new inputs are those a
// Check returned (maskAnswer).
func (d *deployment) learnCall(c *stepgen.Call) {
	if c.Kind == stepgen.CallCheck {
		d.secrets.AddMap(c.Check.News)
	}
}

// maskOutcome adds the secrets a step's provider produced and masks what it reports:
// its error and the init errors of the state it leaves.
func (d *deployment) maskOutcome(o stepgen.Outcome) stepgen.Outcome {
	if o.New != nil {
		if callsProvider(o.Step.Op) {
			d.learnState(o.New)
		}
		if reasons := maskAll(d.secrets, o.New.InitErrors); reasons != nil {
			// The state is the step's own copy (deploy.Apply fills a
			// fresh one in when a provider reports init errors), but
			// it is copied again rather than changed in place.
			n := *o.New
			n.InitErrors = reasons
			o.New = &n
		}
	}
	o.Err = d.secrets.MaskError(o.Err)
	return o
}

// maskAnswer adds the secrets a Check returned and masks the answer's
// errors and check failures.
func (d *deployment) maskAnswer(a *stepgen.Answer) {
	d.secrets.AddMap(a.Check.Inputs)
	a.Err = d.secrets.MaskError(a.Err)
	a.DiffErr = d.secrets.MaskError(a.DiffErr)
	if len(a.Check.Failures) > 0 {
		fs := slices.Clone(a.Check.Failures)
		for i := range fs {
			fs[i].Reason = d.secrets.Mask(fs[i].Reason)
			fs[i].Property = d.secrets.Mask(fs[i].Property)
		}
		a.Check.Failures = fs
	}
}

// maskAll returns ss masked, or nil when no string holds a secret.
func maskAll(f *resource.SecretFilter, ss []string) []string {
	var out []string
	for i, s := range ss {
		if m := f.Mask(s); m != s {
			if out == nil {
				out = slices.Clone(ss)
			}
			out[i] = m
		}
	}
	return out
}

// maskEvent masks the messages an event carries. Its property values are
// masked when it is built (maskSecrets).
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
