package engine

import (
	"context"
	"time"

	"github.com/groundwork-iac/groundwork/deploy"
	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/program"
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
//	               the deployment host and the monitor, wired together
//	program/       the program registers resources through its Context
//	               (package program; programhost.go is what it
//	               reaches of the deployment besides the monitor)
//	deploy/        the host (deploy.Host): the loop that owns the
//	               generator, its provider calls, its steps, their
//	               journal entries, and the one place a step ends
//	bounds.go      the bounds of the provider calls (deploy.Bounds): the
//	               grace period, and the errors of calls not answered
//	record.go      the operation's step records and events (the host's
//	               deploy.Observer)
//	commit.go      wait for every step, record the outputs, commit

// deployment is one operation in flight: its options, the parts wired
// together, and what the operation reports.
type deployment struct {
	e       *Engine
	op      Operation
	opts    options
	preview bool
	base    *state.Snapshot
	journal state.Journal // nil in a preview
	// lasting is the operation's context without its cancellation: what
	// the operation records once it is cancelled is recorded under it.
	lasting  context.Context
	registry *providers.Registry
	gen      *stepgen.Generator
	// host is the deployment loop: it runs the generator, its calls and
	// its steps (package deploy).
	host   *deploy.Host
	mon    *monitor.Monitor
	events *eventSink
	start  time.Time
	// secrets masks every message the operation lets out (secrets.go).
	secrets *resource.SecretFilter

	// source is the registry with the deployment's own provider serving
	// the "pulumi" package (pulumipkg.go): the one provider source of the
	// steps, the calls and the monitor.
	source *providers.Source
	// hooks are the resource hooks the operation knows.
	hooks *program.HookRunner

	// rec records the steps (record.go).
	rec recorder
	// outputs are the stack outputs recorded when the operation ends.
	outputs resource.PropertyMap
	// bounds is source with the operation's bounds on its calls
	// (bounds.go): the provider source of the steps and calls.
	bounds *deploy.Bounds
	// clearPending asks commit to drop the pending operations of the
	// snapshot the operation started from.
	clearPending bool
}

// healthy reports whether nothing has failed so far.
func (d *deployment) healthy() bool { return d.host.Healthy() }

// noteError adds an error of the operation that no step reports.
func (d *deployment) noteError(err error) { d.host.NoteError(err) }

// Provider resolves a provider reference for steps and calls (see
// providers.Source.Provider).
func (d *deployment) Provider(ref, typ string) (providers.Provider, error) {
	return d.source.Provider(ref, typ)
}
