package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/groundwork-iac/groundwork/program"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// Each operation is a short composition of the deployment's parts; run
// (run.go) does what they share: lock, load, wait, commit.

// Up deploys the program: it creates, updates, replaces and deletes
// resources until the stack matches the program, recording every step.
// With RefreshFirst it refreshes the stack first (as its own operation).
func (e *Engine) Up(ctx context.Context, program Program, opts ...Option) (*Result, error) {
	if err := e.refreshFirst(ctx, opts); err != nil {
		return nil, err
	}
	return e.run(ctx, OpUp, false, opts, update(program))
}

// Preview shows what Up would do without changing anything: providers are
// asked only questions, unknown outputs stay unknown, and nothing is
// written to the store. With RefreshFirst it previews against the stack as
// a refresh would leave it (the resources read from their providers, in a
// copy of the stack the store never sees), as Up with RefreshFirst would
// run.
//
// The preview predicts the Up that follows it on the same state: the same
// resources, each with the same steps in the same order, and every input
// and stack output it knows as the Up will have it. A value computed from
// an output not known yet (of a resource to be created, updated or
// replaced) reaches the provider as unknown; where a resource's inputs
// held an unknown, or a resource it depends on takes a lesser step than
// predicted, a predicted replacement may turn out an update or a same, and
// a predicted update a same. That is all that may differ (TESTING.md, "The
// agreement oracle").
func (e *Engine) Preview(ctx context.Context, program Program, opts ...Option) (*Result, error) {
	if optionsOf(opts).refreshFirst {
		return e.previewRefreshed(ctx, program, opts)
	}
	return e.run(ctx, OpPreview, true, opts, update(program))
}

// Destroy deletes every resource of the stack (or, with targets, the
// targeted ones), dependents first, in parallel where the dependency graph
// allows. A protected resource is not deleted, nor anything it depends on;
// everything else is, and Destroy then fails with a
// *ProtectedError naming it. Retained resources are dropped from
// the state without a provider call.
func (e *Engine) Destroy(ctx context.Context, opts ...Option) (*Result, error) {
	return e.run(ctx, OpDestroy, false, opts, destroy)
}

// PreviewDestroy shows what Destroy would delete.
func (e *Engine) PreviewDestroy(ctx context.Context, opts ...Option) (*Result, error) {
	return e.run(ctx, OpDestroy, true, opts, destroy)
}

// Refresh reads every recorded resource (or the targeted ones) from its
// provider and records what it reports: drift is taken into the state, and
// a resource that no longer exists leaves it. Pending operations left by an
// interrupted run are resolved and reported.
func (e *Engine) Refresh(ctx context.Context, opts ...Option) (*Result, error) {
	return e.run(ctx, OpRefresh, false, opts, refresh)
}

// PreviewRefresh shows the drift a refresh would record, writing nothing.
func (e *Engine) PreviewRefresh(ctx context.Context, opts ...Option) (*Result, error) {
	return e.run(ctx, OpRefresh, true, opts, refresh)
}

// ImportSpec names an existing physical resource to adopt.
type ImportSpec struct {
	Type string
	Name string
	ID   resource.ID
	// Parent is the parent's URN; "" for the stack's root.
	Parent resource.URN
	// Provider is an explicit provider reference; "" for the default
	// provider of the type's package.
	Provider string
	Version  string
	// Inputs, if given, must match the resource as it exists; if empty,
	// the resource is adopted with the inputs its provider reads.
	Inputs resource.PropertyMap
}

// Import adopts existing physical resources into the stack without a
// program; every other recorded resource is left as it is.
func (e *Engine) Import(ctx context.Context, specs []ImportSpec, opts ...Option) (*Result, error) {
	return e.run(ctx, OpImport, false, opts, runUpdate(func(r *program.Runner) error {
		return r.Run(func(*Context) error {
			for _, spec := range specs {
				if spec.ID == "" {
					return fmt.Errorf("import of %s %q: the ID is empty", spec.Type, spec.Name)
				}
				r.Import(&resource.Goal{Type: spec.Type, Name: spec.Name, Custom: true, ImportID: spec.ID,
					Parent: spec.Parent, Provider: spec.Provider, Version: spec.Version, Inputs: spec.Inputs})
			}
			return nil
		})
	}))
}

// optionsOf applies opts.
func optionsOf(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

func (e *Engine) refreshFirst(ctx context.Context, opts []Option) error {
	if !optionsOf(opts).refreshFirst {
		return nil
	}
	if _, err := e.Refresh(ctx, opts...); err != nil {
		return fmt.Errorf("refreshing before the update: %w", err)
	}
	return nil
}

// update runs a program, then deletes what it no longer declares, then
// what the program deferred.
func update(prog Program) body {
	return runUpdate(func(r *program.Runner) error { return r.Run(prog) })
}

// runUpdate is update for a program run by run with the operation's
// program.Runner.
func runUpdate(run func(r *program.Runner) error) body {
	return func(ctx context.Context, d *deployment) (err error) {
		r := d.newRunner(ctx)
		defer func() { err = errors.Join(err, r.RunDeferred()) }()
		progErr := run(r)
		d.host.CloseRegistrations()
		if err := d.host.Settle(ctx); err != nil {
			return err
		}
		if progErr != nil || !d.healthy() {
			return progErr
		}
		if err := d.deleteUnregistered(ctx); err != nil || !d.healthy() {
			return err
		}
		return d.host.PlanKept(ctx)
	}
}

// destroy deletes everything, as a program that declares nothing would.
func destroy(ctx context.Context, d *deployment) error {
	d.host.CloseRegistrations()
	return d.deleteUnregistered(ctx)
}

// deleteUnregistered deletes what the program no longer declares, antichain
// by antichain, once the hooks bound to all of it are known
// (knowsDeleteHooks, the host's Config.DeleteHooks), and then reports the
// deletes the generator refused (protected resources) as failed steps.
func (d *deployment) deleteUnregistered(ctx context.Context) error {
	if err := d.host.Delete(ctx); err != nil {
		return err
	}
	if err := d.host.Settle(ctx); err != nil {
		return err
	}
	return d.host.RefuseProtected(ctx)
}

// refresh reads every recorded resource, and resolves pending operations:
// it reads back the resources they name, except those whose provider is no
// longer recorded (unreachable), which it only reports.
func refresh(ctx context.Context, d *deployment) error {
	d.host.CloseRegistrations()
	if err := d.host.Refresh(ctx, readablePending(d.base.PendingOperations, d.base.Resources)); err != nil {
		return err
	}
	if err := d.host.Settle(ctx); err != nil {
		return err
	}
	if err := d.host.DropGone(ctx); err != nil {
		return err
	}
	d.clearPending = len(d.base.PendingOperations) > 0
	return nil
}

// clearPendingOperations drops the pending operations the operation
// started with, now that a refresh has resolved them, and reports each.
// A pending create the refresh could not resolve (it has no ID to look the
// resource up by) stays recorded, with a warning, unless the operation
// discards it on purpose (DiscardPendingCreates). One whose resource's
// provider is no longer recorded (unreachable) is cleared with a warning
// to check the resource by hand.
func (d *deployment) clearPendingOperations(ctx context.Context) error {
	for _, op := range d.base.PendingOperations {
		if op.Resource == nil {
			continue
		}
		if unresolvable(op) {
			if !d.opts.discardPending {
				continue // load warned of it (unresolvedMessage)
			}
			d.events.emit(DiagnosticEvent{URN: op.Resource.URN, Severity: SeverityWarning, Message: fmt.Sprintf(
				"discarded, as asked, the pending create of this resource (type %s) left by an interrupted run; "+
					"if the resource exists, it is no longer recorded anywhere", op.Resource.Type)})
		} else if unreachable(op, d.base.Resources) {
			d.events.emit(DiagnosticEvent{URN: op.Resource.URN, Severity: SeverityWarning, Message: unreachableMessage(op)})
		} else {
			d.events.emit(DiagnosticEvent{URN: op.Resource.URN, Severity: SeverityInfo, Message: fmt.Sprintf(
				"resolved the pending %s operation left by an interrupted run", op.Kind)})
		}
		e := state.Entry{Kind: state.EntryClearPending, Op: op.Kind, Old: op.Resource}
		if _, err := d.journal.Append(ctx, e); err != nil {
			return err
		}
	}
	return nil
}
