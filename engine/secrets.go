package engine

import (
	"slices"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// Secrets are masked at the source. An operation's filter (d.secrets,
// a *resource.SecretFilter) learns the plaintext of every secret before
// any provider sees it: the stack's configuration when the operation
// starts, a step's old and new inputs and old outputs before its provider
// is called, the outputs it produced once it returns, a call's inputs
// before Check or Diff. Whatever comes back is masked before anything is
// built from it: a step's error and the init errors recorded in the state
// (maskOutcome), a call's error and check failures (maskAnswer), every
// event's message (maskEvent), and the operation's error (run). The
// failure of a function applied to a secret is masked where it arises,
// with the secrets it was given (apply.go), since those may never reach
// a resource.

// learnStep adds the secrets a step hands its provider.
func (d *deployment) learnStep(s *stepgen.Step) {
	if s.Old != nil {
		d.secrets.AddMap(s.Old.Inputs)
		d.secrets.AddMap(s.Old.Outputs)
	}
	if s.New != nil {
		d.secrets.AddMap(s.New.Inputs)
	}
}

// learnCall adds the secrets a Check or Diff hands its provider.
func (d *deployment) learnCall(c *stepgen.Call) {
	for _, m := range []resource.PropertyMap{c.Check.Olds, c.Check.News, c.Diff.OldInputs, c.Diff.OldOutputs, c.Diff.NewInputs} {
		d.secrets.AddMap(m)
	}
	if c.New != nil {
		d.secrets.AddMap(c.New.Inputs)
	}
}

// maskOutcome adds the secrets a step produced and masks what it reports:
// its error and the init errors of the state it leaves.
func (d *deployment) maskOutcome(o stepgen.Outcome) stepgen.Outcome {
	if o.New != nil {
		d.secrets.AddMap(o.New.Inputs)
		d.secrets.AddMap(o.New.Outputs)
		if reasons := maskAll(d.secrets, o.New.InitErrors); reasons != nil {
			// The state is the step's own copy (stepgen.Apply fills a
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
