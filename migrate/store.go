package migrate

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/state"
)

// ImportStack reads a Pulumi deployment (FromPulumi) and records it as
// stack in store, which seals its secrets with the store's own manager. The
// URNs must name stack (and opts.Project, when set). A stack that already
// has resources is refused unless opts.Overwrite is set: its state would
// be replaced.
func ImportStack(ctx context.Context, store state.Store, stack string, data []byte, opts FromOptions) (*Imported, error) {
	if opts.Stack == "" {
		opts.Stack = stack
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
func ExportStack(ctx context.Context, store state.Store, stack string, opts ToOptions) ([]byte, error) {
	snap, err := store.Load(ctx, stack)
	if err != nil {
		return nil, fmt.Errorf("loading stack %q: %w", stack, err)
	}
	return ToPulumi(ctx, snap, opts)
}
