package resource

import (
	"maps"
	"slices"
)

// HookKind says when a resource hook runs: before or after the create,
// update or delete of the resource it is bound to.
type HookKind string

// The kinds of resource hooks.
const (
	HookBeforeCreate HookKind = "beforeCreate"
	HookAfterCreate  HookKind = "afterCreate"
	HookBeforeUpdate HookKind = "beforeUpdate"
	HookAfterUpdate  HookKind = "afterUpdate"
	HookBeforeDelete HookKind = "beforeDelete"
	HookAfterDelete  HookKind = "afterDelete"
)

// HookKinds are the kinds of resource hooks, in the order of a resource's
// life.
var HookKinds = []HookKind{HookBeforeCreate, HookAfterCreate, HookBeforeUpdate, HookAfterUpdate, HookBeforeDelete, HookAfterDelete}

// Hooks names the resource hooks bound to a resource, by kind, each list
// in the order its hooks run. A resource's state records them, so that the
// hooks of its delete are known once the program no longer declares it.
type Hooks map[HookKind][]string

// Clone returns a copy of h that may be changed without affecting h.
func (h Hooks) Clone() Hooks {
	if h == nil {
		return nil
	}
	out := maps.Clone(h)
	for k, v := range out {
		out[k] = slices.Clone(v)
	}
	return out
}

// Equal reports whether h and o bind the same hooks (nil and empty lists
// are alike).
func (h Hooks) Equal(o Hooks) bool {
	for _, k := range HookKinds {
		if !slices.Equal(h[k], o[k]) {
			return false
		}
	}
	return true
}

// HookArgs is what a resource hook is told about the step it runs around.
// A field the step does not have is empty: a create has no old inputs or
// outputs, a delete no new ones, and a before hook no new outputs.
type HookArgs struct {
	Kind HookKind
	URN  URN
	// ID is the resource's ID; "" before its create.
	ID   ID
	Name string
	Type string
	// NewInputs are the checked inputs the step gives the resource.
	NewInputs PropertyMap
	// OldInputs and OldOutputs are what the state recorded before the step.
	OldInputs  PropertyMap
	OldOutputs PropertyMap
	// NewOutputs are the outputs the step produced (after hooks only).
	NewOutputs PropertyMap
}
