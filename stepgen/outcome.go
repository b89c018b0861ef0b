package stepgen

import (
	"errors"

	"github.com/groundwork-iac/groundwork/resource"
)

// Outcome is how a step ended: what deploy.Apply returns, and the event by which
// the generator learns it (Generator.Done). A host that did not run the
// step — it was skipped because something it needed failed, or the
// operation was cancelled — reports it with Skipped set and Err saying
// why.
type Outcome struct {
	Step *Step
	// New is the state the step produced: the resource as the provider
	// reported it, the state a step that calls no provider carries over,
	// or, after a partial failure, the resource that came to exist (see
	// Partial). Nil for a delete, a failure and a refresh that found its
	// resource gone.
	New *resource.State
	// Keys are the outputs that changed, when the step found out by
	// itself (a read or refresh of a recorded resource).
	Keys []resource.PropertyKey
	// Err is why the step failed, or was skipped; nil on success.
	Err error
	// Skipped says the host did not run the step (Err says why).
	Skipped bool
	// Gone says a refresh found its resource no longer exists. Such a
	// step records nothing itself: other records may still refer to the
	// resource, so the host removes it together with those references
	// once every refresh step has ended (the engine does).
	Gone bool
}

// Partial reports whether the step failed after its resource came to exist,
// so that New must still be recorded.
func (o Outcome) Partial() bool {
	var pe *PartialError
	return errors.As(o.Err, &pe) && o.New != nil && o.New.ID != ""
}

// Record is what the journal records for the step's outcome: the state
// removed (nil for none) and the state added in its place (nil for none).
// A step that failed records nothing, unless it failed partially.
func (o Outcome) Record() (old, new *resource.State) {
	s := o.Step
	if (o.Err != nil && !o.Partial()) || o.Gone || s.skipRecord || s.goesWith || s.Refused() != nil {
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
		return s.Old, o.New
	}
}

// Condemns reports whether the outcome's record (see Record) keeps Old
// recorded, marked for deletion, and records New beside it, instead of
// putting New in Old's place: the create of a create-before-delete
// replacement, whose old copy is condemned only once the replacement
// exists (or the read of an external resource replacing a managed one). It
// is the value for state.Entry.Condemn.
func (o Outcome) Condemns() bool {
	s := o.Step
	return (s.Op == OpCreateReplacement || s.Op == OpReadReplacement) &&
		s.Old != nil && !s.Old.Delete && o.New != nil && !s.skipRecord
}
