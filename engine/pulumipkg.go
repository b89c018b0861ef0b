package engine

import (
	"github.com/groundwork-iac/groundwork/providers/pulumi"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// Every deployment serves the "pulumi" package itself (package
// providers/pulumi): getResource, stack references and stashes. Its
// provider resources ("pulumi:providers:pulumi") and the references to
// them are answered by the same provider, which the deployment's provider
// source (providers.Source, load.go) serves in place of the registry,
// whatever factories the host holds.

// newBuiltin returns the deployment's provider of the "pulumi" package:
// it reads the states the deployment's steps produce, and the other
// stacks of the engine's store.
func (d *deployment) newBuiltin() *pulumi.Provider {
	return pulumi.New(pulumi.Config{
		Resources: producedStates{d},
		Stacks:    pulumi.StoreStacks{Store: d.e.cfg.Store, Project: d.e.cfg.Project},
	})
}

// producedStates looks up the states the deployment's steps have produced,
// for getResource. The host is built after the provider, before any step
// runs.
type producedStates struct{ d *deployment }

// Resource returns the latest state a completed step of the deployment has
// produced under urn (deploy.Host.Resource).
func (p producedStates) Resource(urn resource.URN) (*resource.State, bool) {
	return p.d.host.Resource(urn)
}

// StackReferenceError reports a stack reference whose name is not one of
// the forms ParseStackReference reads (pulumi.StackReferenceError).
type StackReferenceError = pulumi.StackReferenceError

// StackNotFoundError reports a stack reference to a stack the state store
// does not hold (pulumi.StackNotFoundError).
type StackNotFoundError = pulumi.StackNotFoundError

// ParseStackReference reads the name a stack reference gives into the
// stack it names.
//
// Deprecated: use pulumi.ParseStackReference (package providers/pulumi),
// which this forwards to.
func ParseStackReference(project, name string) (state.StackID, error) {
	return pulumi.ParseStackReference(project, name)
}
