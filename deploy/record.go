package deploy

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// What a step leaves behind: its entries in the journal and the host's
// bookkeeping; the operation's observer records the rest.

// endEntry returns the entry that records how a step ended (seq is its
// begin's, 0 for none), and whether there is one to record; o's outputs
// hold only what the state can record (dropUnrecordable).
func (h *Host) endEntry(o stepgen.Outcome, seq uint64) (state.Entry, bool) {
	s := o.Step
	if o.Err != nil && !o.Partial() {
		if seq == 0 {
			return state.Entry{}, false
		}
		return state.Entry{Kind: state.EntryFailure, Begin: seq}, true
	}
	old, new := o.Record()
	e := state.Entry{Kind: state.EntryWrite, Old: old, New: new, Condemn: o.Condemns(), With: s.With()}
	switch {
	case seq != 0:
		e.Kind, e.Begin = state.EntrySuccess, seq
	case old == nil && new == nil && len(e.With) == 0,
		(s.Op == stepgen.OpSame || s.Op == stepgen.OpOutputs) && sameRecord(old, new):
		return state.Entry{}, false
	}
	return e, true
}

// endFailed is the failure of a step whose end the journal could not
// record. A resource the step brought into existence fails it with an
// *UnrecordedError naming its ID: an ID is never held only in memory.
func endFailed(o stepgen.Outcome, err error) error {
	if n := createdBy(o); n != nil {
		return &UnrecordedError{URN: n.URN, Type: n.Type, ID: n.ID, Err: err}
	}
	return fmt.Errorf("recording the outcome of its %s: %w", o.Step.Op, err)
}

// createdBy returns the resource o's step brought into existence (a
// create, or a replacement's create, that the provider answered with an
// ID), or nil.
func createdBy(o stepgen.Outcome) *resource.State {
	n := o.New
	if (o.Err != nil && !o.Partial()) || n == nil || !n.Custom || n.ID == "" {
		return nil
	}
	if old := o.Step.Old; old != nil && old.ID == n.ID {
		return nil
	}
	return n
}

// dropUnrecordable removes from the outputs a provider answered with the
// values the state cannot record, warning about each: unknown ones, after
// a step that ran for real (only previews hold unknowns), and ones nested
// deeper than resource.MaxDepth. Recording the rest (the resource's ID
// above all) matters more than the values it cannot keep. An unchanged
// resource's outputs are the ones its record holds already (a
// component's are none), so it has nothing to drop.
func (h *Host) dropUnrecordable(o stepgen.Outcome) {
	n := o.New
	if n == nil || len(n.Outputs) == 0 || o.Step.Op == stepgen.OpSame {
		return
	}
	unknown := func(v resource.PropertyValue) bool { return !h.cfg.Preview && v.ContainsUnknowns() }
	var dropped []string
	for k, v := range n.Outputs {
		if unknown(v) || v.TooDeep() {
			dropped = append(dropped, string(k))
		}
	}
	if len(dropped) == 0 {
		return
	}
	slices.Sort(dropped)
	outputs := n.Outputs.Copy()
	for _, k := range dropped {
		delete(outputs, resource.PropertyKey(k))
	}
	n.Outputs = outputs
	h.cfg.Observer.Warn(n.URN, fmt.Sprintf(
		"the provider's answer to the %s holds output %s, which the state cannot record (an unknown value outside a preview, "+
			"or one nested deeper than %d levels); the resource is recorded without it", o.Step.Op, strings.Join(dropped, ", "), resource.MaxDepth))
}

// UnrecordedError reports a resource a provider created whose record
// could not be written to the stack's state (a full disk, a lost lock, a
// failing store): it exists, and this error is the only place its ID is
// known. Import it (gw import, Engine.Import, or the Import resource
// option) to bring it under management again.
type UnrecordedError struct {
	URN  resource.URN
	Type string
	ID   resource.ID
	// Err is why the record could not be written.
	Err error
}

// Error gives the resource's ID and how to import it. The operation's
// error names the resource before it.
func (e *UnrecordedError) Error() string {
	return fmt.Sprintf("created with ID %q, but recording it failed, so the stack's state does not record it "+
		"(it stays pending, without its ID); to manage it, import it by that ID once the state can be written "+
		"(gw import %s %s %s): %v", e.ID, e.Type, e.URN.Name(), e.ID, e.Err)
}

// Unwrap returns why the record could not be written.
func (e *UnrecordedError) Unwrap() error { return e.Err }

// record takes note of a step's outcome (what the operation's bookkeeping
// needs: what failed, what it produced, what a refresh found gone) and
// tells the observer.
func (h *Host) record(o stepgen.Outcome, took time.Duration) {
	s := o.Step
	h.mu.Lock()
	switch {
	case o.Err == nil:
		if o.New != nil {
			h.produced = append(h.produced, o.New)
		}
		if o.Gone && s.Old != nil {
			h.gone = append(h.gone, s.Old)
		}
	case !o.Skipped:
		h.failed++
	}
	if o.Err != nil && s.Old != nil {
		if h.unfinished == nil {
			h.unfinished = make(map[*resource.State]bool)
		}
		h.unfinished[s.Old] = true
	}
	h.mu.Unlock()
	h.cfg.Observer.StepEnded(o, took)
}

// renamed takes note of a step that renamed its resource (through an
// alias). A provider resource that keeps its ID is the same provider: its
// new reference is answered by the instance of its old one, before the
// resources it manages, which wait for it, can use it.
func (h *Host) renamed(o stepgen.Outcome) {
	s := o.Step
	if s.Old == nil || o.New == nil || s.Old.URN == o.New.URN {
		return
	}
	if h.cfg.Registry != nil && resource.IsProviderType(o.New.Type) && o.New.ID == s.Old.ID && o.New.ID != "" {
		h.cfg.Registry.Alias(providers.NewReference(o.New.URN, o.New.ID), providers.NewReference(s.Old.URN, s.Old.ID))
	}
}

// sameRecord reports whether two states record the same thing (ignoring
// times), so that an unchanged resource needs no journal entry.
func sameRecord(a, b *resource.State) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Type == b.Type && a.URN == b.URN && a.Custom == b.Custom && a.Delete == b.Delete &&
		a.ID == b.ID && a.Parent == b.Parent && a.Protect == b.Protect && a.External == b.External &&
		a.Provider == b.Provider && a.PendingReplacement == b.PendingReplacement &&
		a.RetainOnDelete == b.RetainOnDelete && a.DeletedWith == b.DeletedWith &&
		a.CustomTimeouts == b.CustomTimeouts && a.ImportID == b.ImportID &&
		len(a.InitErrors) == 0 && len(b.InitErrors) == 0 &&
		slices.Equal(a.Dependencies, b.Dependencies) &&
		slices.Equal(a.IgnoreChanges, b.IgnoreChanges) && slices.Equal(a.ReplaceOnChanges, b.ReplaceOnChanges) &&
		slices.Equal(a.AdditionalSecretOutputs, b.AdditionalSecretOutputs) && slices.Equal(a.Aliases, b.Aliases) &&
		a.Hooks.Equal(b.Hooks) &&
		propDepsEqual(a.PropertyDependencies, b.PropertyDependencies) &&
		a.Inputs.DeepEquals(b.Inputs) && a.Outputs.DeepEquals(b.Outputs)
}

func propDepsEqual(a, b map[resource.PropertyKey][]resource.URN) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !slices.Equal(v, w) {
			return false
		}
	}
	return true
}
