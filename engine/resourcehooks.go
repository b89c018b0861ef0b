package engine

import (
	"context"
	"time"

	"github.com/groundwork-iac/groundwork/deploy"
	"github.com/groundwork-iac/groundwork/program"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// Hooks makes hooks known to the operation by name, so that resources
// whose state records them can run them: Destroy needs it for the delete
// hooks of the resources it deletes.
func Hooks(hooks ...*Hook) Option {
	return func(o *options) { o.hooks = append(o.hooks, hooks...) }
}

// UnknownHookError is program.UnknownHookError: it fails a step whose
// resource has a hook bound that the operation does not know.
type UnknownHookError = program.UnknownHookError

// HookError is program.HookError: the failure of a before hook, which
// failed its step.
type HookError = program.HookError

// newHooks makes the operation's hook runner (program.HookRunner), which
// the deployment loop applies hooked steps through, and registers the
// hooks of the Hooks option in it.
func (d *deployment) newHooks() error {
	d.hooks = program.NewHookRunner(program.HookSettings{
		Preview: d.preview,
		Refresh: d.op == OpRefresh,
		NoWait:  d.op == OpDestroy,
		Apply: func(ctx context.Context, s *stepgen.Step) stepgen.Outcome {
			return deploy.Apply(ctx, s, d.bounds, time.Now)
		},
		Log: func(severity Severity, urn resource.URN, message string) {
			d.events.emit(DiagnosticEvent{URN: urn, Severity: severity, Message: message})
		},
	})
	for _, h := range d.opts.hooks {
		if err := d.hooks.Register(h); err != nil {
			return err
		}
	}
	return nil
}
