package engine

import (
	"context"

	"github.com/groundwork-iac/groundwork/policy"
	"github.com/groundwork-iac/groundwork/resource"
)

// Analyzer is a policy pack (policy.Analyzer): it looks at each resource
// after its inputs are checked, and at the whole stack at the end of an
// operation (see Analyzers).
type Analyzer = policy.Analyzer

// PolicyFinding is one thing an analyzer found (policy.Finding).
type PolicyFinding = policy.Finding

// PolicyError reports mandatory findings (policy.ViolationError).
type PolicyError = policy.ViolationError

// analyze runs every analyzer on one checked resource; advisory findings
// become warnings.
func (d *deployment) analyze(ctx context.Context, r *resource.State) error {
	return policy.Check(ctx, d.opts.analyzers, r, d.rec.Warn)
}

// analyzeStack runs every analyzer on the stack as the operation leaves it.
func (d *deployment) analyzeStack(ctx context.Context) error {
	if len(d.opts.analyzers) == 0 {
		return nil
	}
	resources := d.base.Resources
	if d.journal != nil {
		snap, err := d.journal.Snapshot()
		if err != nil {
			return err
		}
		resources = snap.Resources
	}
	return policy.CheckStack(ctx, d.opts.analyzers, resources, d.rec.Warn)
}
