package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/groundwork-iac/groundwork/state"
)

// Fingerprint identifies the recorded state of a stack, as a plan records
// the state it was made against: a SHA-256 digest of every resource record
// (its identity, options, inputs and outputs) and pending operation, in
// order. When and by what the snapshot was written do not count, so an
// update that changed nothing leaves the fingerprint as it was; any step
// that changed a record changes it. A secret counts by its place, never
// by its value: the fingerprint tells nothing of a secret.
func Fingerprint(snap *state.Snapshot) string {
	h := sha256.New()
	if snap != nil {
		for _, s := range snap.Resources {
			// The property maps render with sorted keys and masked
			// secrets; the record's other fields are plain values.
			r := *s
			r.Created, r.Modified = time.Time{}, time.Time{}
			fmt.Fprintf(h, "resource %+v\n", r)
		}
		for _, op := range snap.PendingOperations {
			r := *op.Resource
			r.Created, r.Modified = time.Time{}, time.Time{}
			fmt.Fprintf(h, "pending %s %+v\n", op.Kind, r)
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// StaleError reports a plan given to an operation on a stack whose state
// is not the one the plan was made against: the stack changed after the
// preview (the plan was applied already, or another operation ran), so
// what the plan decided no longer holds. Nothing was changed.
type StaleError struct {
	Stack string
	// Planned is the fingerprint the plan records ("" for a plan that
	// records none); Current is the stack's.
	Planned, Current string
}

func (e *StaleError) Error() string {
	if e.Planned == "" {
		return fmt.Sprintf("the plan does not record the state of stack %q it was made against, so it cannot be checked against the stack; preview again to make a new plan", e.Stack)
	}
	return fmt.Sprintf("the plan was made against another state of stack %q: the stack changed since the preview (or the plan was applied already); preview again to make a new plan", e.Stack)
}
