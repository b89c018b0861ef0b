package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/groundwork-iac/groundwork/plan"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// GeneratePlan makes an operation (normally a Preview) record what it
// decides as a plan: every step, every resource's options and how its
// inputs were to change, and the state it was made against. The plan is
// in Result.Plan when the operation succeeds; MarshalPlan saves it for Up
// to apply with UsePlan.
func GeneratePlan() Option { return func(o *options) { o.generatePlan = true } }

// UsePlan makes Up apply exactly what p planned. A step the plan does not
// allow, a resource option other than planned or an input outside the plan
// (a value known when the plan was made must come out the same; one that
// was unknown may become anything) fails its resource's registration with
// a *plan.ViolationError naming the resource and the property, before its
// provider is asked to change anything; a planned step that never
// happened fails the operation at its end. Given to Preview, it shows
// whether the program still keeps to the plan.
//
// A plan holds for the state it was made against (see plan.Fingerprint):
// given to an operation on a stack whose state has changed since (the
// plan was applied already, or another update ran), it is refused with a
// *plan.StaleError before anything runs.
func UsePlan(p *plan.Plan) Option { return func(o *options) { o.plan = p } }

// checkPlan refuses a plan made for another stack, or against another
// state of this one (a *plan.StaleError).
func (d *deployment) checkPlan() error {
	p, cfg := d.opts.plan, d.e.cfg
	if p == nil {
		return nil
	}
	if p.Project != cfg.Project || p.Stack != cfg.Stack {
		return fmt.Errorf("the plan was made for stack %q of project %q, not %q of %q; make one for this stack with a preview",
			p.Stack, p.Project, cfg.Stack, cfg.Project)
	}
	if now := plan.Fingerprint(d.base); p.State != now {
		return &plan.StaleError{Stack: cfg.Stack, Planned: p.State, Current: now}
	}
	return nil
}

// MarshalPlan writes p as versioned JSON (package plan), its secrets
// sealed by the stack's secrets manager, for UnmarshalPlan to read back in
// this process or another.
func (e *Engine) MarshalPlan(ctx context.Context, p *plan.Plan) ([]byte, error) {
	if p == nil {
		return nil, errors.New("there is no plan to save: run the preview with GeneratePlan")
	}
	var mgr secrets.Manager
	if sp, ok := e.cfg.Store.(state.SecretsProvider); ok {
		var err error
		mgr, err = sp.SecretsManager(ctx, e.cfg.stackID(), nil)
		if err != nil && !errors.Is(err, state.ErrNoSecretsManager) {
			return nil, fmt.Errorf("saving the plan: %w", err)
		}
	}
	data, err := plan.Marshal(ctx, p, mgr)
	if err != nil {
		return nil, fmt.Errorf("saving the plan: %w", err)
	}
	return data, nil
}

// UnmarshalPlan reads a plan MarshalPlan wrote, opening its secrets with
// the stack's secrets provider (a wrong passphrase fails here).
func (e *Engine) UnmarshalPlan(ctx context.Context, data []byte) (*plan.Plan, error) {
	var open plan.Opener
	if sp, ok := e.cfg.Store.(state.SecretsProvider); ok {
		open = func(ctx context.Context, recorded *state.SecretsState) (secrets.Manager, error) {
			return sp.SecretsManager(ctx, e.cfg.stackID(), recorded)
		}
	}
	return plan.Unmarshal(ctx, data, open)
}
