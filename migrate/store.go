package migrate

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/state"
)

// ImportStack reads a Pulumi deployment (FromPulumi) and records it as
// stack in store, which seals its secrets with the store's own manager. The
// URNs must name stack's project and stack (opts.Project and opts.Stack,
// when set, must be those). A stack that already has resources is refused
// unless opts.Overwrite is set: its state would be replaced.
func ImportStack(ctx context.Context, store state.Store, stack state.StackID, data []byte, opts FromOptions) (*Imported, error) {
	if opts.Stack == "" {
		opts.Stack = stack.Stack
	}
	if opts.Project == "" {
		opts.Project = stack.Project
	}
	if opts.Stack != stack.Stack || opts.Project != stack.Project {
		return nil, fmt.Errorf("importing into stack %q of project %q: the options name stack %q of project %q; leave them empty or make them agree",
			stack.Stack, stack.Project, opts.Stack, opts.Project)
	}
	imp, err := FromPulumi(ctx, data, opts)
	if err != nil {
		return nil, err
	}
	if !opts.Overwrite {
		cur, err := store.Load(ctx, stack)
		if err != nil {
			return nil, fmt.Errorf("loading stack %q: %w", stack, err)
		}
		if len(cur.Resources) > 0 {
			return nil, fmt.Errorf("stack %q already has %d resources; importing would replace its state: import into a new stack, or overwrite it on purpose", stack, len(cur.Resources))
		}
	}
	if err := store.Save(ctx, stack, imp.Snapshot); err != nil {
		return nil, fmt.Errorf("recording stack %q: %w", stack, err)
	}
	return imp, nil
}

// ExportStack writes stack's recorded state as a Pulumi deployment
// (ToPulumi).
func ExportStack(ctx context.Context, store state.Store, stack state.StackID, opts ToOptions) ([]byte, error) {
	snap, err := store.Load(ctx, stack)
	if err != nil {
		return nil, fmt.Errorf("loading stack %q: %w", stack, err)
	}
	return ToPulumi(ctx, snap, opts)
}
