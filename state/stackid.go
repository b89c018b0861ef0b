package state

import (
	"fmt"
	"strings"
)

// StackID names a stack: a project's stack, as every store keys it. Two
// projects may each have a stack of the same name in one store; they are
// two stacks that share nothing. Its text form is "project/stack".
type StackID struct {
	Project string
	Stack   string
}

// String returns "project/stack".
func (id StackID) String() string { return id.Project + "/" + id.Stack }

// Check reports whether both names are valid (see CheckProjectName and
// CheckStackName).
func (id StackID) Check() error {
	if err := CheckProjectName(id.Project); err != nil {
		return err
	}
	return CheckStackName(id.Stack)
}

// StackNameError reports a stack name that is not allowed. Names are 1 to
// 100 characters from [A-Za-z0-9._-], beginning with a letter, digit or
// underscore — so a name is always one plain folder name, never a path.
type StackNameError struct{ Name string }

// Error quotes the name and the rule.
func (e *StackNameError) Error() string {
	return fmt.Sprintf("%q is not a valid stack name: use 1-100 letters, digits, '.', '_' or '-', beginning with a letter, digit or '_'", e.Name)
}

// ProjectNameError reports a project name that is not allowed. The rule
// is the one for stack names (see StackNameError).
type ProjectNameError struct{ Name string }

// Error quotes the name and the rule.
func (e *ProjectNameError) Error() string {
	return fmt.Sprintf("%q is not a valid project name: use 1-100 letters, digits, '.', '_' or '-', beginning with a letter, digit or '_'", e.Name)
}

// CheckStackName reports whether name is a valid stack name.
func CheckStackName(name string) error {
	if !plainName(name) {
		return &StackNameError{name}
	}
	return nil
}

// CheckProjectName reports whether name is a valid project name.
func CheckProjectName(name string) error {
	if !plainName(name) {
		return &ProjectNameError{name}
	}
	return nil
}

// plainName reports whether name is 1-100 characters of [A-Za-z0-9._-]
// beginning with a letter, digit or underscore.
func plainName(name string) bool {
	if len(name) == 0 || len(name) > 100 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
		case i > 0 && (c == '.' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// CompareStackIDs orders stacks by project, then by stack name, for
// slices.SortFunc.
func CompareStackIDs(a, b StackID) int {
	if c := strings.Compare(a.Project, b.Project); c != 0 {
		return c
	}
	return strings.Compare(a.Stack, b.Stack)
}

// UnattributedProject is the project a store's upgrade files a stack
// under when the stack was recorded before stores kept stacks by project
// and its records name no project: it holds no resource (say, every one
// was destroyed), so no project's operation can claim it by its records.
// Its secrets state and name are kept; Store.Remove removes it.
const UnattributedProject = "_unattributed"
