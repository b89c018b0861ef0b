package state

import (
	"fmt"

	"github.com/groundwork-iac/groundwork/resource"
)

// ForeignStackError reports a snapshot, loaded as one project's stack,
// whose stack resource belongs to another project: the store handed back
// another stack's state (its files were copied or moved by hand, or a
// store keyed stacks by name alone). An operation refuses to run on it,
// since an update would delete the other stack's resources as its own
// program's leftovers.
type ForeignStackError struct {
	// Stack is the stack that was loaded.
	Stack StackID
	// URN is the URN of the snapshot's stack resource.
	URN resource.URN
}

func (e *ForeignStackError) Error() string {
	return fmt.Sprintf("the state of stack %q of project %q holds the stack resource of project %q (%s); "+
		"nothing was changed. The state was moved or copied from that project's stack: put it back, "+
		"or run the operation from project %q", e.Stack.Stack, e.Stack.Project, e.URN.Project(), e.URN, e.URN.Project())
}

// CheckProject returns a *ForeignStackError if snap's stack resource (the
// root resource of type pulumi:pulumi:Stack) belongs to another project
// than id's.
func CheckProject(id StackID, snap *Snapshot) error {
	if r := snap.StackResource(); r != nil && r.URN.Project() != id.Project {
		return &ForeignStackError{Stack: id, URN: r.URN}
	}
	return nil
}

// StackResource returns the snapshot's stack resource (its root resource
// of type pulumi:pulumi:Stack, which holds the stack's outputs), or nil
// if it has none.
func (s *Snapshot) StackResource() *resource.State {
	for _, r := range s.Resources {
		if r.Type == resource.RootStackType && r.Parent == "" {
			return r
		}
	}
	return nil
}
