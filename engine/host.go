package engine

import (
	"fmt"

	"github.com/groundwork-iac/groundwork/deploy"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// newHost wires the deployment loop (deploy.Host) to the operation: its
// generator and journal, its bounded provider source (bounds.go), its
// secret filter, its recorder (record.go), its analyzers and resource
// hooks.
func (d *deployment) newHost() *deploy.Host {
	d.rec = recorder{events: d.events, expected: len(d.base.Resources)}
	cfg := deploy.Config{
		Generator: d.gen, Journal: d.journal, Preview: d.preview,
		Parallelism: d.opts.parallelism, ContinueOnError: d.opts.continueOnError,
		Source: d.bounds, Registry: d.registry, Secrets: d.secrets,
		Observer: &d.rec, ExpectedSteps: len(d.base.Resources), Start: d.start,
		Analyze:     d.analyze,
		DeleteHooks: d.hooks.KnowsDeleteHooks,
		ApplyHooked: d.hooks.Apply,
	}
	if d.opts.expectNoChanges {
		cfg.Forbid = forbidChanges
	}
	return deploy.New(cfg)
}

// forbidChanges refuses a step that changes something, for an operation
// run with ExpectNoChanges.
func forbidChanges(s *stepgen.Step) error {
	if changes(s.Op) {
		return &ChangesError{URN: s.URN(), Op: StepOp(s.Op)}
	}
	return nil
}

// ChangesError fails an operation run with ExpectNoChanges when a step
// would change something.
type ChangesError struct {
	URN resource.URN
	Op  StepOp
}

// Error names the resource and the change it would make.
func (e *ChangesError) Error() string {
	return fmt.Sprintf("resource %s would %s, but the operation expects no changes", e.URN, e.Op)
}

// changes reports whether an operation changes something.
func changes(op stepgen.Op) bool {
	switch op {
	case stepgen.OpSame, stepgen.OpRead, stepgen.OpOutputs, stepgen.OpRefresh:
		return false
	}
	return true
}
