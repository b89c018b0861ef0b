package engine

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// State returns the stack's recorded state as the last operation left it,
// without running an operation or taking the stack's lock. A stack that
// was never deployed has no resources. Secret values stay wrapped as
// secrets.
func (e *Engine) State(ctx context.Context) (*state.Snapshot, error) {
	snap, err := e.cfg.Store.Load(ctx, e.cfg.stackID())
	if err != nil {
		return nil, fmt.Errorf("loading stack %q: %w", e.cfg.Stack, err)
	}
	return snap, nil
}

// Outputs returns the stack outputs the last update recorded, without
// running an operation: the outputs of the stack's root resource. It is
// nil for a stack that has none. Secret values stay wrapped as secrets.
func (e *Engine) Outputs(ctx context.Context) (resource.PropertyMap, error) {
	snap, err := e.State(ctx)
	if err != nil {
		return nil, err
	}
	if r := snap.StackResource(); r != nil {
		return r.Outputs, nil
	}
	return nil, nil
}
