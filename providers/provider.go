package providers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/groundwork-iac/groundwork/resource"
)

// ErrNotImplemented is what a provider (or an adapter in front of one)
// returns when it lacks a method, so that callers can tell "unsupported" from
// "failed". Test for it with errors.Is.
var ErrNotImplemented = errors.New("not implemented by the provider")

// Provider is the lifecycle of a custom resource. Every other ability of a
// provider is an optional interface in this package (Configurer,
// Parameterizer, SchemaProvider, Constructor, Invoker, StreamInvoker, Caller,
// Canceler, Closer) that callers detect with a type assertion; each documents
// what callers do when a provider does not implement it.
//
// Every method takes a request struct and returns a response struct, so a
// field can be added later without breaking implementers. Implementations
// must be safe for concurrent use: the engine calls them for many resources
// at once.
type Provider interface {
	// Check validates a resource's new inputs and fills in defaults. Olds
	// are the inputs last recorded for the resource (empty when it is being
	// created or replaced), so a provider can keep generated values such as
	// auto-names.
	Check(ctx context.Context, req CheckRequest) (CheckResponse, error)
	// Diff compares a resource's recorded state with its checked new inputs.
	Diff(ctx context.Context, req DiffRequest) (DiffResponse, error)
	// Create creates the physical resource. With Preview set it computes
	// what it can without creating anything; outputs it cannot know are
	// unknown.
	Create(ctx context.Context, req CreateRequest) (CreateResponse, error)
	// Read reads the current state of a physical resource by ID. A resource
	// that no longer exists is reported by an empty ID in the response.
	Read(ctx context.Context, req ReadRequest) (ReadResponse, error)
	// Update changes a physical resource in place. The ID never changes.
	Update(ctx context.Context, req UpdateRequest) (UpdateResponse, error)
	// Delete deletes a physical resource.
	Delete(ctx context.Context, req DeleteRequest) (DeleteResponse, error)
}

// CheckRequest asks a provider to validate inputs.
type CheckRequest struct {
	URN  resource.URN
	Olds resource.PropertyMap
	News resource.PropertyMap
	// RandomSeed is stable for a resource across runs (derived from its
	// URN and the stack's seed), so a provider that generates names or
	// other random defaults does so reproducibly. See AutoName.
	RandomSeed []byte
}

// CheckFailure is one reason inputs are invalid.
type CheckFailure struct {
	// Property is the property path that is wrong ("" for the whole
	// object).
	Property string
	Reason   string
}

// String renders the failure as "property: reason".
func (f CheckFailure) String() string {
	if f.Property == "" {
		return f.Reason
	}
	return f.Property + ": " + f.Reason
}

// CheckResponse holds the checked inputs, or the failures that make them
// invalid.
type CheckResponse struct {
	Inputs   resource.PropertyMap
	Failures []CheckFailure
}

// DiffRequest asks a provider what changed between a resource's recorded
// state and its new inputs.
type DiffRequest struct {
	URN        resource.URN
	ID         resource.ID
	OldInputs  resource.PropertyMap
	OldOutputs resource.PropertyMap
	NewInputs  resource.PropertyMap
	// IgnoreChanges are property paths the user asked to ignore.
	IgnoreChanges []string
}

// DiffResponse is the provider's answer to Diff.
type DiffResponse = resource.DiffResult

// CreateRequest asks a provider to create a resource.
type CreateRequest struct {
	URN     resource.URN
	Inputs  resource.PropertyMap
	Timeout time.Duration
	Preview bool
}

// CreateResponse is a created resource's ID and outputs. In a preview the
// ID may be empty.
type CreateResponse struct {
	ID      resource.ID
	Outputs resource.PropertyMap
}

// ReadRequest asks a provider for the current state of a resource. Inputs
// and State are what the engine last recorded; both are empty for an import
// or a read of an external resource.
type ReadRequest struct {
	URN    resource.URN
	ID     resource.ID
	Inputs resource.PropertyMap
	State  resource.PropertyMap
}

// ReadResponse is a resource's current state. An empty ID means the resource
// no longer exists.
type ReadResponse struct {
	ID      resource.ID
	Inputs  resource.PropertyMap
	Outputs resource.PropertyMap
}

// UpdateRequest asks a provider to update a resource in place.
type UpdateRequest struct {
	URN           resource.URN
	ID            resource.ID
	OldInputs     resource.PropertyMap
	OldOutputs    resource.PropertyMap
	NewInputs     resource.PropertyMap
	IgnoreChanges []string
	Timeout       time.Duration
	Preview       bool
}

// UpdateResponse is an updated resource's outputs.
type UpdateResponse struct {
	Outputs resource.PropertyMap
}

// DeleteRequest asks a provider to delete a resource.
type DeleteRequest struct {
	URN     resource.URN
	ID      resource.ID
	Inputs  resource.PropertyMap
	Outputs resource.PropertyMap
	Timeout time.Duration
}

// DeleteResponse is empty today; it exists so fields can be added.
type DeleteResponse struct{}

// InitError is a partial failure: Create, Update or Read failed after the
// physical resource came to exist. It carries what the engine needs to
// record the resource instead of losing it. Providers return it (possibly
// wrapped); the engine finds it with errors.As.
type InitError struct {
	ID      resource.ID
	Inputs  resource.PropertyMap
	Outputs resource.PropertyMap
	Reasons []string
}

// Error says which resource failed to initialize, and why.
func (e *InitError) Error() string {
	return fmt.Sprintf("resource %s was created but failed to initialize: %s", e.ID, strings.Join(e.Reasons, "; "))
}
