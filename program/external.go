package program

import (
	"context"
	"errors"
	"maps"

	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// The methods in this file are for runners of programs in other
// processes, not for programs written against the Context: such a runner
// (package langhost) is an ordinary program function that serves the deployment's
// Monitor over gRPC, starts the program with the stack's settings, and
// reports what the program prints. The stack's root resource stays the
// Context's own: the runner answers the program's registration of it with
// Root, and records the outputs the program gives it with Export.

// Monitor returns the deployment's monitor, the one entry point of every
// registration, read, invoke and call, for a runner of a program in
// another process: it serves the monitor's whole request surface (and
// tells it its address, for providers that build components) to the
// program it runs. A program written against the Context never needs it:
// the Context's methods are its requests, typed and checked.
func (c *Context) Monitor() *monitor.Monitor { return c.mon }

// Config returns a copy of the stack configuration, keyed
// "<package>:<key>", secret values wrapped with resource.NewSecret.
func (c *Context) Config() map[string]resource.PropertyValue {
	return maps.Clone(c.set.Config)
}

// Parallelism returns the operation's bound on steps running at once (see
// the engine's Parallelism option); 0 means no bound.
func (c *Context) Parallelism() int { return c.set.Parallelism }

// ContinueOnError reports whether the operation goes on after a step fails
// (the engine's ContinueOnError option): a runner then tells its program that a
// resource failed and lets it go on, instead of ending its requests.
func (c *Context) ContinueOnError() bool { return c.set.ContinueOnError }

// Log adds a diagnostic to the operation's event stream, about urn ("" for
// the operation as a whole).
func (c *Context) Log(severity Severity, urn resource.URN, message string) {
	c.host.Log(severity, urn, message)
}

// Mask returns s with the plaintext of every secret the operation has seen
// so far replaced by "[secret]" (see engine.MaskSecrets). A program host masks
// with it what it keeps of a program's output for its errors; what it
// passes to Log is masked in any case.
func (c *Context) Mask(s string) string { return c.host.Mask(s) }

// Parameterize parameterizes the provider plugin pluginPkg (at a version
// compatible with pluginVersion) for the rest of the operation, so that
// resources of the package it produces can be registered; see
// providers.Registry.Parameterize.
func (c *Context) Parameterize(ctx context.Context, pluginPkg, pluginVersion string, req providers.ParameterizeRequest) (providers.ParameterizeResponse, error) {
	return c.host.Parameterize(ctx, pluginPkg, pluginVersion, req)
}

// Defer arranges for fn to be called once the operation's steps have all
// run — after the deletes that follow the program, whether or not the
// program or a step failed — and joins its error into the operation's.
// Deferred functions run in the reverse order of their Defer calls. A
// runner whose program must outlive its registrations (to answer the
// resource hooks of those deletes) waits for the program's exit in one.
func (c *Context) Defer(fn func() error) {
	c.mu.Lock()
	c.deferred = append(c.deferred, fn)
	c.mu.Unlock()
}

// runDeferred calls the functions given to Defer, last first.
func (c *Context) runDeferred() error {
	c.mu.Lock()
	fns := c.deferred
	c.deferred = nil
	c.mu.Unlock()
	var errs []error
	for i := len(fns) - 1; i >= 0; i-- {
		errs = append(errs, fns[i]())
	}
	return errors.Join(errs...)
}
