package program

import (
	"context"

	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// Host is what a Context needs of the operation its program runs in,
// besides the monitor every registration, read, invoke and call goes
// through. Package engine implements it for each operation that runs a
// program.
type Host interface {
	// Monitor returns the operation's monitor.
	Monitor() *monitor.Monitor
	// RegisterHook makes a hook known to the operation by name (see
	// Hook); it refuses a hook that is nil, has no name or function, or
	// shares its name with another.
	RegisterHook(h *Hook) error
	// Log adds a diagnostic to the operation's event stream, masked.
	Log(severity Severity, urn resource.URN, message string)
	// Mask masks the secrets the operation has seen so far in s.
	Mask(s string) string
	// Parameterize parameterizes a provider plugin for the rest of the
	// operation (see providers.Registry.Parameterize).
	Parameterize(ctx context.Context, pluginPkg, pluginVersion string, req providers.ParameterizeRequest) (providers.ParameterizeResponse, error)
}

// Settings describe the operation a program runs in, as its Context
// reports them.
type Settings struct {
	// Project and Stack name the stack the operation works on.
	Project, Stack string
	// Preview is set when the operation is a preview.
	Preview bool
	// Config is the stack configuration, keyed "<package>:<key>", secret
	// values wrapped with resource.NewSecret; the Context gives out
	// copies.
	Config map[string]resource.PropertyValue
	// Parallelism bounds the steps running at once (0: no bound).
	Parallelism int
	// ContinueOnError is set when the operation goes on after a step
	// fails.
	ContinueOnError bool
	// KeepOutputs leaves the stack's outputs as they are recorded: the
	// run registers none. An import sets it, since its program is the
	// engine's, not the user's.
	KeepOutputs bool
}

// Severity ranks a diagnostic.
type Severity string

// The diagnostic severities.
const (
	SeverityDebug   Severity = "debug"
	SeverityInfo    Severity = "info"
	SeverityWarning Severity = "warning"
	SeverityError   Severity = "error"
)

// Runner is the host's side of one program's run within an operation:
// it makes the program's Context, runs the program function, and runs
// what the program deferred. Package engine makes one for every Up,
// Preview and Import; a host that wires the engine's parts itself makes
// its own.
type Runner struct {
	c *Context
}

// NewRunner returns a Runner whose Context serves a program of the
// operation s describes through h. ctx is the operation's context: every
// wait of the program API watches it.
func NewRunner(ctx context.Context, s Settings, h Host) *Runner {
	return &Runner{c: &Context{ctx: ctx, host: h, mon: h.Monitor(), set: s, exported: map[string]any{}}}
}

// Context returns the program's Context.
func (r *Runner) Context() *Context { return r.c }

// Run registers the stack's root resource, runs program on a goroutine of
// its own (a panic in it is a *PanicError), waits for every registration
// and computed output it started, and registers the stack outputs it set
// with Context.Export (unless Settings.KeepOutputs). It returns once all
// that is done or the operation's context has ended (then with an
// *UnreturnedError if the program function had not returned), joining the
// program's error with every registration error the deployment has not
// reported itself. Run is called once.
func (r *Runner) Run(program func(*Context) error) error { return r.c.run(program) }

// Import registers, from the program function Run runs, one resource of a
// standalone import: goal as it is (a custom resource with an import ID),
// parented to the stack's root when it names no parent.
func (r *Runner) Import(goal *resource.Goal) { r.c.importGoal(goal) }

// RunDeferred calls the functions the program gave Context.Defer, last
// first, and joins their errors. The host calls it once the operation's
// steps have all run.
func (r *Runner) RunDeferred() error { return r.c.runDeferred() }
