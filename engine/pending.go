package engine

import (
	"fmt"
	"slices"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/pulumi"
	"github.com/groundwork-iac/groundwork/resource"
)

// unresolvable reports whether a pending operation is one a refresh cannot
// resolve: a create interrupted before its provider returned an ID, so
// that nothing says where to look for the resource it may have made. Such
// an operation stays recorded until it is discarded on purpose
// (DiscardPendingCreates); every operation warns of it meanwhile.
func unresolvable(op resource.Operation) bool {
	r := op.Resource
	return op.Kind == resource.OperationCreating && r != nil && r.Custom && r.ID == ""
}

// unresolvedMessage says what an unresolvable pending create is, why it
// stays, and what to do: find the resource by its type and inputs (secret
// ones masked), import it, then discard the pending create.
func unresolvedMessage(op resource.Operation) string {
	r := op.Resource
	return fmt.Sprintf("an earlier operation was interrupted while creating this resource, before its provider "+
		"returned an ID, so it may exist without being recorded, and a refresh cannot resolve it; it stays pending. Look for a %s with the "+
		"inputs %v and import it if it exists (gw import %s %s ID); then discard the pending create with a refresh "+
		"(the DiscardPendingCreates option, gw refresh --discard-pending-creates)",
		r.Type, r.Inputs.MaskSecrets(), r.Type, r.URN.Name())
}

// unreachable reports whether a pending operation's resource is managed by
// a provider that the stack no longer records (recorded being its
// resources): the resource and its provider were deleted after the
// operation was interrupted, so nothing says how to configure a provider
// to read the resource back. A refresh cannot look such a resource up; it
// clears the operation with a warning (unreachableMessage) rather than
// failing on it forever.
func unreachable(op resource.Operation, recorded []*resource.State) bool {
	r := op.Resource
	if r == nil || !r.Custom || r.IsProvider() || r.Provider == "" {
		return false
	}
	ref, err := providers.ParseReference(r.Provider)
	if err != nil || ref.URN.Type() == providers.ProviderType(pulumi.Package) {
		return false // the step reports a bad reference; the builtin provider needs no record
	}
	return !slices.ContainsFunc(recorded, func(s *resource.State) bool {
		return s.URN == ref.URN && s.ID == ref.ID
	})
}

// unreachableMessage says that a refresh cleared a pending operation it
// could not resolve because the resource's provider is no longer recorded,
// and what to check by hand: the resource by its type and ID.
func unreachableMessage(op resource.Operation) string {
	r := op.Resource
	return fmt.Sprintf("an earlier operation was interrupted while %s this resource, and its provider (%s) has since been "+
		"deleted from the stack, so a refresh cannot read it back; the pending operation is cleared. Check by hand whether "+
		"the %s with ID %s exists and is as you want it: import it to manage it again (gw import %s %s %s), or delete it",
		op.Kind, r.Provider, r.Type, r.ID, r.Type, r.URN.Name(), r.ID)
}

// readablePending returns the pending operations of ops whose resources a
// refresh can read: all but the unreachable ones.
func readablePending(ops []resource.Operation, recorded []*resource.State) []resource.Operation {
	var out []resource.Operation
	for _, op := range ops {
		if !unreachable(op, recorded) {
			out = append(out, op)
		}
	}
	return out
}
