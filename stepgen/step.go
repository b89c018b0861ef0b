package stepgen

import (
	"fmt"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// Op is what a step does to its resource.
type Op string

// The step operations.
const (
	OpSame   Op = "same"   // nothing changes; the state is carried over
	OpCreate Op = "create" // a new resource is created
	OpUpdate Op = "update" // the resource is updated in place
	OpDelete Op = "delete" // a resource no longer in the program is deleted
	// OpReplace follows the create of a replacement (create-before-delete)
	// and stands for the replacement as a whole; it calls no provider and
	// records nothing.
	OpReplace Op = "replace"
	// OpCreateReplacement creates the replacement of a resource; when it
	// succeeds, its record condemns the old copy (see Outcome.Condemns).
	OpCreateReplacement Op = "create-replacement"
	// OpDeleteReplaced deletes the old copy of a replaced resource.
	OpDeleteReplaced Op = "delete-replaced"
	// OpRead reads an external resource. With an Old that the stack
	// managed under the same URN and ID, it relinquishes that resource:
	// the record becomes the external one, and nothing is deleted.
	OpRead Op = "read"
	// OpReadReplacement reads an external resource in place of one the
	// stack managed under the same URN with another ID; when it
	// succeeds, its record condemns the managed one (see
	// Outcome.Condemns), which is deleted after the program.
	OpReadReplacement Op = "read-replacement"
	// OpImport adopts an existing physical resource.
	OpImport Op = "import"
	// OpRefresh reads a recorded resource to pick up drift.
	OpRefresh Op = "refresh"
	// OpOutputs records a component's registered outputs.
	OpOutputs Op = "outputs"
	// OpDiscard forgets a resource without deleting it physically: one
	// the program read and no longer reads (Pulumi's "discard").
	OpDiscard Op = "discard"
)

// Step is one action on one resource: plain data. The generator issues
// steps; a host runs each (deploy.Apply does), once the steps it Needs have
// succeeded, and feeds how it went back to the generator as an Outcome
// (Generator.Done). Old is the recorded state the step acts on (nil for a
// create) and New the state it asks for (nil for a delete). Nothing
// changes a step once it is issued: what it produces comes back in its
// Outcome.
type Step struct {
	// ID names the step among the steps of its generator; IDs grow in the
	// order steps are issued.
	ID uint64
	// Needs are the steps that must have succeeded before this one runs:
	// the step before it in its sequence (the deletes of a
	// delete-before-replace, then the create; the create of a
	// replacement, then the replace step), the steps of the resources it
	// depends on (parent, dependencies, provider) and, for a delete, the
	// deletes of the resources that depend on it. A step whose need
	// failed or was skipped is skipped too.
	Needs []uint64
	// After is the step issued before this one on the same resource, when
	// it is not among Needs: it must have ended, however, before this one
	// runs, so that the steps on one resource run in the order they were
	// issued. A host that waits for Needs and After gets the order the
	// engine gets.
	After []uint64
	Op    Op
	urn   resource.URN
	Old   *resource.State
	New   *resource.State
	// Reg is the registration this step answers; nil for steps the
	// generator issued on its own (deletes after the program, refreshes).
	Reg *Registration
	// Diff is the provider's diff for updates and replacements.
	Diff resource.DiffResult
	// Keys are the top-level properties that changed.
	Keys []resource.PropertyKey
	// Preview steps call no provider that could change anything.
	Preview bool

	// skipProvider removes the record without calling the provider (a
	// resource deleted together with another, or already gone).
	skipProvider bool
	// goesWith marks the delete of a resource deleted with another: it
	// records nothing itself, since its record leaves in the journal
	// entry of the other's delete (the step that has it in With).
	goesWith bool
	// skipRecord marks a step that leaves no record (an untargeted
	// resource that does not exist yet).
	skipRecord bool
	// rare holds what few steps carry, apart, so that the common step is
	// small; nil for none of it.
	rare *stepRare
}

// stepRare is what few steps carry.
type stepRare struct {
	// with, on the delete of a resource others are deleted with, lists
	// the records that leave the state together with Old (see With).
	with []*resource.State
	// seed is the random seed for the Check an import makes.
	seed []byte
	// refused is why the generator refused the step: Apply returns it
	// without calling a provider (see Refused).
	refused error
	// aside says the step does not become the last on its resource, the
	// one the steps of the resource's dependents need (deleteOldCopy).
	aside bool
	// held says the step is a refused delete the generator hands over
	// through Refused rather than issues: it is never outstanding.
	held bool
}

// more returns the step's rare part, making it on first use.
func (s *Step) more() *stepRare {
	if s.rare == nil {
		s.rare = &stepRare{}
	}
	return s.rare
}

// refuse records why the generator refuses the step; nil refuses nothing.
func (s *Step) refuse(err error) {
	if err != nil {
		s.more().refused = err
	}
}

// ImportSeed returns the random seed for the Check an import makes.
func (s *Step) ImportSeed() []byte {
	if s.rare == nil {
		return nil
	}
	return s.rare.seed
}

// URN returns the URN of the resource the step acts on.
func (s *Step) URN() resource.URN { return s.urn }

// String names the step's resource, as the dag walker names vertices.
func (s *Step) String() string { return string(s.urn) }

// Applied reports whether the step calls a provider that changes the
// world (and so must be journaled before and after).
func (s *Step) Applied() bool {
	return s.JournalOp() != ""
}

// JournalOp is the kind of pending operation the step represents while it
// runs, or "" for steps that call no provider and are recorded only by
// their outcome: a step with a JournalOp is journaled as begun, durably,
// before Apply calls the provider.
func (s *Step) JournalOp() resource.OperationKind {
	if s.Refused() != nil {
		return ""
	}
	switch s.Op {
	case OpCreate, OpCreateReplacement:
		if s.New.Custom {
			return resource.OperationCreating
		}
	case OpUpdate:
		if s.New.Custom {
			return resource.OperationUpdating
		}
	case OpDelete, OpDeleteReplaced:
		if s.Old.Custom && !s.Old.External && !s.Old.RetainOnDelete && !s.skipProvider {
			return resource.OperationDeleting
		}
	case OpRead, OpReadReplacement, OpRefresh:
		return resource.OperationReading
	case OpImport:
		return resource.OperationImporting
	}
	return ""
}

// Local reports whether Apply calls no provider: the step's outcome is
// worked out from what it holds (an unchanged resource, a component, a
// resource retained on delete, a custom resource in a preview).
func (s *Step) Local() bool {
	if s.Refused() != nil {
		return true
	}
	switch s.Op {
	case OpSame, OpReplace, OpOutputs, OpDiscard:
		return true
	case OpCreate, OpCreateReplacement, OpUpdate:
		return !s.New.Custom || (s.Preview && !resource.IsProviderType(s.New.Type))
	case OpDelete, OpDeleteReplaced:
		return s.Preview || s.JournalOp() == ""
	case OpRead, OpReadReplacement:
		return s.UnknownRead()
	}
	return false
}

// UnknownRead reports whether s is the read, in a preview, of a resource
// whose ID the program does not know yet (providers.UnknownID): it calls
// no provider.
func (s *Step) UnknownRead() bool {
	return s.Preview && (s.Op == OpRead || s.Op == OpReadReplacement) && s.New.ID == providers.UnknownID
}

// Previewed reports whether s is the create or update of a custom resource
// in a preview, which calls no provider (provider resources excepted: the
// registry configures them even in a preview): the resource it produces is
// the one it asks for, with its inputs as outputs.
func (s *Step) Previewed() bool {
	switch s.Op {
	case OpCreate, OpCreateReplacement, OpUpdate:
		return s.Preview && s.New.Custom && !resource.IsProviderType(s.New.Type)
	}
	return false
}

// With returns, for the delete of a resource that others are deleted with
// (deletedWith), the records that must leave the state in the same journal
// entry as Old — after the provider's delete succeeded, never before — and
// nil for any other step. It is the value for state.Entry.With. The
// deletes of those resources need this step, call no provider and record
// nothing themselves; when this step fails they are skipped, and their
// records stay.
func (s *Step) With() []*resource.State {
	if s.rare == nil {
		return nil
	}
	return s.rare.with
}

// Refused returns the reason the generator refused the step before it
// ran, or nil: the delete or the replacement of a protected resource
// (*ProtectedError; for deletes see Generator.Refused), or a resource the
// analyzers refused. Such a step calls no provider and records nothing;
// Apply returns the reason.
func (s *Step) Refused() error {
	if s.rare == nil {
		return nil
	}
	return s.rare.refused
}

// SecureOutputs marks as secret every output the resource lists in
// AdditionalSecretOutputs and every output whose input of the same name was
// secret, so that a provider that forgets secretness cannot leak a value.
func SecureOutputs(st *resource.State, outputs resource.PropertyMap) resource.PropertyMap {
	var out resource.PropertyMap
	mark := func(k resource.PropertyKey) {
		v, ok := outputs[k]
		if !ok || v.IsSecret() {
			return
		}
		if out == nil {
			out = outputs.Copy()
		}
		out[k] = resource.NewSecret(v)
	}
	for _, k := range st.AdditionalSecretOutputs {
		mark(k)
	}
	for k, v := range st.Inputs {
		if v.IsSecret() {
			mark(k)
		}
	}
	if out == nil {
		return outputs
	}
	return out
}

// ComponentOutputs keeps a component's registered outputs across runs until
// the program registers new ones.
func ComponentOutputs(old, new *resource.State) resource.PropertyMap {
	if new.Outputs != nil {
		return new.Outputs
	}
	if old != nil {
		return old.Outputs
	}
	return resource.PropertyMap{}
}

// NotFoundError reports that a read, import or refresh found no resource with
// the given ID.
type NotFoundError struct {
	URN resource.URN
	ID  resource.ID
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("resource %s: no physical resource with id %q exists; check the ID", e.URN, e.ID)
}

// PartialError is a step failure after which the resource exists: its state
// (with init errors) is recorded and the next run will try to finish it.
type PartialError struct {
	URN resource.URN
	Op  Op
	Err error
}

func (e *PartialError) Error() string {
	return fmt.Sprintf("%s of %s partially failed (the resource exists and is recorded): %v", e.Op, e.URN, e.Err)
}

// Unwrap returns the provider's error.
func (e *PartialError) Unwrap() error { return e.Err }
