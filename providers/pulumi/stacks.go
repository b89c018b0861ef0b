package pulumi

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// StoreStacks reads the outputs of the stacks of a state store, for the
// stack references of a stack of Project (its Stacks). Each stack is
// loaded, and its secrets decrypted, with its own secrets manager (the
// store's secrets provider gives each stack its own), so a stack
// reference needs nothing of the referring stack's.
type StoreStacks struct {
	Store state.Store
	// Project is the referring stack's project: a name without one names
	// a stack of it.
	Project string
}

var _ Stacks = StoreStacks{}

// StackOutputs returns the outputs of the stack name names (see
// ParseStackReference): those of its stack resource, none if it has
// none. A stack the store does not hold fails with a
// *StackNotFoundError, one whose state is another project's with a
// *state.ForeignStackError.
func (s StoreStacks) StackOutputs(ctx context.Context, name string) (resource.PropertyMap, error) {
	id, err := ParseStackReference(s.Project, name)
	if err != nil {
		return nil, err
	}
	snap, err := s.Store.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := state.CheckProject(id, snap); err != nil {
		return nil, err
	}
	if r := snap.StackResource(); r != nil {
		return r.Outputs, nil
	}
	if len(snap.Resources) > 0 {
		return resource.PropertyMap{}, nil
	}
	ids, err := s.Store.List(ctx)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(ids, id) {
		return nil, &StackNotFoundError{Stack: id}
	}
	return resource.PropertyMap{}, nil
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

// Unwrap returns why a name is not valid, if one is not.
func (e *StackReferenceError) Unwrap() error { return e.Err }

// StackNotFoundError reports a stack reference to a stack the state store
// does not hold.
type StackNotFoundError struct{ Stack state.StackID }

func (e *StackNotFoundError) Error() string {
	return fmt.Sprintf("stack %q of project %q was not found in the state store; deploy it first, or check the name",
		e.Stack.Stack, e.Stack.Project)
}

// Is makes errors.Is(err, state.ErrStackNotFound) hold.
func (e *StackNotFoundError) Is(target error) bool { return target == state.ErrStackNotFound }
