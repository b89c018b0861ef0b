package random

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"maps"
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

// Register registers the provider's factory in r twice: under Package at
// Version, and at PulumiVersion claiming every 4.x version
// (providers.ClaimMajor), so that a program written with pulumi-random's
// SDKs, which asks for the SDK's own version, gets it. Both declare the
// types the provider serves (providers.Tokens): a plugin of the same
// package serves the program's other types of it.
func Register(r *providers.Registry) error {
	f := func(context.Context) (providers.Provider, error) { return New(), nil }
	tokens := providers.Tokens(Tokens()...)
	return errors.Join(
		r.RegisterFactory(Package, Version, f, tokens),
		r.RegisterFactory(Package, PulumiVersion, f, tokens, providers.ClaimMajor()),
	)
}

// Tokens returns every resource type the provider serves, sorted.
func Tokens() []string {
	return slices.Sorted(maps.Keys(New().(*provider).types))
}

// New returns the random provider. It takes no configuration and is safe
// for concurrent use.
func New() providers.Provider {
	types := pulumiKinds()
	types[StringType] = own{stringKind{}}
	types[IntegerType] = own{integerKind{}}
	types[UUIDType] = own{uuidKind{}}
	types[PetType] = own{petKind{}}
	return &provider{types: types, deleted: map[string]bool{}}
}

// kind is what one resource type adds to the lifecycle the types share.
type kind interface {
	// keys are the type's inputs.
	keys() []string
	// read validates the inputs r holds and fills in r.Out()'s defaults.
	// When no input is unknown it returns the function that generates a
	// value.
	read(r *reader) func() (value, error)
	// parseID turns an import ID into the (unchecked) inputs and the value
	// it stands for.
	parseID(id string) (resource.PropertyMap, value, error)
	// computed lists the outputs a generated value sets: unknown in a
	// preview, kept by Update.
	computed() []string
	// inputDefaults says whether the checked inputs carry the defaults
	// (groundwork's own types) or only what the program gave
	// (pulumi-random's, whose defaults appear in the outputs only).
	inputDefaults() bool
}

// value is what a kind generates: the outputs it adds to the inputs with
// their defaults, and the resource's ID ("" for a fresh opaque one).
type value struct {
	id      resource.ID
	outputs resource.PropertyMap
}

// provider runs the lifecycle every random type shares: the value is made
// by Create and never changed, every input change replaces the resource,
// and Read returns what was recorded.
//
// A random value exists nowhere but in the state, so the provider
// remembers the resources it deleted (by URN, ID and value: several
// pulumi-random types share one ID) and Read reports those gone; any other
// resource it reads is reported as recorded.
type provider struct {
	types map[string]kind

	mu      sync.Mutex
	deleted map[string]bool
}

// deletedKey names a resource that Delete removed.
func deletedKey(k kind, urn resource.URN, id resource.ID, outputs resource.PropertyMap) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00%s", urn, id)
	for _, key := range k.computed() {
		fmt.Fprintf(&b, "\x00%v", outputs[resource.PropertyKey(key)].Mappable())
	}
	return b.String()
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

// checked reads inputs as the type's Check does: the failures, the
// checked inputs to record, the inputs with every default (the outputs
// before a value is generated), and the generator (nil when an input is
// unknown or wrong).
func checked(k kind, inputs resource.PropertyMap) (failures []providers.CheckFailure, in, withDefaults resource.PropertyMap, generate func() (value, error)) {
	r := newReader(inputs)
	r.Only(k.keys()...)
	generate = k.read(r)
	if len(r.Failures()) > 0 {
		return r.Failures(), inputs, r.Out(), nil
	}
	in = r.Out()
	if !k.inputDefaults() {
		in = inputs.Copy()
		if in == nil {
			in = resource.PropertyMap{}
		}
	}
	if r.Unknown() {
		generate = nil
	}
	return nil, in, r.Out(), generate
}

func (p *provider) Check(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
	k, err := p.lookup(req.URN)
	if err != nil {
		return providers.CheckResponse{}, err
	}
	failures, in, _, _ := checked(k, req.News)
	return providers.CheckResponse{Inputs: in, Failures: failures}, nil
}

// Diff compares the inputs with their defaults, so that leaving an input
// out and giving its default are the same.
func (p *provider) Diff(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
	k, err := p.lookup(req.URN)
	if err != nil {
		return providers.DiffResponse{}, err
	}
	olds := req.OldInputs
	if len(olds) == 0 {
		olds = req.OldOutputs
	}
	_, _, olds, _ = checked(k, props.Pick(olds, k.keys()))
	_, _, news, _ := checked(k, req.NewInputs)
	return props.Diff(olds, news, k.keys(), k.keys()...), nil
}

func (p *provider) Create(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
	k, err := p.lookup(req.URN)
	if err != nil {
		return providers.CreateResponse{}, err
	}
	failures, _, outs, generate := checked(k, req.Inputs)
	if len(failures) > 0 {
		return providers.CreateResponse{}, props.FailuresError(req.URN, failures)
	}
	outs = outs.Copy()
	if req.Preview {
		for _, key := range k.computed() {
			outs[resource.PropertyKey(key)] = resource.NewUnknown()
		}
		return providers.CreateResponse{Outputs: outs}, nil
	}
	if err := ctx.Err(); err != nil {
		return providers.CreateResponse{}, err
	}
	if generate == nil {
		return providers.CreateResponse{}, props.ErrUnknownInputs
	}
	v, err := generate()
	if err != nil {
		return providers.CreateResponse{}, err
	}
	maps.Copy(outs, v.outputs)
	id := v.id
	if id == "" {
		id = newID()
	}
	return providers.CreateResponse{ID: id, Outputs: outs}, nil
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
	failures, _, outs, _ := checked(k, req.NewInputs)
	if len(failures) > 0 {
		return providers.UpdateResponse{}, props.FailuresError(req.URN, failures)
	}
	outs = outs.Copy()
	for _, key := range k.computed() {
		v, ok := req.OldOutputs[resource.PropertyKey(key)]
		if !ok {
			return providers.UpdateResponse{}, fmt.Errorf("update %s: the recorded outputs have no %s to keep", req.URN, key)
		}
		outs[resource.PropertyKey(key)] = v
	}
	return providers.UpdateResponse{Outputs: outs}, nil
}

func (p *provider) Delete(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
	k, err := p.lookup(req.URN)
	if err != nil {
		return providers.DeleteResponse{}, err
	}
	if err := ctx.Err(); err != nil {
		return providers.DeleteResponse{}, err
	}
	p.mu.Lock()
	p.deleted[deletedKey(k, req.URN, req.ID, req.Outputs)] = true
	p.mu.Unlock()
	return providers.DeleteResponse{}, nil
}

// Read returns the recorded state for a refresh. For an import (no
// recorded state) the ID is the value to adopt; each type's documentation
// says how it is written. The imported resource keeps that ID unless the
// type says otherwise (a secret must not stay in an ID).
func (p *provider) Read(ctx context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
	k, err := p.lookup(req.URN)
	if err != nil {
		return providers.ReadResponse{}, err
	}
	if len(req.State) > 0 {
		p.mu.Lock()
		gone := p.deleted[deletedKey(k, req.URN, req.ID, req.State)]
		p.mu.Unlock()
		if gone {
			return providers.ReadResponse{}, nil
		}
		return providers.ReadResponse{ID: req.ID, Inputs: req.Inputs, Outputs: req.State}, nil
	}
	inputs, v, err := k.parseID(string(req.ID))
	if err != nil {
		return providers.ReadResponse{}, err
	}
	failures, in, outs, _ := checked(k, inputs)
	if len(failures) > 0 {
		return providers.ReadResponse{}, fmt.Errorf("import %s: %w", req.URN, props.FailuresError(req.URN, failures))
	}
	outs = outs.Copy()
	maps.Copy(outs, v.outputs)
	id := v.id
	if id == "" {
		id = newID()
	}
	return providers.ReadResponse{ID: id, Inputs: in, Outputs: outs}, nil
}
