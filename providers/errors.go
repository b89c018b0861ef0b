package providers

import (
	"errors"
	"fmt"
	"strings"

	"github.com/groundwork-iac/groundwork/resource"
)

// Reasons a LifecycleError gives; test for them with errors.Is.
var (
	// ErrNotConfigured: the provider instance was never configured — its
	// configuration had unknown values (allowed only in a preview), or
	// configuring it failed.
	ErrNotConfigured = errors.New("the provider is not configured")
	// ErrClosed: the provider instance was closed, because its provider
	// resource was deleted or updated or the registry was shut down.
	ErrClosed = errors.New("the provider is closed")
	// ErrRegistryClosed: the registry was shut down with Close.
	ErrRegistryClosed = errors.New("the provider registry is closed")
)

// LifecycleError is a call that the provider lifecycle forbids: a resource
// operation on a provider instance that is not configured, or that is
// closed. Reason is one of ErrNotConfigured, ErrClosed or ErrRegistryClosed;
// Err, if set, is the underlying cause (e.g. why Configure failed).
type LifecycleError struct {
	// Provider names the instance: a provider reference, or a package and
	// version.
	Provider string
	// Method is the call that was refused, URN the resource it was about.
	Method string
	URN    resource.URN
	Reason error
	Err    error
}

// Error names the provider and the refused call, and says what to do.
func (e *LifecycleError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "provider %s: cannot %s", e.Provider, e.Method)
	if e.URN != "" {
		fmt.Fprintf(&b, " %s", e.URN)
	}
	fmt.Fprintf(&b, ": %v", e.Reason)
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	switch e.Reason {
	case ErrNotConfigured:
		if e.Err == nil {
			b.WriteString(" (its configuration has unknown values, which is only allowed in a preview; make the configuration known before deploying)")
		} else {
			b.WriteString(" (fix the provider's configuration or credentials and run again)")
		}
	case ErrClosed:
		b.WriteString(" (its provider resource was deleted or reconfigured, or the registry shut down; use the reference of a live provider)")
	case ErrRegistryClosed:
		b.WriteString(" (the registry was shut down; build a new one)")
	}
	return b.String()
}

// Unwrap returns the reason and the cause.
func (e *LifecycleError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Reason}
	}
	return []error{e.Reason, e.Err}
}

// NoFactoryError says that no registered factory (and no plugin the
// resolver could find) serves a package at a compatible version. Available
// lists what the package does have; Packages lists every registered package.
type NoFactoryError struct {
	Package string
	// Version is the version asked for ("" for any).
	Version   string
	Available []FactoryInfo
	Packages  []string
	// PluginPreferred says the registered factories were passed over
	// because plugins are preferred for the package (see PreferPlugins).
	PluginPreferred bool
	// ResolveErr is why the registry's Resolver found nothing, if it has
	// one.
	ResolveErr error
}

// Error names the package and version, lists what is available, and says
// which plugin to install: as the resolver's error says, when it has an
// InstallHint method (a plugin resolver's does), else with InstallCommand.
func (e *NoFactoryError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no provider for package %q", e.Package)
	if e.Version != "" {
		fmt.Fprintf(&b, " compatible with version %s (same major version, not older)", e.Version)
	}
	if len(e.Available) > 0 {
		if e.PluginPreferred {
			b.WriteString("; plugins are preferred for it, so its registered versions are not used:")
		} else {
			b.WriteString("; available versions:")
		}
		for i, info := range e.Available {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(" " + info.Version)
		}
	} else {
		b.WriteString("; none is registered")
		if len(e.Packages) > 0 {
			fmt.Fprintf(&b, " (registered packages: %s)", strings.Join(e.Packages, ", "))
		}
	}
	if e.ResolveErr != nil {
		fmt.Fprintf(&b, "; the plugin resolver failed: %v", e.ResolveErr)
	}
	var hinted interface{ InstallHint() string }
	if errors.As(e.ResolveErr, &hinted) {
		// The resolver's error says how to install the plugin where
		// the resolver looks for it.
		return b.String()
	}
	fmt.Fprintf(&b, "; %q installs its plugin", e.InstallCommand())
	if len(e.Available) == 0 {
		b.WriteString(", or register a factory for it with Registry.RegisterFactory")
	}
	return b.String()
}

// InstallCommand is the Pulumi CLI command that installs the package's
// plugin at the version asked for (the latest when none was).
func (e *NoFactoryError) InstallCommand() string {
	cmd := "pulumi plugin install resource " + e.Package
	if e.Version != "" {
		cmd += " v" + strings.TrimPrefix(e.Version, "v")
	}
	return cmd
}

// Unwrap returns the resolver's error, if any.
func (e *NoFactoryError) Unwrap() error { return e.ResolveErr }
