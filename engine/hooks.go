package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/groundwork-iac/groundwork/executor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// The deployment is the executor's Hooks. The ordering rules that keep
// the state true bind here:
//
//   - a step that changes the world is journaled as begun before its
//     provider is called: StepStarting appends the begin entry, on the
//     step's goroutine, and returns only once it is durable, so a crash
//     during the provider call leaves it as a pending operation;
//   - its end is journaled before the registration that waits on it is
//     answered: StepDone appends the end entry and answers only once it
//     is durable, so the program never sees an outcome the state lacks,
//     and nothing that depends on the step begins before its end is
//     recorded;
//   - a failed step that left a resource behind is recorded with its init
//     errors, never dropped.

var _ executor.Hooks = (*deployment)(nil)

// ChangesError fails an operation run with ExpectNoChanges when a step
// would change something.
type ChangesError struct {
	URN resource.URN
	Op  StepOp
}

func (e *ChangesError) Error() string {
	return fmt.Sprintf("resource %s would %s, but the operation expects no changes", e.URN, e.Op)
}

// runStep is a step as the deployment hands it to the executor: the
// generator's step, and what its hooks note between its start and its end
// (written by the start, read by the end, which the executor orders).
type runStep struct {
	*stepgen.Step
	// seq is the Seq of the step's begin entry (0 for none); at is when it
	// started.
	seq uint64
	at  time.Time
	// held says the step holds its resource in the deployment's
	// resourceOrder, to be released when it ends.
	held bool
	// d runs the resource hooks around the step (resourcehooks_run.go).
	d *deployment
}

// StepStarting implements executor.Hooks.
func (d *deployment) StepStarting(ctx context.Context, es executor.Step) error {
	rs := es.(*runStep)
	if err := d.starting(rs); err != nil {
		return err
	}
	s := rs.Step
	if d.journal != nil && s.JournalOp() != "" {
		seq, err := d.journalBegin(ctx, s)
		if err != nil {
			return err
		}
		rs.seq = seq
	}
	return nil
}

// starting is what every start of a step does before its begin is
// journaled: refuse a change the operation expects not to make, report
// the start, note the time.
func (d *deployment) starting(rs *runStep) error {
	s := rs.Step
	if d.opts.expectNoChanges && changes(s.Op) {
		return &ChangesError{URN: s.URN(), Op: StepOp(s.Op)}
	}
	if d.events.enabled() {
		d.emitStart(s)
	}
	rs.at = time.Now()
	return nil
}

// emitStart reports that s starts.
func (d *deployment) emitStart(s *stepgen.Step) {
	d.events.emit(StepStartEvent{StepEvent: stepEvent(s)})
}

// journalBegin records that s begins, before its provider is called.
func (d *deployment) journalBegin(ctx context.Context, s *stepgen.Step) (uint64, error) {
	cp := beginCopy(s.New)
	seq, err := d.journal.Append(ctx, state.Entry{Kind: state.EntryBegin, Op: s.JournalOp(), Old: s.Old, New: cp})
	if err != nil {
		return 0, beginFailed(s, err)
	}
	return seq, nil
}

// beginCopy returns a copy of a step's new state (nil for none) for its
// begin entry: Apply fills in the step's state, and the journal keeps the
// states it records unchanged.
func beginCopy(s *resource.State) *resource.State {
	if s == nil {
		return nil
	}
	cp := *s
	return &cp
}

// beginFailed wraps the failure to journal the begin of s.
func beginFailed(s *stepgen.Step, err error) error {
	return fmt.Errorf("recording the start of %s of %s: %w", s.Op, s.URN(), err)
}

// StepDone implements executor.Hooks.
func (d *deployment) StepDone(_ context.Context, es executor.Step, err error) error {
	rs := es.(*runStep)
	// The step's own failure is already the executor's; only a failure to
	// record the outcome is returned as a new one. The outcome is recorded
	// even once the operation is cancelled (d.lasting): the step did run.
	jerr := d.journalEnd(rs.Step, rs.seq, err)
	return d.ended(rs, err, jerr)
}

// ended records and answers a step whose end has been journaled; jerr is
// the failure to journal it.
func (d *deployment) ended(rs *runStep, err, jerr error) error {
	s := rs.Step
	if jerr != nil {
		jerr = fmt.Errorf("recording the outcome of %s of %s: %w", s.Op, s.URN(), jerr)
		if err == nil {
			err = jerr
		}
	}
	d.record(s, err, time.Since(rs.at), false)
	defer d.released(rs)
	if err != nil {
		if s.Reg != nil {
			d.complete(s.Reg, regResult{err: err, step: &stepOutcome{urn: s.URN()}})
		}
		return jerr
	}
	if s.Old != nil && s.New != nil && s.Old.URN != s.New.URN {
		d.renamed(s)
	}
	if s.Reg != nil && answers(s.Op) {
		d.complete(s.Reg, regResult{res: result(s)})
	}
	return nil
}

// renamed takes note of a step that renamed its resource (through an
// alias). A provider resource that keeps its ID is the same provider: its
// new reference is answered by the instance of its old one, before the
// resources it manages, which wait for it, can use it.
func (d *deployment) renamed(s *stepgen.Step) {
	if resource.IsProviderType(s.New.Type) && s.New.ID == s.Old.ID && s.New.ID != "" {
		d.registry.Alias(providers.NewReference(s.New.URN, s.New.ID), providers.NewReference(s.Old.URN, s.Old.ID))
	}
}

// StepSkipped implements executor.Hooks.
func (d *deployment) StepSkipped(ctx context.Context, es executor.Step, reason error) {
	rs := es.(*runStep)
	s := rs.Step
	defer d.released(rs)
	d.record(s, reason, 0, true)
	if s.Reg != nil {
		r := regResult{err: reason}
		// Skipped because a resource it needs failed, not because the
		// operation is stopping.
		if skip := (*executor.SkippedError)(nil); errors.As(reason, &skip) && skip.Dependency != "" {
			r.step = &stepOutcome{urn: s.URN(), skipped: true}
		}
		d.complete(s.Reg, r)
	}
}

// journalEnd records how a step ended.
func (d *deployment) journalEnd(s *stepgen.Step, seq uint64, stepErr error) error {
	if d.journal == nil {
		return nil
	}
	if stepErr != nil && !s.Partial(stepErr) {
		if seq == 0 {
			return nil
		}
		return d.recordEnd(state.Entry{Kind: state.EntryFailure, Begin: seq})
	}
	if s.With() != nil {
		return d.journalWith(s, seq)
	}
	old, new := s.Result()
	switch {
	case seq != 0:
		return d.recordEnd(state.Entry{Kind: state.EntrySuccess, Begin: seq, Old: old, New: new, Condemn: s.Condemns()})
	case old == nil && new == nil, (s.Op == stepgen.OpSame || s.Op == stepgen.OpOutputs) && sameRecord(old, new):
		return nil
	default:
		return d.recordEnd(state.Entry{Kind: state.EntryWrite, Old: old, New: new, Condemn: s.Condemns()})
	}
}

// recordEnd appends a step's end and returns once it is durable. It is
// recorded under the operation's lasting context: the step did run, so its
// outcome is recorded even once the operation is cancelled.
func (d *deployment) recordEnd(e state.Entry) error {
	_, err := d.journal.Append(d.lasting, e)
	return err
}

// journalWith records the successful delete of a resource others are
// deleted with (deletedWith): its record and theirs leave the state in
// this one entry, so only once its delete succeeded, and all at once
// (their own steps record nothing).
func (d *deployment) journalWith(s *stepgen.Step, seq uint64) error {
	old, _ := s.Result()
	e := state.Entry{Kind: state.EntryWrite, Old: old, With: s.With()}
	if seq != 0 {
		e.Kind, e.Begin = state.EntrySuccess, seq
	}
	return d.recordEnd(e)
}

func (d *deployment) record(s *stepgen.Step, err error, took time.Duration, skipped bool) {
	d.mu.Lock()
	if d.records == nil {
		// A run usually takes a step for every recorded resource, and a
		// few more: sized for that, the records do not grow (a quarter
		// at a time) as it goes.
		d.records = make([]StepRecord, 0, d.expectedSteps+d.expectedSteps/16+16)
	}
	d.records = append(d.records, StepRecord{Op: StepOp(s.Op), URN: s.URN(), Err: err})
	if err == nil {
		d.counts[StepOp(s.Op)]++
		if s.New != nil {
			d.produced = append(d.produced, s.New)
		}
	} else if !skipped {
		d.failed++
	}
	d.mu.Unlock()
	if !d.events.enabled() {
		return
	}
	ev := stepEvent(s)
	switch {
	case err != nil:
		d.events.emit(StepFailedEvent{StepEvent: ev, Message: err.Error(), Skipped: skipped, Duration: took})
	default:
		done := StepDoneEvent{StepEvent: ev, Duration: took}
		if s.New != nil {
			done.Outputs = maskSecrets(s.New.Outputs)
		}
		d.events.emit(done)
	}
}

// changes reports whether an operation changes something.
func changes(op stepgen.Op) bool {
	switch op {
	case stepgen.OpSame, stepgen.OpRead, stepgen.OpOutputs, stepgen.OpRefresh:
		return false
	}
	return true
}

// answers reports whether a step is the one that completes its
// registration (the last of its chain).
func answers(op stepgen.Op) bool {
	return op != stepgen.OpReplace && op != stepgen.OpDeleteReplaced
}

func result(s *stepgen.Step) providers.RegisterResult {
	r := providers.RegisterResult{URN: s.URN(), Stable: s.Op == stepgen.OpSame}
	if s.New != nil {
		r.ID = s.New.ID
		r.Outputs = s.New.Outputs
	}
	return r
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
