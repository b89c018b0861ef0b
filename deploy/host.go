package deploy

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/groundwork-iac/groundwork/dag"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// One registration through a Host, stage by stage, one file each:
//
//	register.go     the monitor's registrations become events for the loop
//	loop.go         the loop: the one goroutine that feeds the generator its
//	                events and carries out the actions it returns
//	calls.go        the provider calls (Check, Diff, analyzers) it asks
//	                for, made by Ask on a bounded pool
//	bounds.go       every provider call of a step or a call, within the
//	                grace period and the resource's custom timeouts
//	walk.go         the steps it issues, walked in the order their needs
//	                set, and the one place a step ends (over)
//	step.go         one step: journal its begin, Apply it, journal its end
//	record.go       the journal entries and the bookkeeping of a step
//	commands.go     the commands of the operation's body: delete, refresh
//	stackoutputs.go the stack's outputs, recorded once the loop is over
//	errors.go       the operation's errors joined into one, each said once
//	refreshgone.go  a refresh's removal of the resources found gone

// errDeploymentOver refuses a registration that arrives once the program's
// part of the operation is over.
var errDeploymentOver = errors.New("the deployment has finished; no more registrations are accepted")

// Config is what a Host needs of the operation that runs it. Every field
// is a plain value or a function the operation supplies; a nil function
// is not called.
type Config struct {
	// Generator decides the steps; the Host's loop is the only goroutine
	// that touches it while it runs.
	Generator *stepgen.Generator
	// Journal records each step; nil in a preview.
	Journal state.Journal
	// Preview is set when nothing may change.
	Preview bool
	// Parallelism bounds the steps run at once (0: unbounded) and the
	// provider calls made at once (0: a few hundred), and
	// ContinueOnError lets independent steps go on after a failure.
	Parallelism     int
	ContinueOnError bool
	// Source resolves the providers of steps and calls; a *Bounds bounds
	// their calls by the operation's grace period and custom timeouts.
	Source providers.ProviderSource
	// Registry learns the new references of renamed providers.
	Registry *providers.Registry
	// Secrets learns every secret a step or call hands a provider, and
	// masks what comes back. Required.
	Secrets *resource.SecretFilter
	// Observer hears of every step's start and end. Required.
	Observer Observer
	// ExpectedSteps sizes the walker: the number of recorded resources.
	ExpectedSteps int
	// Start is when the operation began; a step's duration is measured
	// from it.
	Start time.Time
	// Forbid, if set, fails a step before it starts when it returns an
	// error (a change an operation expects not to make).
	Forbid func(*stepgen.Step) error
	// Analyze runs the analyzers on a resource's goal (a call of kind
	// stepgen.CallAnalyze).
	Analyze func(context.Context, *resource.State) error
	// DeleteHooks, if set, is given the antichains of deletes before any
	// is issued (Delete), to wait until the hooks bound to them are
	// known; its error stops the deletes.
	DeleteHooks func(context.Context, [][]*stepgen.Step) error
	// ApplyHooked applies a step whose resource has hooks bound, in place
	// of Apply; nil applies every step with Apply.
	ApplyHooked func(context.Context, *stepgen.Step) stepgen.Outcome
}

// Observer hears what the steps of a Host do, so that the operation can
// record and report it. Its methods are called from the goroutines that
// run steps, concurrently.
type Observer interface {
	// StepStarted is called as a step starts, before its begin is
	// journaled.
	StepStarted(s *stepgen.Step)
	// StepEnded is called once per step, run, refused or skipped, after
	// its end is journaled and before the generator hears of it; took is
	// how long it ran (zero if it never started).
	StepEnded(o stepgen.Outcome, took time.Duration)
	// Warn reports something the operation's user should know about a
	// resource.
	Warn(urn resource.URN, message string)
	// Inform reports what the operation did to a resource outside its
	// steps (a refresh removing one that no longer exists).
	Inform(urn resource.URN, message string)
	// Refused is called as a registration of resource urn fails before it
	// has a step (its provider's Check rejects its inputs, a Diff fails,
	// the plan refuses it, its URN is taken), and when a step the plan
	// holds for urn was not taken (PlanKept): err is the failure, which
	// the operation's error lists too.
	Refused(urn resource.URN, err error)
}

// Host is one operation's deployment loop: it owns the step generator,
// takes the program's registrations (it is the monitor's
// monitor.Deployer), makes the provider calls the generator asks for,
// walks the steps it issues, journals each, and tells the generator how
// each ended. The operation that builds it runs its body through its
// commands (CloseRegistrations, Delete, Refresh, Settle, RefuseProtected,
// PlanKept), then stops it (Stop), waits for what it started (Wait), and
// reads its bookkeeping.
type Host struct {
	cfg     Config
	gen     *stepgen.Generator
	journal state.Journal
	walker  *dag.Walker[walkStep]
	calls   *callPool

	// The loop (loop.go) owns inbox's consumer side, and alone touches
	// gen and settling while it runs.
	inbox    *inbox
	stop     chan struct{}
	loopDone chan struct{}
	settling []chan struct{}

	mu sync.Mutex
	// unfinished holds the recorded resources whose step failed or was
	// skipped (read under mu).
	unfinished map[*resource.State]bool
	errs       []error // registration errors the walker does not report
	failed     int
	// produced are the states the steps that succeeded have produced, in
	// completion order; producedIndex indexes produced[:indexed] by URN
	// (Resource).
	produced      []*resource.State
	producedIndex map[resource.URN]*resource.State
	indexed       int
	// gone are the resources a refresh found no longer exist.
	gone []*resource.State
	// pending names the steps left pending because their provider did
	// not answer in time.
	pending []string
	// stackOutputs are the stack outputs the program registered, held
	// until the operation ends (written by the loop, read once it has
	// stopped).
	stackOutputs *heldOutputs
}

// New returns the host of one operation, its loop not started.
func New(cfg Config) *Host {
	h := &Host{
		cfg: cfg, gen: cfg.Generator, journal: cfg.Journal,
		inbox: newInbox(), stop: make(chan struct{}), loopDone: make(chan struct{}),
	}
	h.walker = h.newWalker()
	h.calls = h.newCallPool()
	return h
}

// Start runs the loop on a goroutine of its own until Stop. Steps run
// under ctx; their outcomes are journaled under ctx without its
// cancellation.
func (h *Host) Start(ctx context.Context) {
	go h.loop(ctx)
}

// Healthy reports whether nothing has failed so far.
func (h *Host) Healthy() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.failed == 0 && len(h.errs) == 0
}

// NoteError adds an error of the operation that no step reports.
func (h *Host) NoteError(err error) {
	h.mu.Lock()
	h.errs = append(h.errs, err)
	h.mu.Unlock()
}

// Errors returns the errors noted so far that no step reports: refused
// registrations, refused deletes, and NoteError's.
func (h *Host) Errors() []error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.errs)
}

// Unfinished returns the recorded resources whose step failed or was
// skipped so far.
func (h *Host) Unfinished() map[*resource.State]bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.unfinished)
}

// Gone returns the resources a refresh found no longer exist.
func (h *Host) Gone() []*resource.State {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.gone)
}

// Pending names the steps left pending because their provider did not
// answer in time, as "<kind> <urn>", in the order they ended.
func (h *Host) Pending() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.pending)
}

// Resource returns the state the step of urn produced in this operation,
// if one succeeded (the "pulumi" package's getResource reads it). The
// index over the states produced is built on first use and extended by
// each lookup, so that an operation that looks nothing up pays only for
// the slice.
func (h *Host) Resource(urn resource.URN) (*resource.State, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.producedIndex == nil {
		h.producedIndex = make(map[resource.URN]*resource.State, len(h.produced))
	}
	for _, s := range h.produced[h.indexed:] {
		h.producedIndex[s.URN] = s
	}
	h.indexed = len(h.produced)
	s, ok := h.producedIndex[urn]
	return s, ok
}

// Wait waits for every step and every provider call the loop started,
// and returns the steps' failures. Call it once the loop has stopped.
func (h *Host) Wait() error {
	err := h.walker.Wait()
	// A call's failure is part of its answer, reported with the
	// registration it failed.
	h.calls.wait()
	return err
}
