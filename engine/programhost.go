package engine

import (
	"context"

	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/program"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// programHost is what a program's Context reaches of its deployment
// besides the monitor (program.Host).
type programHost struct{ d *deployment }

var _ program.Host = programHost{}

func (h programHost) Monitor() *monitor.Monitor { return h.d.mon }

func (h programHost) RegisterHook(hook *Hook) error { return h.d.hooks.Register(hook) }

func (h programHost) Log(severity Severity, urn resource.URN, message string) {
	h.d.events.emit(DiagnosticEvent{URN: urn, Severity: severity, Message: message})
}

func (h programHost) Mask(s string) string { return h.d.secrets.Mask(s) }

func (h programHost) Parameterize(ctx context.Context, pluginPkg, pluginVersion string, req providers.ParameterizeRequest) (providers.ParameterizeResponse, error) {
	return h.d.registry.Parameterize(ctx, pluginPkg, pluginVersion, req)
}

// newRunner makes the runner of the operation's program.
func (d *deployment) newRunner(ctx context.Context) *program.Runner {
	return program.NewRunner(ctx, program.Settings{
		Project:         d.e.cfg.Project,
		Stack:           d.e.cfg.Stack,
		Preview:         d.preview,
		Config:          d.e.cfg.Config,
		Parallelism:     d.opts.parallelism,
		ContinueOnError: d.opts.continueOnError,
		// An import's program is not the user's: the outputs stay.
		KeepOutputs: d.op == OpImport,
	}, programHost{d})
}

// unreturnedError is the error of a program still running when the
// operation's context ended.
type unreturnedError = program.UnreturnedError
