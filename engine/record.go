package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// What a step leaves behind: its entries in the journal, its record in the
// operation's Result, and its events.

// journalBegin records that s begins, before its provider is called, and
// returns once the entry is durable.
func (d *deployment) journalBegin(ctx context.Context, s *stepgen.Step) (uint64, error) {
	seq, err := d.journal.Append(ctx, state.Entry{Kind: state.EntryBegin, Op: s.JournalOp(), Old: s.Old, New: s.New})
	if err != nil {
		return 0, fmt.Errorf("recording the start of %s of %s: %w", s.Op, s.URN(), err)
	}
	return seq, nil
}

// journalEnd records how a step ended; seq is its begin's (0 for none).
func (d *deployment) journalEnd(o stepgen.Outcome, seq uint64) error {
	if d.journal == nil {
		return nil
	}
	s := o.Step
	if o.Err != nil && !o.Partial() {
		if seq == 0 {
			return nil
		}
		return d.recordEnd(state.Entry{Kind: state.EntryFailure, Begin: seq})
	}
	old, new := o.Record()
	e := state.Entry{Kind: state.EntryWrite, Old: old, New: new, Condemn: o.Condemns(), With: s.With()}
	switch {
	case seq != 0:
		e.Kind, e.Begin = state.EntrySuccess, seq
	case old == nil && new == nil && e.With == nil,
		(s.Op == stepgen.OpSame || s.Op == stepgen.OpOutputs) && sameRecord(old, new):
		return nil
	}
	return d.recordEnd(e)
}

// recordEnd appends a step's end and returns once it is durable. It is
// appended under the operation's lasting context: the step did run, so its
// outcome is recorded even once the operation is cancelled.
func (d *deployment) recordEnd(e state.Entry) error {
	_, err := d.journal.Append(d.lasting, e)
	return err
}

// record adds a step's outcome to the operation's result and reports it.
func (d *deployment) record(o stepgen.Outcome, took time.Duration) {
	s := o.Step
	d.mu.Lock()
	if d.records == nil {
		// A run usually takes a step for every recorded resource, and a
		// few more: sized for that, the records do not grow (a quarter
		// at a time) as it goes.
		d.records = make([]StepRecord, 0, d.expectedSteps+d.expectedSteps/16+16)
	}
	d.records = append(d.records, StepRecord{Op: StepOp(s.Op), URN: s.URN(), Err: o.Err})
	switch {
	case o.Err == nil:
		d.counts[StepOp(s.Op)]++
		if o.New != nil {
			d.produced = append(d.produced, o.New)
		}
		if o.Gone && s.Old != nil {
			d.gone = append(d.gone, s.Old)
		}
	case !o.Skipped:
		d.failed++
	}
	if o.Err != nil && s.Old != nil {
		if d.unfinished == nil {
			d.unfinished = make(map[*resource.State]bool)
		}
		d.unfinished[s.Old] = true
	}
	d.mu.Unlock()
	if !d.events.enabled() {
		return
	}
	ev := stepEvent(s)
	if o.Keys != nil {
		ev.Keys = o.Keys
	}
	if o.Err != nil {
		d.events.emit(StepFailedEvent{StepEvent: ev, Message: o.Err.Error(), Skipped: o.Skipped, Duration: took})
		return
	}
	done := StepDoneEvent{StepEvent: ev, Duration: took}
	if o.New != nil {
		done.Outputs = maskSecrets(o.New.Outputs)
	}
	if s.Op == stepgen.OpRefresh && s.Old != nil {
		done.OldOutputs = maskSecrets(s.Old.Outputs)
	}
	d.events.emit(done)
}

// renamed takes note of a step that renamed its resource (through an
// alias). A provider resource that keeps its ID is the same provider: its
// new reference is answered by the instance of its old one, before the
// resources it manages, which wait for it, can use it.
func (d *deployment) renamed(o stepgen.Outcome) {
	s := o.Step
	if s.Old == nil || o.New == nil || s.Old.URN == o.New.URN {
		return
	}
	if resource.IsProviderType(o.New.Type) && o.New.ID == s.Old.ID && o.New.ID != "" {
		d.registry.Alias(providers.NewReference(o.New.URN, o.New.ID), providers.NewReference(s.Old.URN, s.Old.ID))
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
