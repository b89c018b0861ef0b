package engine

import (
	"sync"
	"time"

	"github.com/groundwork-iac/groundwork/program"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// Event is one entry of an operation's event stream. The concrete types are
// OperationStartEvent, StepStartEvent, StepDoneEvent, StepFailedEvent,
// DiagnosticEvent and SummaryEvent; switch on them. Events never carry a
// secret's plaintext: property values that are secret are masked before the
// event is built, and the operation's known secrets are masked in their
// messages (see "Secrets in messages" in the package doc).
type Event interface {
	isEvent()
}

// OperationStartEvent opens the stream.
type OperationStartEvent struct {
	Operation Operation
	// Preview is set when the operation changes nothing.
	Preview bool
	Project string
	Stack   string
	Time    time.Time
}

// StepEvent describes a step: what it does to which resource.
type StepEvent struct {
	Op   StepOp
	URN  resource.URN
	Type string
	// Custom is set for custom resources (managed by a provider), clear
	// for components.
	Custom bool
	// Parent is the URN of the resource's parent, "" for none.
	Parent  resource.URN
	Preview bool
	// Old and New are the resource's inputs before and after (nil where
	// there is none), with secrets masked.
	OldInputs resource.PropertyMap
	NewInputs resource.PropertyMap
	// Keys are the top-level properties that changed; Diff is the detailed
	// diff where the provider gave one.
	Keys []resource.PropertyKey
	Diff map[string]resource.PropertyDiff
}

// StepStartEvent says a step is about to run.
type StepStartEvent struct {
	StepEvent
}

// StepDoneEvent says a step succeeded.
type StepDoneEvent struct {
	StepEvent
	// Outputs are the resource's outputs after the step, secrets masked.
	Outputs resource.PropertyMap
	// OldOutputs are, for a refresh, the outputs recorded before it,
	// secrets masked: with Outputs they show what drifted. Nil for other
	// steps.
	OldOutputs resource.PropertyMap
	Duration   time.Duration
}

// StepFailedEvent says a step failed, or was skipped because something it
// needed failed (Skipped).
type StepFailedEvent struct {
	StepEvent
	Message  string
	Skipped  bool
	Duration time.Duration
}

// Severity ranks a diagnostic: it is program.Severity, the type the
// program API's Context.Log takes, so that events and programs share it.
type Severity = program.Severity

// The diagnostic severities.
const (
	SeverityDebug   = program.SeverityDebug
	SeverityInfo    = program.SeverityInfo
	SeverityWarning = program.SeverityWarning
	SeverityError   = program.SeverityError
)

// DiagnosticEvent is a message about the operation or one resource: one
// a program logged, or the engine's. The engine reports an error about a
// resource (SeverityError with its URN) for a registration that failed
// before it had a step; a step's failure is a StepFailedEvent.
type DiagnosticEvent struct {
	URN      resource.URN
	Severity Severity
	Message  string
}

// SummaryEvent closes the stream.
type SummaryEvent struct {
	Operation Operation
	// Counts holds how many of the user's resources each kind of change
	// touched, as Result.Counts does; Failed, how many resources had a
	// step fail.
	Counts   map[StepOp]int
	Failed   int
	Duration time.Duration
	// Error is the operation's error message, "" on success.
	Error string
	// Outputs are the stack's outputs after an update (or, in a
	// preview, as they would be: values not known yet are unknown), with
	// secrets masked; nil for other operations and failed ones.
	Outputs resource.PropertyMap
}

func (OperationStartEvent) isEvent() {}
func (StepStartEvent) isEvent()      {}
func (StepDoneEvent) isEvent()       {}
func (StepFailedEvent) isEvent()     {}
func (DiagnosticEvent) isEvent()     {}
func (SummaryEvent) isEvent()        {}

// eventSink serializes events to the host's callback: the callback is never
// called concurrently.
type eventSink struct {
	mu sync.Mutex
	fn func(Event)
	// secrets masks the messages of the events (secrets.go).
	secrets *resource.SecretFilter
}

func (s *eventSink) emit(e Event) {
	if s == nil || s.fn == nil {
		return
	}
	e = maskEvent(s.secrets, e)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fn(e)
}

func (s *eventSink) enabled() bool { return s != nil && s.fn != nil }

// stepEvent describes a step for events, masking secrets.
func stepEvent(s *stepgen.Step) StepEvent {
	ev := StepEvent{Op: StepOp(s.Op), URN: s.URN(), Preview: s.Preview, Keys: s.Keys, Diff: s.Diff.DetailedDiff}
	if s.Old != nil {
		ev.Type, ev.Custom, ev.Parent = s.Old.Type, s.Old.Custom, s.Old.Parent
		ev.OldInputs = s.Old.Inputs.MaskSecrets()
	}
	if s.New != nil {
		ev.Type, ev.Custom, ev.Parent = s.New.Type, s.New.Custom, s.New.Parent
		ev.NewInputs = s.New.Inputs.MaskSecrets()
	}
	return ev
}
