package random

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/internal/props"
	"github.com/groundwork-iac/groundwork/resource"
)

// Package is the package name the provider serves.
const Package = "random"

// Version is the provider's version, under which Register records it.
const Version = "1.0.0"

// The resource types the provider manages.
const (
	StringType  = "random:index:String"
	IntegerType = "random:index:Integer"
	UUIDType    = "random:index:UUID"
	PetType     = "random:index:Pet"
)

// Register registers the provider's factory in r under Package at Version,
// declaring the types it serves (providers.Tokens): a plugin of the same
// package serves the program's other types of it.
func Register(r *providers.Registry) error {
	return r.RegisterFactory(Package, Version, func(context.Context) (providers.Provider, error) {
		return New(), nil
	}, providers.Tokens(StringType, IntegerType, UUIDType, PetType))
}

// New returns the random provider. It takes no configuration and is safe
// for concurrent use.
func New() providers.Provider {
	return &provider{
		types: map[string]kind{
			StringType:  stringKind{},
			IntegerType: integerKind{},
			UUIDType:    uuidKind{},
			PetType:     petKind{},
		},
		deleted: map[resource.ID]bool{},
	}
}

// kind is what one resource type adds to the lifecycle the types share.
type kind interface {
	// keys are the type's inputs.
	keys() []string
	// read validates the inputs r holds and fills in r.Out()'s defaults.
	// When no input is unknown it returns the function that generates a
	// value.
	read(r *reader) func() (resource.PropertyValue, error)
	// parseID turns an import ID into the (unchecked) inputs and the value
	// it stands for.
	parseID(id string) (resource.PropertyMap, resource.PropertyValue, error)
}

// provider runs the lifecycle every random type shares: the value is made
// by Create and never changed, every input change replaces the resource,
// and Read returns what was recorded.
//
// A random value exists nowhere but in the state, so the provider
// remembers the IDs it deleted and Read reports those gone; any other ID
// it reads is reported as recorded.
type provider struct {
	types map[string]kind

	mu      sync.Mutex
	deleted map[resource.ID]bool
}

func (p *provider) lookup(urn resource.URN) (kind, error) {
	t := urn.Type()
	if k, ok := p.types[t]; ok {
		return k, nil
	}
	known := make([]string, 0, len(p.types))
	for k := range p.types {
		known = append(known, k)
	}
	slices.Sort(known)
	return nil, fmt.Errorf("the %s provider has no resource type %q (it manages %s)", Package, t, strings.Join(known, ", "))
}

func (p *provider) Check(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
	k, err := p.lookup(req.URN)
	if err != nil {
		return providers.CheckResponse{}, err
	}
	r := newReader(req.News)
	r.Only(k.keys()...)
	k.read(r)
	if len(r.Failures()) > 0 {
		return providers.CheckResponse{Inputs: req.News, Failures: r.Failures()}, nil
	}
	return providers.CheckResponse{Inputs: r.Out()}, nil
}

func (p *provider) Diff(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
	k, err := p.lookup(req.URN)
	if err != nil {
		return providers.DiffResponse{}, err
	}
	olds := req.OldInputs
	if len(olds) == 0 {
		olds = req.OldOutputs
	}
	return props.Diff(olds, req.NewInputs, k.keys(), k.keys()...), nil
}

func (p *provider) Create(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
	k, err := p.lookup(req.URN)
	if err != nil {
		return providers.CreateResponse{}, err
	}
	r := newReader(req.Inputs)
	r.Only(k.keys()...)
	generate := k.read(r)
	if len(r.Failures()) > 0 {
		return providers.CreateResponse{}, props.FailuresError(req.URN, r.Failures())
	}
	outs := r.Out().Copy()
	if req.Preview {
		outs["result"] = resource.NewUnknown()
		return providers.CreateResponse{Outputs: outs}, nil
	}
	if err := ctx.Err(); err != nil {
		return providers.CreateResponse{}, fmt.Errorf("create %s: %w", req.URN, err)
	}
	if r.Unknown() {
		return providers.CreateResponse{}, fmt.Errorf("create %s: the inputs have unknown values outside a preview", req.URN)
	}
	if outs["result"], err = generate(); err != nil {
		return providers.CreateResponse{}, fmt.Errorf("create %s: %w", req.URN, err)
	}
	return providers.CreateResponse{ID: newID(), Outputs: outs}, nil
}

// newID returns an opaque ID that is unique in practice: the values
// themselves may repeat (two integers from a small range) or be secret.
func newID() resource.ID {
	return resource.ID(rand.Text())
}

// Update keeps the value and records the new inputs. Diff never asks for
// an update (every change replaces), so this runs only when the engine
// updates unconditionally.
func (p *provider) Update(ctx context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
	k, err := p.lookup(req.URN)
	if err != nil {
		return providers.UpdateResponse{}, err
	}
	r := newReader(req.NewInputs)
	r.Only(k.keys()...)
	k.read(r)
	if len(r.Failures()) > 0 {
		return providers.UpdateResponse{}, props.FailuresError(req.URN, r.Failures())
	}
	result, ok := req.OldOutputs["result"]
	if !ok {
		return providers.UpdateResponse{}, fmt.Errorf("update %s: the recorded outputs have no result to keep", req.URN)
	}
	outs := r.Out().Copy()
	outs["result"] = result
	return providers.UpdateResponse{Outputs: outs}, nil
}

func (p *provider) Delete(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
	if _, err := p.lookup(req.URN); err != nil {
		return providers.DeleteResponse{}, err
	}
	if err := ctx.Err(); err != nil {
		return providers.DeleteResponse{}, fmt.Errorf("delete %s: %w", req.URN, err)
	}
	p.mu.Lock()
	p.deleted[req.ID] = true
	p.mu.Unlock()
	return providers.DeleteResponse{}, nil
}

// Read returns the recorded state for a refresh. For an import (no
// recorded state) the ID is the value to adopt; each type's documentation
// says how it is written. The imported resource keeps that ID unless the
// value is secret, in which case it gets a fresh opaque one.
func (p *provider) Read(ctx context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
	k, err := p.lookup(req.URN)
	if err != nil {
		return providers.ReadResponse{}, err
	}
	p.mu.Lock()
	gone := p.deleted[req.ID]
	p.mu.Unlock()
	if gone {
		return providers.ReadResponse{}, nil
	}
	if len(req.State) > 0 {
		return providers.ReadResponse{ID: req.ID, Inputs: req.Inputs, Outputs: req.State}, nil
	}
	inputs, result, err := k.parseID(string(req.ID))
	if err != nil {
		return providers.ReadResponse{}, fmt.Errorf("import %s: %w", req.URN, err)
	}
	r := newReader(inputs)
	k.read(r)
	if len(r.Failures()) > 0 {
		return providers.ReadResponse{}, fmt.Errorf("import %s: %w", req.URN, props.FailuresError(req.URN, r.Failures()))
	}
	outs := r.Out().Copy()
	outs["result"] = result
	id := req.ID
	if result.IsSecret() {
		// The ID is recorded in plain text; a secret must not stay in it.
		id = newID()
	}
	return providers.ReadResponse{ID: id, Inputs: r.Out(), Outputs: outs}, nil
}
