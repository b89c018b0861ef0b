package engine

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/groundwork-iac/groundwork/dag"
	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// An operation, from Engine.Up to the provider calls, stage by stage, one
// file each:
//
//	operations.go  Up, Preview, Destroy, Refresh, Import: each a short body
//	run.go         lock the stack, load, run the body, commit
//	load.go        the snapshot, the registry, the journal, the generator,
//	               the walkers and the monitor, wired together
//	program/       the program registers resources through its Context
//	               (package program; programhost.go is what it
//	               reaches of the deployment besides the monitor)
//	register.go    the monitor's registrations become events for the loop
//	generate.go    the loop: the one goroutine that feeds the generator its
//	               events and carries out the actions it returns
//	calls.go       the provider calls (Check, Diff, analyzers) it asks for,
//	               made by package deploy's Ask
//	walk.go        the steps it issues, walked in the order their needs set,
//	               and the one place a step ends (over)
//	step.go        one step: journal its begin, apply it (package deploy's
//	               Apply, where a step meets its provider), journal its end
//	bounds.go      every provider call of a step or a call, within the
//	               grace period and the resource's custom timeouts
//	record.go      the journal entries, step records and events of a step
//	commit.go      wait for every step, record the outputs, commit

// errDeploymentOver refuses a registration that arrives once the program's
// part of the operation is over.
var errDeploymentOver = errors.New("the deployment has finished; no more registrations are accepted")

// deployment is one operation in flight: the parts wired together and the
// bookkeeping that joins them.
type deployment struct {
	e       *Engine
	op      Operation
	opts    options
	preview bool
	base    *state.Snapshot
	journal state.Journal // nil in a preview
	// lasting is the operation's context without its cancellation: a
	// step's outcome is recorded under it, even once the operation is
	// cancelled, since the step did run.
	lasting  context.Context
	registry *providers.Registry
	gen      *stepgen.Generator
	// walker runs the steps (walk.go), calls makes the provider calls
	// the generator asks for (calls.go).
	walker *dag.Walker[walkStep]
	calls  *callPool
	mon    *monitor.Monitor
	events *eventSink
	start  time.Time
	// secrets masks every message the operation lets out (secrets.go).
	secrets *resource.SecretFilter

	// The loop (generate.go) owns inbox's consumer side, and alone
	// touches gen, waiters and settling while it runs.
	inbox    *inbox
	stop     chan struct{}
	loopDone chan struct{}
	waiters  map[*stepgen.Registration]func(regResult)
	settling []chan struct{}

	// source is the registry with the deployment's own provider serving
	// the "pulumi" package (pulumipkg.go): the one provider source of the
	// steps, the calls and the monitor.
	source *providers.Source
	// hooks are the resource hooks the operation knows.
	hooks hookRegistry

	mu      sync.Mutex
	records []StepRecord
	// unfinished holds the recorded resources whose step failed or was
	// skipped (read under mu).
	unfinished map[*resource.State]bool
	// expectedSteps sizes records when the first step ends: the number
	// of recorded resources (set by load; read under mu).
	expectedSteps int
	errs          []error // registration errors the walker does not report
	failed        int
	// produced are the states the steps that succeeded have produced, in
	// completion order; producedIndex indexes produced[:indexed] by URN,
	// for getResource (see producedStates).
	produced      []*resource.State
	producedIndex map[resource.URN]*resource.State
	indexed       int
	// gone are the resources a refresh found no longer exist.
	gone []*resource.State
	// stackOutputs are the stack outputs the program registered, held
	// until the operation ends (written by the loop, read once it has
	// stopped); outputs are those recorded then.
	stackOutputs *heldOutputs
	outputs      resource.PropertyMap
	// running counts the provider calls in flight (bounds.go); pending
	// names the steps left pending because their provider did not answer
	// in time (read under mu).
	running runningCalls
	pending []string
	// boundedProviders caches the bounded form of each provider
	// (providers.Provider → *boundedProvider).
	boundedProviders sync.Map
	// clearPending asks commit to drop the pending operations of the
	// snapshot the operation started from.
	clearPending bool
}

// healthy reports whether nothing has failed so far.
func (d *deployment) healthy() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.failed == 0 && len(d.errs) == 0
}

func (d *deployment) noteError(err error) {
	d.mu.Lock()
	d.errs = append(d.errs, err)
	d.mu.Unlock()
}

// Provider resolves a provider reference for steps and calls (see
// providers.Source.Provider).
func (d *deployment) Provider(ref, typ string) (providers.Provider, error) {
	return d.source.Provider(ref, typ)
}
