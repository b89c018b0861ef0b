package engine

import (
	"fmt"

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
