package plan

import (
	"slices"

	"github.com/groundwork-iac/groundwork/resource"
)

// Plan is what a preview decided for one stack.
type Plan struct {
	// Project and Stack name the stack the plan was made for; an update
	// of another stack refuses it.
	Project string
	Stack   string
	// State is the Fingerprint of the stack's state the plan was made
	// against; an operation on any other state refuses the plan with a
	// *StaleError.
	State string
	// Resources holds, per URN, what was planned for the resource.
	Resources map[resource.URN]*Resource
}

// Resource is what a plan holds for one resource.
type Resource struct {
	// Goal is what the program declared, nil for a resource the plan only
	// deletes (or reads, or leaves alone outside the targets).
	Goal *Goal
	// Ops are the planned steps, in the order they were to run.
	Ops []Op
}

// Op is the kind of a planned step; the values are those of the engine's
// step kinds.
type Op string

// The step kinds a plan holds.
const (
	OpSame              Op = "same"
	OpCreate            Op = "create"
	OpUpdate            Op = "update"
	OpDelete            Op = "delete"
	OpReplace           Op = "replace"
	OpCreateReplacement Op = "create-replacement"
	OpDeleteReplaced    Op = "delete-replaced"
	OpRead              Op = "read"
	OpImport            Op = "import"
	OpDiscard           Op = "discard"
)

// Goal is what the program declared for a resource when the plan was
// made: its options, and how its checked inputs (and, for a component or
// the stack, its registered outputs) were to change from those recorded.
type Goal struct {
	Custom                  bool
	Parent                  resource.URN
	Provider                string
	Protect                 bool
	DeleteBeforeReplace     bool
	RetainOnDelete          bool
	DeletedWith             resource.URN
	ImportID                resource.ID
	IgnoreChanges           []string
	ReplaceOnChanges        []string
	AdditionalSecretOutputs []resource.PropertyKey
	Dependencies            []resource.URN
	PropertyDependencies    map[resource.PropertyKey][]resource.URN
	Aliases                 []resource.Alias
	CustomTimeouts          resource.CustomTimeouts
	// Inputs is how the checked inputs were to change.
	Inputs Diff
	// Outputs is how the registered outputs were to change.
	Outputs Diff
}

// Diff is a planned change of a property map, by top-level key. A key in
// none of the three was to stay as it was.
type Diff struct {
	// Adds are keys that were to get a value they did not have.
	Adds resource.PropertyMap
	// Updates are keys whose value was to change, with the new value.
	Updates resource.PropertyMap
	// Deletes are keys that were to lose their value.
	Deletes []resource.PropertyKey
}

// IsEmpty reports whether the diff plans no change.
func (d Diff) IsEmpty() bool { return len(d.Adds) == 0 && len(d.Updates) == 0 && len(d.Deletes) == 0 }

// NewDiff records how news differs from olds. A null value counts as no
// value; values are compared exactly, so an unknown value in news is a
// change.
func NewDiff(olds, news resource.PropertyMap) Diff {
	var d Diff
	for k, n := range news {
		o, had := olds[k]
		had = had && !o.IsNull()
		switch {
		case n.IsNull():
			if had {
				d.Deletes = append(d.Deletes, k)
			}
		case !had:
			if d.Adds == nil {
				d.Adds = resource.PropertyMap{}
			}
			d.Adds[k] = n
		case !o.DeepEquals(n):
			if d.Updates == nil {
				d.Updates = resource.PropertyMap{}
			}
			d.Updates[k] = n
		}
	}
	for k, o := range olds {
		if _, ok := news[k]; !ok && !o.IsNull() {
			d.Deletes = append(d.Deletes, k)
		}
	}
	slices.Sort(d.Deletes)
	return d
}

// GoalOf returns the options of a program's goal; its Inputs and Outputs
// are left empty.
func GoalOf(g *resource.Goal) *Goal {
	return &Goal{
		Custom: g.Custom, Parent: g.Parent, Provider: g.Provider, Protect: g.Protect,
		DeleteBeforeReplace: g.DeleteBeforeReplace, RetainOnDelete: g.RetainOnDelete, DeletedWith: g.DeletedWith,
		ImportID: g.ImportID, IgnoreChanges: g.IgnoreChanges, ReplaceOnChanges: g.ReplaceOnChanges,
		AdditionalSecretOutputs: g.AdditionalSecretOutputs, Dependencies: g.Dependencies,
		PropertyDependencies: g.PropertyDependencies, Aliases: g.Aliases, CustomTimeouts: g.CustomTimeouts,
	}
}
