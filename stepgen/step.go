package stepgen

import (
	"context"
	"errors"
	"fmt"
	"time"

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
	// succeeds, its record condemns the old copy (see Step.Condemns).
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
	// Step.Condemns), which is deleted after the program.
	OpReadReplacement Op = "read-replacement"
	// OpImport adopts an existing physical resource.
	OpImport Op = "import"
	// OpRefresh reads a recorded resource to pick up drift.
	OpRefresh Op = "refresh"
	// OpOutputs records a component's registered outputs.
	OpOutputs Op = "outputs"
	// OpDiscard forgets a resource without deleting it physically
	// (retain-on-delete, or a refresh that found it gone).
	OpDiscard Op = "discard"
)

// ProviderSource resolves a provider reference to a live provider when a
// step runs. typ is the resource's type, so that a source can answer the
// registry itself for provider resources.
type ProviderSource interface {
	Provider(ref string, typ string) (providers.Provider, error)
}

// Step is one action on one resource. The generator builds steps; an
// executor runs them by calling Apply. Old is the recorded state the step
// acts on (nil for a create) and New the state it produces (nil for a
// delete); Apply fills New's ID and outputs from the provider's answer.
//
// A step's fields are written only by the generator before the step is
// handed out and by Apply while it runs; readers must wait for Apply to
// return (the executor's StepDone hook) before reading New.
type Step struct {
	Op  Op
	urn resource.URN
	Old *resource.State
	New *resource.State
	// Reg is the registration this step answers; nil for steps the
	// generator issued on its own (deletes after the program).
	Reg *Registration
	// Diff is the provider's diff for updates and replacements.
	Diff resource.DiffResult
	// Keys are the top-level properties that changed.
	Keys []resource.PropertyKey

	providers ProviderSource
	now       func() time.Time
	// with, on the delete of a resource others are deleted with, lists
	// the records that leave the state together with Old (see With).
	with *[]*resource.State
	// seed is the random seed for the Check an import makes.
	seed []byte

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
	// gone marks a refresh that found its resource no longer exists.
	gone bool
	// refused is why the generator refused the step: Apply returns it
	// without calling a provider (see Refused).
	refused error
}

// URN returns the URN of the resource the step acts on.
func (s *Step) URN() resource.URN { return s.urn }

// Applied reports whether the step calls a provider that changes the
// world (and so must be journaled before and after).
func (s *Step) Applied() bool {
	return s.JournalOp() != ""
}

// JournalOp is the kind of pending operation the step represents while it
// runs, or "" for steps that call no provider and are recorded only by
// their result.
func (s *Step) JournalOp() resource.OperationKind {
	if s.refused != nil {
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
	if s.refused != nil {
		return true
	}
	switch s.Op {
	case OpSame, OpReplace, OpOutputs, OpDiscard:
		return true
	case OpCreate, OpCreateReplacement, OpUpdate:
		return !s.New.Custom || (s.Preview && !resource.IsProviderType(s.New.Type))
	case OpDelete, OpDeleteReplaced:
		return s.Preview || s.JournalOp() == ""
	}
	return false
}

// Result is what the journal records when the step succeeds: the state
// removed (nil for none) and the state added in its place (nil for none).
func (s *Step) Result() (old, new *resource.State) {
	if s.skipRecord || s.gone || s.goesWith || s.refused != nil {
		return nil, nil
	}
	switch s.Op {
	case OpReplace:
		return nil, nil
	case OpDelete, OpDiscard:
		return s.Old, nil
	default:
		// A create after a delete-before-replace replaces the record
		// left pending; a delete-replaced of a delete-before-replace
		// leaves that pending record (New) behind.
		return s.Old, s.New
	}
}

// Condemns reports whether the step's record (see Result) keeps Old
// recorded, marked for deletion, and records New beside it, instead of
// putting New in Old's place: the create of a create-before-delete
// replacement, whose old copy is condemned only once the replacement
// exists (or the read of an external resource replacing a managed one). It
// is the value for state.Entry.Condemn.
func (s *Step) Condemns() bool {
	return (s.Op == OpCreateReplacement || s.Op == OpReadReplacement) &&
		s.Old != nil && !s.Old.Delete && s.New != nil && !s.skipRecord
}

// With returns, for the delete of a resource that others are deleted with
// (deletedWith), the records that must leave the state in the same journal
// entry as Old — after the provider's delete succeeded, never before — and
// nil for any other step. It is the value for state.Entry.With. The
// deletes of those resources come after this step in its chain, call no
// provider and record nothing themselves; when this step fails they are
// skipped, and their records stay.
func (s *Step) With() *[]*resource.State { return s.with }

// Refused returns the reason the generator refused the step before it
// ran, or nil: the delete or the replacement of a protected resource
// (*ProtectedError; for deletes see Generator.Refused), or a resource the
// analyzers refused. Such a step calls no provider and records nothing;
// Apply returns the reason.
func (s *Step) Refused() error { return s.refused }

// Gone reports whether a refresh step found its resource (Old) no longer
// exists. Such a step records nothing itself: other records may still
// refer to the resource, so the host removes it together with those
// references once every refresh step has ended (the engine does).
func (s *Step) Gone() bool { return s.gone }

// Apply performs the step: it calls the resource's provider as the
// operation requires and records the outcome in New. It must be called at
// most once.
func (s *Step) Apply(ctx context.Context) error {
	if s.refused != nil {
		return s.refused
	}
	switch s.Op {
	case OpSame, OpReplace, OpOutputs, OpDiscard:
		return nil
	case OpCreate, OpCreateReplacement:
		return s.applyCreate(ctx)
	case OpUpdate:
		return s.applyUpdate(ctx)
	case OpDelete, OpDeleteReplaced:
		return s.applyDelete(ctx)
	case OpRead, OpReadReplacement, OpRefresh:
		return s.applyRead(ctx)
	case OpImport:
		return s.applyImport(ctx)
	}
	return fmt.Errorf("%s: unknown step operation %q", s.urn, s.Op)
}

func (s *Step) provider() (providers.Provider, error) {
	if s.providers == nil {
		return nil, fmt.Errorf("%s: no provider source configured", s.urn)
	}
	st := s.New
	if st == nil {
		st = s.Old
	}
	p, err := s.providers.Provider(st.Provider, st.Type)
	if err != nil {
		return nil, fmt.Errorf("resource %s: %w", s.urn, err)
	}
	return p, nil
}

func (s *Step) stamp(created bool) {
	if s.now == nil {
		return
	}
	t := s.now()
	if created {
		s.New.Created = t
	}
	s.New.Modified = t
}

func (s *Step) applyCreate(ctx context.Context) error {
	if !s.New.Custom {
		s.New.Outputs = componentOutputs(s.Old, s.New)
		s.stamp(true)
		return nil
	}
	if s.Preview && !resource.IsProviderType(s.New.Type) {
		s.New.Outputs = secureOutputs(s.New, s.New.Inputs)
		return nil
	}
	p, err := s.provider()
	if err != nil {
		return err
	}
	// Provider resources are created even in a preview: the registry
	// configures the instance (changing nothing outside) so that the
	// resources it manages can be checked and diffed.
	resp, err := p.Create(ctx, providers.CreateRequest{
		URN: s.urn, Inputs: s.New.Inputs, Timeout: s.New.CustomTimeouts.Create, Preview: s.Preview,
	})
	if err != nil {
		return s.partial(err, "create")
	}
	if resp.ID == "" && !s.Preview {
		return fmt.Errorf("resource %s: provider created it but returned an empty ID", s.urn)
	}
	s.New.ID = resp.ID
	s.New.Outputs = secureOutputs(s.New, resp.Outputs)
	s.New.InitErrors = nil
	s.stamp(true)
	return nil
}

func (s *Step) applyUpdate(ctx context.Context) error {
	if !s.New.Custom {
		s.New.Outputs = componentOutputs(s.Old, s.New)
		s.stamp(false)
		return nil
	}
	if s.Preview && !resource.IsProviderType(s.New.Type) {
		s.New.Outputs = secureOutputs(s.New, s.New.Inputs)
		return nil
	}
	p, err := s.provider()
	if err != nil {
		return err
	}
	resp, err := p.Update(ctx, providers.UpdateRequest{
		URN: s.urn, ID: s.Old.ID,
		OldInputs: s.Old.Inputs, OldOutputs: s.Old.Outputs, NewInputs: s.New.Inputs,
		IgnoreChanges: s.New.IgnoreChanges, Timeout: s.New.CustomTimeouts.Update, Preview: s.Preview,
	})
	if err != nil {
		return s.partial(err, "update")
	}
	s.New.Outputs = secureOutputs(s.New, resp.Outputs)
	s.New.InitErrors = nil
	s.stamp(false)
	return nil
}

func (s *Step) applyDelete(ctx context.Context) error {
	if s.Preview || s.JournalOp() == "" {
		return nil
	}
	p, err := s.provider()
	if err != nil {
		return err
	}
	// The provider sees the URN the object was recorded under: a resource
	// renamed through an alias and replaced in the same run is deleted
	// under its old URN, as the reference engine does.
	_, err = p.Delete(ctx, providers.DeleteRequest{
		URN: s.Old.URN, ID: s.Old.ID, Inputs: s.Old.Inputs, Outputs: s.Old.Outputs,
		Timeout: s.Old.CustomTimeouts.Delete,
	})
	if err != nil {
		return fmt.Errorf("deleting %s (id %s): %w", s.urn, s.Old.ID, err)
	}
	return nil
}

func (s *Step) applyRead(ctx context.Context) error {
	p, err := s.provider()
	if err != nil {
		return err
	}
	// A read of an external resource sends the program's inputs as both
	// the inputs and the state, as the reference engine does: they are all
	// the engine knows of it, and dynamic providers find their serialized
	// provider there. A refresh sends what was recorded.
	req := providers.ReadRequest{URN: s.urn, ID: s.New.ID, Inputs: s.New.Inputs, State: s.New.Inputs}
	if s.Op == OpRefresh && s.Old != nil {
		req.ID, req.Inputs, req.State = s.Old.ID, s.Old.Inputs, s.Old.Outputs
	}
	resp, err := p.Read(ctx, req)
	if err != nil {
		return s.partial(err, "read")
	}
	if resp.ID == "" {
		if s.Op == OpRefresh {
			// Gone: the step records nothing; see Gone.
			s.New = nil
			s.gone = true
			return nil
		}
		return &NotFoundError{URN: s.urn, ID: req.ID}
	}
	s.New.ID = resp.ID
	s.New.Outputs = secureOutputs(s.New, resp.Outputs)
	if s.Op == OpRefresh && resp.Inputs != nil {
		s.New.Inputs = resp.Inputs
	}
	if s.Old != nil {
		if d := s.Old.Outputs.Diff(s.New.Outputs); d != nil {
			s.Keys = d.ChangedKeys()
		}
	}
	s.stamp(s.Old == nil || s.Op == OpReadReplacement)
	return nil
}

// applyImport reads the resource to adopt, checks the program's inputs
// against it and refuses any difference. A registration that gives no
// inputs adopts the resource as read.
func (s *Step) applyImport(ctx context.Context) error {
	p, err := s.provider()
	if err != nil {
		return err
	}
	read, err := p.Read(ctx, providers.ReadRequest{URN: s.urn, ID: s.New.ID})
	if err != nil {
		return fmt.Errorf("importing %s (id %s): %w", s.urn, s.New.ID, err)
	}
	if read.ID == "" {
		return &NotFoundError{URN: s.urn, ID: s.New.ID}
	}
	inputs := read.Inputs
	if len(s.New.Inputs) > 0 {
		chk, err := p.Check(ctx, providers.CheckRequest{URN: s.urn, Olds: read.Inputs, News: s.New.Inputs, RandomSeed: s.seed})
		if err != nil {
			return fmt.Errorf("importing %s: checking the inputs: %w", s.urn, err)
		}
		if len(chk.Failures) > 0 {
			return &CheckFailedError{URN: s.urn, Failures: chk.Failures}
		}
		diff, err := p.Diff(ctx, providers.DiffRequest{URN: s.urn, ID: read.ID, OldInputs: read.Inputs,
			OldOutputs: read.Outputs, NewInputs: chk.Inputs, IgnoreChanges: s.New.IgnoreChanges})
		if err != nil {
			return fmt.Errorf("importing %s: diffing the inputs: %w", s.urn, err)
		}
		if diff.Changes == resource.DiffUnknown {
			diff = inputsDiff(read.Inputs, chk.Inputs)
		}
		if diff.Changes == resource.DiffSome {
			keys := diff.ChangedKeys
			if len(keys) == 0 {
				keys = ChangedKeys(diff, read.Inputs, chk.Inputs)
			}
			return &ImportMismatchError{URN: s.urn, ID: read.ID, Keys: keys}
		}
		inputs = chk.Inputs
	}
	s.New.ID = read.ID
	s.New.Inputs = inputs
	s.New.Outputs = secureOutputs(s.New, read.Outputs)
	s.stamp(true)
	return nil
}

// partial turns a provider's partial failure into a recorded state with init
// errors, so the resource is not lost, and returns the failure.
func (s *Step) partial(err error, verb string) error {
	var ie *providers.InitError
	if errors.As(err, &ie) && s.New != nil {
		if ie.ID != "" {
			s.New.ID = ie.ID
		}
		if ie.Outputs != nil {
			s.New.Outputs = secureOutputs(s.New, ie.Outputs)
		}
		if ie.Inputs != nil {
			s.New.Inputs = ie.Inputs
		}
		s.New.InitErrors = append([]string(nil), ie.Reasons...)
		s.stamp(s.Old == nil)
		return &PartialError{URN: s.urn, Op: s.Op, Err: err}
	}
	return fmt.Errorf("%s of %s failed: %w", verb, s.urn, err)
}

// Partial reports whether the step failed after its resource came to exist,
// so that New must still be recorded.
func (s *Step) Partial(err error) bool {
	var pe *PartialError
	return errors.As(err, &pe) && s.New != nil && s.New.ID != ""
}

// secureOutputs marks as secret every output the resource lists in
// AdditionalSecretOutputs and every output whose input of the same name was
// secret, so that a provider that forgets secretness cannot leak a value.
func secureOutputs(st *resource.State, outputs resource.PropertyMap) resource.PropertyMap {
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

// componentOutputs keeps a component's registered outputs across runs until
// the program registers new ones.
func componentOutputs(old, new *resource.State) resource.PropertyMap {
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
