package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/providers/builtin"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// Every deployment serves the "pulumi" package itself (package
// providers/builtin): getResource, stack references and stashes. Its
// provider resources ("pulumi:providers:pulumi") are answered by the same
// provider, never by the registry, whatever factories the host holds.

// isBuiltinProvider reports whether a recorded provider resource is one of
// the built-in package's, which the registry never loads.
func isBuiltinProvider(s *resource.State) bool { return s.Type == builtin.ProviderType }

// newBuiltin returns the deployment's provider of the "pulumi" package.
func (d *deployment) newBuiltin() *builtin.Provider {
	return builtin.New(builtin.Config{
		Resources: (*producedStates)(d),
		Stacks:    &stackOutputs{store: d.e.cfg.Store},
	})
}

// producedStates looks up the states the deployment's steps have produced,
// for getResource.
type producedStates deployment

// Resource returns the latest state a completed step of the deployment has
// produced under urn. The index over d.produced is built on first use and
// extended by each lookup, so that a deployment that looks nothing up pays
// only for the slice.
func (p *producedStates) Resource(urn resource.URN) (*resource.State, bool) {
	d := (*deployment)(p)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.producedIndex == nil {
		d.producedIndex = make(map[resource.URN]*resource.State, len(d.produced))
	}
	for _, s := range d.produced[d.indexed:] {
		d.producedIndex[s.URN] = s
	}
	d.indexed = len(d.produced)
	s, ok := d.producedIndex[urn]
	return s, ok
}

// stackOutputs reads the outputs of the other stacks of the engine's
// store. Each stack is loaded, and its secrets decrypted, with its own
// secrets manager (the store's secrets provider gives each stack its own),
// so a stack reference needs nothing of the referring stack's.
type stackOutputs struct {
	store state.Store
}

// StackOutputs returns the outputs of a stack, named as the SDKs name it:
// "stack", "project/stack" or "organization/project/stack". The
// organization is not checked (a store has none); a project must be the
// project the stack records.
func (s *stackOutputs) StackOutputs(ctx context.Context, name string) (resource.PropertyMap, error) {
	parts := strings.Split(name, "/")
	if len(parts) > 3 {
		return nil, fmt.Errorf("%q is not a stack name: use \"stack\", \"project/stack\" or \"organization/project/stack\"", name)
	}
	stack, project := parts[len(parts)-1], ""
	if len(parts) > 1 {
		project = parts[len(parts)-2]
	}
	if err := state.CheckStackName(stack); err != nil {
		return nil, err
	}
	snap, err := s.store.Load(ctx, stack)
	if err != nil {
		return nil, err
	}
	for _, r := range snap.Resources {
		if r.Type != resource.RootStackType || r.Parent != "" {
			continue
		}
		if project != "" && r.URN.Project() != project {
			return nil, fmt.Errorf("stack %q belongs to project %q, not %q", stack, r.URN.Project(), project)
		}
		return r.Outputs, nil
	}
	if len(snap.Resources) > 0 {
		return resource.PropertyMap{}, nil
	}
	names, err := s.store.List(ctx)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(names, stack) {
		return nil, &StackNotFoundError{Stack: stack}
	}
	return resource.PropertyMap{}, nil
}

// StackNotFoundError reports a stack reference to a stack the state store
// does not hold.
type StackNotFoundError struct{ Stack string }

func (e *StackNotFoundError) Error() string {
	return fmt.Sprintf("stack %q was not found in the state store; deploy it first, or check the name", e.Stack)
}

// Is makes errors.Is(err, state.ErrStackNotFound) hold.
func (e *StackNotFoundError) Is(target error) bool { return target == state.ErrStackNotFound }
