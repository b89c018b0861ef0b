package engine

import (
	"github.com/groundwork-iac/groundwork/plan"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// Result is what an operation did.
type Result struct {
	// Steps lists every step that ran (in a preview: would run), in
	// completion order, failed and skipped ones too: the steps of every
	// resource, default providers and the stack included, and two kinds
	// that call no provider: StepReplace, which follows the create of a
	// replacement and stands for the replacement as a whole, and
	// StepOutputs, which records a component's (or the stack's)
	// registered outputs.
	Steps []StepRecord
	// Snapshot is the state the operation left (for a preview, the state
	// it started from).
	Snapshot *state.Snapshot
	// Outputs are the stack outputs the operation recorded (a preview:
	// would record): those the program registered when nothing failed;
	// after a failure, the outputs recorded before with the registered
	// ones over them. Nil when no program registered outputs.
	Outputs resource.PropertyMap
	// Counts holds how many of the user's resources each kind of change
	// touched (in a preview: would touch), as the display's summary,
	// SummaryEvent and CancelledError count them: every resource whose
	// steps succeeded, once, under the strongest kind among them (the
	// steps of a replacement count as one StepReplace); default
	// providers and StepOutputs steps are not counted. Steps lists every
	// step.
	Counts map[StepOp]int
	// Plan is what the operation decided, when it ran with GeneratePlan
	// and succeeded.
	Plan *plan.Plan
}

// StepRecord is one step an operation ran (or, in a preview, would run).
type StepRecord struct {
	Op  StepOp
	URN resource.URN
	// Keys are the top-level properties whose change the step makes: set
	// for an update and for the steps of a replacement (but the delete of
	// a create-before-delete replacement's old copy), nil for other
	// steps.
	Keys []resource.PropertyKey
	// Diff is the provider's detailed diff, by property path ("tags.env",
	// "ports[0]"), where the provider gave one; nil otherwise. A secret's
	// value never appears in it: it says only how each property changes.
	Diff map[string]resource.PropertyDiff
	// Err is the step's failure, nil on success.
	Err error
	// Skipped is set for a step that did not run because a step it
	// needed failed; Err then says which.
	Skipped bool
}

// HasChanges reports whether any step changed (or, in a preview, would
// change) something.
func (r *Result) HasChanges() bool {
	for _, s := range r.Steps {
		if s.Err == nil && s.Op != StepSame && s.Op != StepRead && s.Op != StepOutputs {
			return true
		}
	}
	return false
}

// StepOp is what a step does to its resource.
type StepOp string

// The kinds of step.
const (
	// StepSame carries a resource over unchanged.
	StepSame StepOp = "same"
	// StepCreate creates a new resource.
	StepCreate StepOp = "create"
	// StepUpdate updates a resource in place.
	StepUpdate StepOp = "update"
	// StepDelete deletes a resource the program no longer declares.
	StepDelete StepOp = "delete"
	// StepReplace follows the create (or read) of a replacement and stands
	// for the replacement as a whole; it calls no provider.
	StepReplace StepOp = "replace"
	// StepCreateReplacement creates the replacement of a resource.
	StepCreateReplacement StepOp = "create-replacement"
	// StepDeleteReplaced deletes the old copy of a replaced resource.
	StepDeleteReplaced StepOp = "delete-replaced"
	// StepRead reads an external resource. When the stack managed a
	// resource under the same URN and ID, the read relinquishes it: the
	// stack stops managing it and deletes nothing.
	StepRead StepOp = "read"
	// StepReadReplacement reads an external resource that takes the place
	// of one the stack managed under the same URN with another ID; the
	// managed one is deleted after the program.
	StepReadReplacement StepOp = "read-replacement"
	// StepImport adopts an existing physical resource.
	StepImport StepOp = "import"
	// StepRefresh reads a recorded resource to pick up drift.
	StepRefresh StepOp = "refresh"
	// StepOutputs records a component's registered outputs.
	StepOutputs StepOp = "outputs"
	// StepDiscard forgets a resource without deleting it physically: one
	// the program read and no longer reads (Pulumi's "discard").
	StepDiscard StepOp = "discard"
)
