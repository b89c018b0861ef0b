package deploy

import (
	"slices"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// The host masks secrets where they enter and leave its steps and calls,
// with the operation's filter (Config.Secrets), which has learned the
// secrets of the stack's configuration and of the snapshot the operation
// started from before any provider was loaded. The host adds, each where
// it enters, once: a registration's inputs when they are checked
// (learnCall), the inputs a Check returns (maskAnswer), and what a step
// that calls its provider hands it and gets back (learnStep,
// maskOutcome). Everything else a provider is handed is built from those:
// an old state is either loaded or left by a step of this operation, a
// step that calls no provider (same, replace, outputs, discard) leaves
// registered inputs and old outputs (a component's registered inputs,
// which no Check sees, are learned by the step), and a Diff's new inputs
// are a Check's answer.
//
// Whatever comes back is masked before anything is built from it: a
// step's error and the init errors recorded in the state (maskOutcome),
// and a call's error and check failures (maskAnswer).

// learnState adds the secrets of a state's inputs and outputs.
func (h *Host) learnState(s *resource.State) {
	h.cfg.Secrets.AddMap(s.Inputs)
	h.cfg.Secrets.AddMap(s.Outputs)
}

// learnStep adds the secrets a step hands its provider that the
// operation has not seen: its new inputs (a Read's or an import's are
// registered inputs no Check saw). Its old state is loaded or left by a
// step of this operation, learned then. A step that calls no provider
// hands nothing; only a component's inputs, which no Check saw, are
// learned then.
func (h *Host) learnStep(s *stepgen.Step) {
	if !callsProvider(s.Op) {
		if s.New != nil && !s.New.Custom {
			h.cfg.Secrets.AddMap(s.New.Inputs)
		}
		return
	}
	if s.New != nil {
		h.cfg.Secrets.AddMap(s.New.Inputs)
	}
}

// callsProvider says whether applying a step of operation op calls the
// resource's provider (Apply).
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
func (h *Host) learnCall(c *stepgen.Call) {
	if c.Kind == stepgen.CallCheck {
		learnMap(h.cfg.Secrets, c.Check.News)
	}
}

// learnMap adds the secrets of m to f, as f.AddMap does, passing over its
// plain scalars (most inputs) without a call per value: every Check's
// inputs are learned twice, given and answered (learnCall, maskAnswer).
func learnMap(f *resource.SecretFilter, m resource.PropertyMap) {
	for _, v := range m {
		if v.IsString() || v.IsNumber() || v.IsBool() {
			continue
		}
		f.Add(v)
	}
}

// maskOutcome adds the secrets a step's provider produced and masks what it reports:
// its error and the init errors of the state it leaves.
func (h *Host) maskOutcome(o stepgen.Outcome) stepgen.Outcome {
	if o.New != nil {
		if callsProvider(o.Step.Op) {
			h.learnState(o.New)
		}
		if reasons := maskAll(h.cfg.Secrets, o.New.InitErrors); reasons != nil {
			// The state is the step's own copy (Apply fills a
			// fresh one in when a provider reports init errors), but
			// it is copied again rather than changed in place.
			n := *o.New
			n.InitErrors = reasons
			o.New = &n
		}
	}
	o.Err = h.cfg.Secrets.MaskError(o.Err)
	return o
}

// maskAnswer adds the secrets a Check returned and masks the answer's
// errors and check failures.
func (h *Host) maskAnswer(a *stepgen.Answer) {
	learnMap(h.cfg.Secrets, a.Check.Inputs)
	a.Err = h.cfg.Secrets.MaskError(a.Err)
	a.DiffErr = h.cfg.Secrets.MaskError(a.DiffErr)
	if len(a.Check.Failures) > 0 {
		fs := slices.Clone(a.Check.Failures)
		for i := range fs {
			fs[i].Reason = h.cfg.Secrets.Mask(fs[i].Reason)
			fs[i].Property = h.cfg.Secrets.Mask(fs[i].Property)
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
