package stepgen

import (
	"fmt"
	"strings"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// RegistrationError is a registration the generator cannot accept.
type RegistrationError struct {
	URN    resource.URN // set once the URN is known
	Type   string
	Name   string
	Reason string
}

func (e *RegistrationError) Error() string {
	switch {
	case e.URN != "":
		return fmt.Sprintf("registering %s: %s", e.URN, e.Reason)
	case e.Type == "" && e.Name == "":
		return fmt.Sprintf("registering a resource: %s", e.Reason)
	}
	return fmt.Sprintf("registering %s %q: %s", e.Type, e.Name, e.Reason)
}

// DuplicateURNError reports a second registration of the same URN in one run.
type DuplicateURNError struct {
	URN resource.URN
}

func (e *DuplicateURNError) Error() string {
	return fmt.Sprintf("resource %s is registered twice in this program; give each resource a unique name (or a different parent)", e.URN)
}

// CheckFailedError reports inputs the provider rejected.
type CheckFailedError struct {
	URN      resource.URN
	Failures []providers.CheckFailure
}

func (e *CheckFailedError) Error() string {
	parts := make([]string, len(e.Failures))
	for i, f := range e.Failures {
		parts[i] = f.String()
	}
	return fmt.Sprintf("resource %s has invalid inputs: %s", e.URN, strings.Join(parts, "; "))
}

// AliasError reports aliases that match more than one old resource.
type AliasError struct {
	URN     resource.URN
	Matches []resource.URN
}

func (e *AliasError) Error() string {
	ms := make([]string, len(e.Matches))
	for i, m := range e.Matches {
		ms[i] = string(m)
	}
	return fmt.Sprintf("resource %s: its aliases match more than one recorded resource (%s); keep only the alias of the resource it replaces", e.URN, strings.Join(ms, ", "))
}

// ProtectedError reports an attempt to delete or replace a protected
// resource.
type ProtectedError struct {
	URN    resource.URN
	Action string // "delete" or "replace"
	// For, when set, is the resource whose delete-before-replace would
	// replace this one, a dependent of it.
	For resource.URN
}

func (e *ProtectedError) Error() string {
	if e.For != "" {
		return fmt.Sprintf("resource %s is protected and cannot be %sd as part of replacing %s, which it depends on; remove its protect option and run an update that does not replace %s first",
			e.URN, e.Action, e.For, e.For.Name())
	}
	return fmt.Sprintf("resource %s is protected and cannot be %sd; remove the protect option (and run an update) first", e.URN, e.Action)
}

// DanglingDependentError reports a delete that would leave a resource
// depending on something that no longer exists.
type DanglingDependentError struct {
	URN       resource.URN
	Dependent resource.URN
}

func (e *DanglingDependentError) Error() string {
	return fmt.Sprintf("cannot delete %s: %s depends on it and is not being deleted; include the dependent in the targets (or target with dependents)", e.URN, e.Dependent)
}

// ImportMismatchError reports an import whose program inputs differ from
// the resource that exists.
type ImportMismatchError struct {
	URN  resource.URN
	ID   resource.ID
	Keys []resource.PropertyKey
}

func (e *ImportMismatchError) Error() string {
	keys := make([]string, len(e.Keys))
	for i, k := range e.Keys {
		keys[i] = string(k)
	}
	return fmt.Sprintf("importing %s (id %s): the program's inputs differ from the existing resource in: %s; change the program to match it, then import again", e.URN, e.ID, strings.Join(keys, ", "))
}

// callFailed is the failure err of a provider call doing what ("checking",
// "diffing") to the resource urn. It names the resource once: an error
// that names it already (the registry's, for a provider resource) is
// passed on as it is.
func callFailed(what string, urn resource.URN, err error) error {
	if strings.Contains(err.Error(), string(urn)) {
		return err
	}
	return fmt.Errorf("%s %s: %w", what, urn, err)
}
