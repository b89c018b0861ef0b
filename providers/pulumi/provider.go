package pulumi

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// Package is the name of the package the provider serves.
const Package = "pulumi"

// The resource types and functions of the package.
const (
	StackReferenceType = "pulumi:pulumi:StackReference"
	StashType          = "pulumi:index:Stash"
	GetResource        = "pulumi:pulumi:getResource"
	ReadStackOutputs   = "pulumi:pulumi:readStackOutputs"
)

// ProviderType is the type of the package's provider resources.
var ProviderType = providers.ProviderType(Package)

// Resources finds the resources of the running deployment.
type Resources interface {
	// Resource returns the state of a resource that a step of this run has
	// produced (registered, read, or carried over unchanged), and false
	// when no completed step has produced one under urn.
	Resource(urn resource.URN) (*resource.State, bool)
}

// Stacks reads the outputs of other stacks.
type Stacks interface {
	// StackOutputs returns the outputs of the stack called name, secret
	// values wrapped as secrets.
	StackOutputs(ctx context.Context, name string) (resource.PropertyMap, error)
}

// Config is what the provider needs of its deployment. A nil field makes
// the functions that need it fail with an error saying so.
type Config struct {
	Resources Resources
	Stacks    Stacks
	// NewID makes the IDs of the resources the provider creates; the
	// default is a random UUID.
	NewID func() resource.ID
}

// Provider serves the "pulumi" package. It is safe for concurrent use.
type Provider struct {
	cfg Config
}

var (
	_ providers.Provider = (*Provider)(nil)
	_ providers.Invoker  = (*Provider)(nil)
)

// New returns the provider of the "pulumi" package for one deployment.
func New(cfg Config) *Provider {
	if cfg.NewID == nil {
		cfg.NewID = randomID
	}
	return &Provider{cfg: cfg}
}

// randomID returns a random (version 4) UUID.
func randomID() resource.ID {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (see crypto/rand.Read)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return resource.ID(fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]))
}

// unknownType is the error of a request for a type the package lacks.
func unknownType(urn resource.URN) error {
	return fmt.Errorf("the built-in pulumi package has no resource type %q", urn.Type())
}

// Check validates the inputs of a stack reference (only "name", a string)
// or a stash (only "input"); a provider resource's configuration is taken
// as it is.
func (p *Provider) Check(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
	switch req.URN.Type() {
	case ProviderType:
		return providers.CheckResponse{Inputs: req.News}, nil
	case StackReferenceType:
		return onlyKey(req.News, "name", func(v resource.PropertyValue) string {
			if v.IsString() || v.IsUnknown() {
				return ""
			}
			return `"name" must be the name of a stack`
		}), nil
	case StashType:
		return onlyKey(req.News, "input", nil), nil
	}
	return providers.CheckResponse{}, unknownType(req.URN)
}

// onlyKey checks that inputs hold key and nothing else, and that valid (if
// set) has nothing to say about its value.
func onlyKey(inputs resource.PropertyMap, key resource.PropertyKey, valid func(resource.PropertyValue) string) providers.CheckResponse {
	var failures []providers.CheckFailure
	for _, k := range inputs.StableKeys() {
		if k != key {
			failures = append(failures, providers.CheckFailure{Property: string(k), Reason: fmt.Sprintf("unknown property %q; the only input is %q", k, key)})
		}
	}
	v, ok := inputs[key]
	switch {
	case !ok:
		failures = append(failures, providers.CheckFailure{Property: string(key), Reason: fmt.Sprintf("the input %q is required", key)})
	case valid != nil:
		if reason := valid(v); reason != "" {
			failures = append(failures, providers.CheckFailure{Property: string(key), Reason: reason})
		}
	}
	if len(failures) > 0 {
		return providers.CheckResponse{Failures: failures}
	}
	return providers.CheckResponse{Inputs: inputs}
}

// Diff replaces a stack reference whose name changed and updates a stash
// whose input changed; a provider resource never changes.
func (p *Provider) Diff(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
	switch req.URN.Type() {
	case ProviderType:
		return resource.DiffResult{Changes: resource.DiffNone}, nil
	case StackReferenceType:
		if !req.NewInputs["name"].DeepEquals(req.OldInputs["name"]) {
			return resource.DiffResult{Changes: resource.DiffSome, ChangedKeys: []resource.PropertyKey{"name"}, ReplaceKeys: []resource.PropertyKey{"name"}}, nil
		}
		return resource.DiffResult{Changes: resource.DiffNone}, nil
	case StashType:
		if !req.NewInputs["input"].DeepEquals(req.OldInputs["input"]) {
			return resource.DiffResult{Changes: resource.DiffSome, ChangedKeys: []resource.PropertyKey{"input"}}, nil
		}
		return resource.DiffResult{Changes: resource.DiffNone}, nil
	}
	return resource.DiffResult{}, unknownType(req.URN)
}

// Create records a provider resource, reads the stack a stack reference
// names, or stashes a value. Nothing gets an ID in a preview but provider
// resources, whose ID is then providers.UnknownID.
func (p *Provider) Create(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
	id := resource.ID("")
	if !req.Preview {
		id = p.cfg.NewID()
	}
	switch req.URN.Type() {
	case ProviderType:
		if req.Preview {
			id = providers.UnknownID
		}
		return providers.CreateResponse{ID: id, Outputs: req.Inputs}, nil
	case StackReferenceType:
		outs, err := p.stackReference(ctx, req.Inputs["name"])
		if err != nil {
			return providers.CreateResponse{}, err
		}
		return providers.CreateResponse{ID: id, Outputs: outs}, nil
	case StashType:
		v := req.Inputs["input"]
		return providers.CreateResponse{ID: id, Outputs: resource.PropertyMap{"input": v, "output": v}}, nil
	}
	return providers.CreateResponse{}, unknownType(req.URN)
}

// Read reads the stack a stack reference names (by its input "name", else
// its ID, which the SDKs set to the name) and returns the other resources
// as recorded.
func (p *Provider) Read(ctx context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
	switch req.URN.Type() {
	case ProviderType:
		return providers.ReadResponse{ID: req.ID, Inputs: req.Inputs, Outputs: orInputs(req.State, req.Inputs)}, nil
	case StackReferenceType:
		for _, k := range req.Inputs.StableKeys() {
			if k != "name" {
				return providers.ReadResponse{}, fmt.Errorf("stack reference %s: unknown input %q; the only input is \"name\"", req.URN.Name(), k)
			}
		}
		name, ok := req.Inputs["name"]
		if !ok {
			if req.ID == "" {
				return providers.ReadResponse{}, fmt.Errorf("stack reference %s names no stack: read it with the stack's name as its ID", req.URN.Name())
			}
			name = resource.NewString(string(req.ID))
		}
		outs, err := p.stackReference(ctx, name)
		if err != nil {
			return providers.ReadResponse{}, err
		}
		return providers.ReadResponse{ID: req.ID, Inputs: resource.PropertyMap{"name": name}, Outputs: outs}, nil
	case StashType:
		if len(req.Inputs) == 0 {
			return providers.ReadResponse{}, errors.New("a stash cannot be imported: it holds only what a program gave it")
		}
		return providers.ReadResponse{ID: req.ID, Inputs: req.Inputs, Outputs: req.State}, nil
	}
	return providers.ReadResponse{}, unknownType(req.URN)
}

func orInputs(state, inputs resource.PropertyMap) resource.PropertyMap {
	if state == nil {
		return inputs
	}
	return state
}

// Update records a provider resource's new configuration, or a stash's new
// input (keeping the value it stashed first). A stack reference is never
// updated: a new name replaces it.
func (p *Provider) Update(_ context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
	switch req.URN.Type() {
	case ProviderType:
		return providers.UpdateResponse{Outputs: req.NewInputs}, nil
	case StashType:
		return providers.UpdateResponse{Outputs: resource.PropertyMap{"input": req.NewInputs["input"], "output": req.OldOutputs["output"]}}, nil
	case StackReferenceType:
		return providers.UpdateResponse{}, fmt.Errorf("stack reference %s cannot be updated in place; a new name replaces it", req.URN.Name())
	}
	return providers.UpdateResponse{}, unknownType(req.URN)
}

// Delete has nothing to delete: the package's resources exist only in the
// state.
func (p *Provider) Delete(_ context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
	switch req.URN.Type() {
	case ProviderType, StackReferenceType, StashType:
		return providers.DeleteResponse{}, nil
	}
	return providers.DeleteResponse{}, unknownType(req.URN)
}

// Invoke serves getResource and readStackOutputs.
func (p *Provider) Invoke(ctx context.Context, req providers.InvokeRequest) (providers.InvokeResponse, error) {
	switch req.Token {
	case GetResource:
		return p.getResource(req.Args)
	case ReadStackOutputs:
		outs, err := p.stackReference(ctx, req.Args["name"])
		if err != nil {
			return providers.InvokeResponse{}, err
		}
		return providers.InvokeResponse{Return: outs}, nil
	}
	return providers.InvokeResponse{}, fmt.Errorf("the built-in pulumi package has no function %q", req.Token)
}

// getResource answers what the deployment knows of the resource its
// argument "urn" names.
func (p *Provider) getResource(args resource.PropertyMap) (providers.InvokeResponse, error) {
	v := args["urn"]
	if !v.IsString() {
		return providers.InvokeResponse{Failures: []providers.CheckFailure{{Property: "urn", Reason: "the URN of a resource is required"}}}, nil
	}
	urn := resource.URN(v.StringValue())
	if p.cfg.Resources == nil {
		return providers.InvokeResponse{}, fmt.Errorf("%s: this deployment cannot look resources up", GetResource)
	}
	s, ok := p.cfg.Resources.Resource(urn)
	if !ok {
		return providers.InvokeResponse{}, &UnknownResourceError{URN: urn}
	}
	outs := s.Outputs
	if outs == nil {
		outs = resource.PropertyMap{}
	}
	return providers.InvokeResponse{Return: resource.PropertyMap{
		"urn":      resource.NewString(string(s.URN)),
		"id":       resource.NewString(string(s.ID)),
		"provider": resource.NewString(s.Provider),
		"state":    resource.NewObject(outs),
	}}, nil
}

// UnknownResourceError reports a getResource for a resource that no
// completed step of the deployment has produced.
type UnknownResourceError struct{ URN resource.URN }

func (e *UnknownResourceError) Error() string {
	return fmt.Sprintf("resource %s is unknown to this deployment: only resources registered or read in this run, whose registration has completed, can be looked up by URN", e.URN)
}
