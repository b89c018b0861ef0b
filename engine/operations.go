package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// Each operation is a short composition of the deployment's parts; run
// (deployment.go) does what they share: lock, load, wait, commit.

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
// *stepgen.ProtectedError naming it. Retained resources are dropped from
// the state without a provider call.
func (e *Engine) Destroy(ctx context.Context, opts ...Option) (*Result, error) {
	return e.run(ctx, OpDestroy, false, opts, deleteUnregistered)
}

// PreviewDestroy shows what Destroy would delete.
func (e *Engine) PreviewDestroy(ctx context.Context, opts ...Option) (*Result, error) {
	return e.run(ctx, OpDestroy, true, opts, deleteUnregistered)
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
	return e.run(ctx, OpImport, false, opts, update(func(ctx *Context) error {
		for _, spec := range specs {
			if spec.ID == "" {
				return fmt.Errorf("import of %s %q: the ID is empty", spec.Type, spec.Name)
			}
			ctx.importSpec(spec)
		}
		return nil
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
func update(program Program) body {
	return func(ctx context.Context, d *deployment) (err error) {
		pctx := newContext(ctx, d)
		defer func() { err = errors.Join(err, pctx.runDeferred()) }()
		progErr := pctx.run(program)
		d.stopLoop()
		if err := d.exec.WaitIdle(ctx); err != nil {
			return err
		}
		if progErr != nil || !d.healthy() {
			return progErr
		}
		if err := d.runDeletes(ctx); err != nil || !d.healthy() {
			return err
		}
		return d.gen.PlanKept()
	}
}

// deleteUnregistered deletes everything, as a program that declares
// nothing would.
func deleteUnregistered(ctx context.Context, d *deployment) error {
	d.stopLoop()
	return d.runDeletes(ctx)
}

// refresh reads every recorded resource, and resolves pending operations.
func refresh(ctx context.Context, d *deployment) error {
	d.stopLoop()
	chains := d.gen.Refresh(d.base.PendingOperations)
	for _, ch := range chains {
		d.submit(ctx, ch)
	}
	if err := d.exec.WaitIdle(ctx); err != nil {
		return err
	}
	if err := d.dropGone(ctx, chains); err != nil {
		return err
	}
	d.clearPending = len(d.base.PendingOperations) > 0
	return nil
}

// clearPendingOperations drops the pending operations the operation
// started with, now that a refresh has resolved them, and reports each.
func (d *deployment) clearPendingOperations(ctx context.Context) error {
	for _, op := range d.base.PendingOperations {
		if op.Resource == nil {
			continue
		}
		d.events.emit(DiagnosticEvent{URN: op.Resource.URN, Severity: SeverityInfo, Message: fmt.Sprintf(
			"resolved the pending %s operation left by an interrupted run", op.Kind)})
		e := state.Entry{Kind: state.EntryClearPending, Op: op.Kind, Old: op.Resource}
		if _, err := d.journal.Append(ctx, e); err != nil {
			return err
		}
	}
	return nil
}
