package engine

import (
	"slices"
	"sync"
	"time"

	"github.com/groundwork-iac/groundwork/deploy"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// What the operation makes of its steps: a record of each in its Result,
// and its events. The host (package deploy) journals the steps and tells
// the recorder, its deploy.Observer, as each starts and ends.

// recorder is the deployment's deploy.Observer: it keeps the step records
// of the operation's Result and emits the steps' events.
type recorder struct {
	events *eventSink
	// expected sizes records when the first step ends: the number of
	// recorded resources.
	expected int

	mu sync.Mutex
	// records are the step records, in the order the steps ended: full
	// chunks, then the chunk being filled (last). A run that takes more
	// steps than expected (a create, with none recorded) adds a chunk at a
	// time rather than copy every record as a slice grown by append would.
	records [][]StepRecord
	// counted counts the records as they arrive.
	counted tally
}

// recordChunk is how many step records a chunk beyond the expected holds.
const recordChunk = 1024

var _ deploy.Observer = (*recorder)(nil)

// StepStarted emits the step's start.
func (r *recorder) StepStarted(s *stepgen.Step) {
	if r.events.enabled() {
		r.events.emit(StepStartEvent{StepEvent: stepEvent(s)})
	}
}

// StepEnded adds a step's outcome to the operation's result and reports
// it.
func (r *recorder) StepEnded(o stepgen.Outcome, took time.Duration) {
	s := o.Step
	keys := s.Keys
	if o.Keys != nil {
		keys = o.Keys
	}
	r.mu.Lock()
	last := len(r.records) - 1
	if last < 0 || len(r.records[last]) == cap(r.records[last]) {
		// A run usually takes a step for every recorded resource, and a
		// few more: the first chunk is sized for that.
		size := recordChunk
		if last < 0 {
			size = r.expected + r.expected/16 + 16
			r.counted.size(r.expected)
		}
		r.records = append(r.records, make([]StepRecord, 0, size))
		last++
	}
	r.records[last] = append(r.records[last], StepRecord{Op: StepOp(s.Op), URN: s.URN(), Keys: keys, Diff: s.Diff.DetailedDiff, Err: o.Err, Skipped: o.Skipped})
	r.counted.add(&r.records[last][len(r.records[last])-1])
	r.mu.Unlock()
	if !r.events.enabled() {
		return
	}
	ev := stepEvent(s)
	ev.Keys = keys
	if o.Err != nil {
		r.events.emit(StepFailedEvent{StepEvent: ev, Message: stepMessage(o.Err, o.Skipped), Skipped: o.Skipped, Duration: took})
		return
	}
	done := StepDoneEvent{StepEvent: ev, Duration: took}
	if o.New != nil {
		done.Outputs = o.New.Outputs.MaskSecrets()
	}
	if s.Op == stepgen.OpRefresh && s.Old != nil {
		done.OldOutputs = s.Old.Outputs.MaskSecrets()
	}
	r.events.emit(done)
}

// Warn emits a warning about a resource.
func (r *recorder) Warn(urn resource.URN, message string) {
	r.events.emit(DiagnosticEvent{URN: urn, Severity: SeverityWarning, Message: message})
}

// Inform emits an informational diagnostic about urn.
func (r *recorder) Inform(urn resource.URN, message string) {
	r.events.emit(DiagnosticEvent{URN: urn, Severity: SeverityInfo, Message: message})
}

// Refused reports a registration of urn that failed before it had a
// step, as an error diagnostic about the resource.
func (r *recorder) Refused(urn resource.URN, err error) {
	r.events.emit(DiagnosticEvent{URN: urn, Severity: SeverityError, Message: err.Error()})
}

// tally returns the counts of the steps recorded so far (see tally).
func (r *recorder) tally() (counts map[StepOp]int, failed int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counted.result()
}

// steps returns the steps recorded.
func (r *recorder) steps() []StepRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.allLocked()
}

// allLocked returns the steps recorded, in one slice: the chunks are
// joined into one, full, which later records do not touch (they go into
// a chunk of their own). Called with r.mu held.
func (r *recorder) allLocked() []StepRecord {
	switch len(r.records) {
	case 0:
		return nil
	case 1:
		return r.records[0]
	}
	all := slices.Concat(r.records...)
	r.records = r.records[:1]
	r.records[0] = all
	return all
}
