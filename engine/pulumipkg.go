package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

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

// newBuiltin returns the deployment's provider of the "pulumi" package.
func (d *deployment) newBuiltin() *pulumi.Provider {
	return pulumi.New(pulumi.Config{
		Resources: producedStates{d},
		Stacks:    &stackOutputs{store: d.e.cfg.Store, project: d.e.cfg.Project},
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

// stackOutputs reads the outputs of the other stacks of the engine's
// store. Each stack is loaded, and its secrets decrypted, with its own
// secrets manager (the store's secrets provider gives each stack its own),
// so a stack reference needs nothing of the referring stack's.
type stackOutputs struct {
	store   state.Store
	project string // the referring stack's project
}

// ParseStackReference reads the name a stack reference gives, as the
// SDKs write it, into the stack it names: "stack" is a stack of project,
// the referring stack's; "project/stack" and
// "organization/project/stack" name the project. A store has no
// organizations, so any organization is accepted and ignored.
func ParseStackReference(project, name string) (state.StackID, error) {
	parts := strings.Split(name, "/")
	var id state.StackID
	switch len(parts) {
	case 1:
		id = state.StackID{Project: project, Stack: parts[0]}
	case 2, 3:
		id = state.StackID{Project: parts[len(parts)-2], Stack: parts[len(parts)-1]}
		if len(parts) == 3 && parts[0] == "" {
			return state.StackID{}, &StackReferenceError{Name: name}
		}
	default:
		return state.StackID{}, &StackReferenceError{Name: name}
	}
	if err := id.Check(); err != nil {
		return state.StackID{}, &StackReferenceError{Name: name, Err: err}
	}
	return id, nil
}

// StackReferenceError reports a stack reference whose name is not one
// of the forms ParseStackReference reads.
type StackReferenceError struct {
	Name string
	Err  error // the name that is not valid, if one is
}

func (e *StackReferenceError) Error() string {
	msg := fmt.Sprintf("%q is not a stack reference: use \"stack\" (of this project), \"project/stack\" or \"organization/project/stack\"", e.Name)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *StackReferenceError) Unwrap() error { return e.Err }

// StackOutputs returns the outputs of the stack name names (see
// ParseStackReference).
func (s *stackOutputs) StackOutputs(ctx context.Context, name string) (resource.PropertyMap, error) {
	id, err := ParseStackReference(s.project, name)
	if err != nil {
		return nil, err
	}
	snap, err := s.store.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := checkProject(id, snap); err != nil {
		return nil, err
	}
	for _, r := range snap.Resources {
		if r.Type == resource.RootStackType && r.Parent == "" {
			return r.Outputs, nil
		}
	}
	if len(snap.Resources) > 0 {
		return resource.PropertyMap{}, nil
	}
	ids, err := s.store.List(ctx)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(ids, id) {
		return nil, &StackNotFoundError{Stack: id}
	}
	return resource.PropertyMap{}, nil
}

// StackNotFoundError reports a stack reference to a stack the state store
// does not hold.
type StackNotFoundError struct{ Stack state.StackID }

func (e *StackNotFoundError) Error() string {
	return fmt.Sprintf("stack %q of project %q was not found in the state store; deploy it first, or check the name",
		e.Stack.Stack, e.Stack.Project)
}

// Is makes errors.Is(err, state.ErrStackNotFound) hold.
func (e *StackNotFoundError) Is(target error) bool { return target == state.ErrStackNotFound }
