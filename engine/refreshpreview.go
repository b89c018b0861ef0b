package engine

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/state/memstore"
)

// previewRefreshed previews program against the stack as a refresh would
// leave it, writing nothing to the stack's store: it copies the stack into
// a store in memory, refreshes the copy there (reading every resource from
// its provider, as PreviewRefresh does), then previews against the result.
// The refresh's events are marked as a preview's, since nothing the host
// keeps is changed by it.
func (e *Engine) previewRefreshed(ctx context.Context, program Program, opts []Option) (*Result, error) {
	snap, err := e.cfg.Store.Load(ctx, e.cfg.stackID())
	if err != nil {
		return nil, err
	}
	scratch := memstore.New()
	// The copy's secrets are the scratch store's own.
	copied := *snap
	copied.Secrets = nil
	if err := scratch.Save(ctx, e.cfg.stackID(), &copied); err != nil {
		return nil, fmt.Errorf("copying stack %q to refresh it for the preview: %w", e.cfg.Stack, err)
	}
	shadow := &Engine{cfg: e.cfg}
	shadow.cfg.Store = scratch
	onEvent := e.cfg.OnEvent
	if onEvent != nil {
		shadow.cfg.OnEvent = func(ev Event) { onEvent(asPreview(ev)) }
	}
	if _, err := shadow.run(ctx, OpRefresh, false, opts, refresh); err != nil {
		return nil, fmt.Errorf("refreshing before the preview: %w", err)
	}
	shadow.cfg.OnEvent = onEvent
	return shadow.run(ctx, OpPreview, true, opts, update(program))
}

// asPreview marks the events of the scratch refresh as a preview's.
func asPreview(ev Event) Event {
	switch e := ev.(type) {
	case OperationStartEvent:
		e.Preview = true
		return e
	case StepStartEvent:
		e.Preview = true
		return e
	case StepDoneEvent:
		e.Preview = true
		return e
	case StepFailedEvent:
		e.Preview = true
		return e
	}
	return ev
}
