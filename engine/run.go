package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// body is what one operation does once the deployment is loaded: run a
// program, refresh, delete. It returns the operation's own errors; step
// failures reach the result through the host (deploy.Host.Wait).
type body func(ctx context.Context, d *deployment) error

// run is the shape shared by every operation: lock the stack, load it
// (load.go), start the host's loop (deploy.Host), do the operation's body,
// stop the loop once everything it started has ended, and commit
// (commit.go).
// Every step that completed is recorded whatever fails later.
func (e *Engine) run(ctx context.Context, op Operation, preview bool, opts []Option, do body) (res *Result, err error) {
	d := &deployment{e: e, op: op, preview: preview, events: &eventSink{fn: e.cfg.OnEvent}, start: time.Now()}
	d.lasting = context.WithoutCancel(ctx)
	for _, o := range opts {
		o(&d.opts)
	}
	d.secrets = d.opts.secrets
	if d.secrets == nil {
		d.secrets = &resource.SecretFilter{}
	}
	for _, v := range e.cfg.Config {
		d.secrets.Add(v)
	}
	d.events.secrets = d.secrets
	// Last of all, the error returned is masked (secrets.go).
	defer func() { err = d.secrets.MaskError(err) }()
	d.events.emit(OperationStartEvent{Operation: op, Preview: preview, Project: e.cfg.Project, Stack: e.cfg.Stack, Time: d.start})
	defer func() { d.summarize(err) }()
	defer func() {
		// Cancelled before anything ran: say so, not "context canceled".
		if res == nil && err != nil && ctx.Err() != nil && (errors.Is(err, ctx.Err()) || errors.Is(err, context.Cause(ctx))) {
			err = &CancelledError{Operation: op, Cause: context.Cause(ctx), Preview: preview}
		}
	}()

	if !d.preview {
		lock, err := e.cfg.Store.Lock(ctx, e.cfg.stackID(), string(op))
		if err != nil {
			return nil, err
		}
		if r, ok := lock.(state.ReplacedLock); ok {
			if stale := r.Replaced(); stale != nil {
				d.events.emit(DiagnosticEvent{Severity: SeverityWarning, Message: stale.String()})
			}
		}
		defer func() {
			if uerr := lock.Unlock(context.WithoutCancel(ctx)); uerr != nil && err == nil {
				err = fmt.Errorf("releasing the stack lock: %w", uerr)
			}
		}()
	}
	if err := d.load(ctx); err != nil {
		return nil, err
	}
	defer d.closeProviders(ctx, &err)
	defer d.signalOnCancel(ctx)()
	d.host.Start(ctx)
	opErr := do(ctx, d)
	d.host.Stop()
	res, err = d.commit(ctx, opErr)
	d.recordHistory(ctx, res, err)
	return res, err
}

// signalOnCancel has the providers signalled as soon as ctx is cancelled
// (the host's SIGINT), so that the calls in flight wind down and their
// steps end and are recorded. The function it returns stops watching,
// waiting for a signal under way.
func (d *deployment) signalOnCancel(ctx context.Context) func() {
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(done)
		if err := d.registry.SignalCancellation(context.WithoutCancel(ctx)); err != nil {
			d.events.emit(DiagnosticEvent{Severity: SeverityWarning, Message: "signalling the providers to cancel: " + err.Error()})
		}
	})
	return func() {
		if !stop() {
			<-done
		}
	}
}

// strayWait bounds how long closing the providers waits for the provider
// calls the operation stopped waiting for: a plugin's ends as soon as its
// context does; an in-process provider that ignores its context may never
// return.
const strayWait = 100 * time.Millisecond

// closeProviders shuts the providers down, waiting for their calls in
// flight; when a call the operation stopped waiting for still runs
// (deploy.Bounds.Stray), it does not wait: it says so, and the providers are closed
// at once, that call still running.
func (d *deployment) closeProviders(ctx context.Context, errp *error) {
	if d.registry == nil || d.e.cfg.KeepProviders {
		return
	}
	cctx := context.WithoutCancel(ctx)
	if n := d.bounds.Stray(cctx, strayWait); n > 0 {
		msg := "a provider call had not returned when the operation ended; its provider is closed without waiting for it"
		if n > 1 {
			msg = fmt.Sprintf("%d provider calls had not returned when the operation ended; their providers are closed without waiting for them", n)
		}
		d.events.emit(DiagnosticEvent{Severity: SeverityWarning, Message: msg})
		var cancel context.CancelFunc
		cctx, cancel = context.WithCancel(cctx)
		cancel()
	}
	if err := d.registry.Close(cctx); err != nil && *errp == nil {
		*errp = fmt.Errorf("shutting down providers: %w", err)
	}
}
