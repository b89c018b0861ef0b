package plugin

import (
	"context"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// marshalAll marshals maps in order with the same options, stopping at the
// first error.
func marshalAll(opts wire.Options, maps ...resource.PropertyMap) ([]*structpb.Struct, error) {
	out := make([]*structpb.Struct, len(maps))
	for i, m := range maps {
		s, err := wire.MarshalProperties(m, opts)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// nameAndType returns the name and type the protocol sends beside a URN.
func nameAndType(urn resource.URN) (string, string) {
	if urn == "" {
		return "", ""
	}
	return urn.Name(), urn.Type()
}

func seconds(d time.Duration) float64 { return d.Seconds() }

// Check validates a resource's inputs.
func (p *Provider) Check(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
	return p.check(ctx, "Check", req, p.client.Check)
}

// CheckConfig validates the provider's configuration.
func (p *Provider) CheckConfig(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
	return p.check(ctx, "CheckConfig", req, p.client.CheckConfig)
}

type checkRPC = func(context.Context, *pulumirpc.CheckRequest, ...grpc.CallOption) (*pulumirpc.CheckResponse, error)

func (p *Provider) check(ctx context.Context, method string, req providers.CheckRequest, rpc checkRPC) (providers.CheckResponse, error) {
	ms, err := marshalAll(p.sendOptions(), req.Olds, req.News)
	if err != nil {
		return providers.CheckResponse{}, p.errorf(method, req.URN, "%w", err)
	}
	name, typ := nameAndType(req.URN)
	var resp *pulumirpc.CheckResponse
	err = p.call(ctx, method, req.URN, func(ctx context.Context) (err error) {
		resp, err = rpc(ctx, &pulumirpc.CheckRequest{
			Urn: string(req.URN), Name: name, Type: typ,
			Olds: ms[0], News: ms[1], RandomSeed: req.RandomSeed,
		})
		return err
	})
	if err != nil {
		return providers.CheckResponse{}, err
	}
	inputs, err := p.receive(method, req.URN, resp.GetInputs())
	if err != nil {
		return providers.CheckResponse{}, err
	}
	if resp.GetInputs() == nil {
		inputs = nil
	}
	return providers.CheckResponse{Inputs: p.annotateSecrets(inputs, req.News), Failures: wire.FailuresFromRPC(resp.GetFailures())}, nil
}

// receive unmarshals a map the plugin sent.
func (p *Provider) receive(method string, urn resource.URN, s *structpb.Struct) (resource.PropertyMap, error) {
	m, err := wire.UnmarshalProperties(s, recvOptions())
	if err != nil {
		return nil, p.errorf(method, urn, "reading the plugin's answer: %w", err)
	}
	return m, nil
}

// annotateSecrets protects secrets from a plugin that does not accept them:
// it received their plain values, so each top-level output whose input was
// secret is marked secret again.
func (p *Provider) annotateSecrets(outs, ins resource.PropertyMap) resource.PropertyMap {
	if p.sendOptions().KeepSecrets || outs == nil {
		return outs
	}
	for k, in := range ins {
		if out, ok := outs[k]; ok && in.ContainsSecrets() && !out.ContainsSecrets() {
			outs[k] = resource.NewSecret(out)
		}
	}
	return outs
}

// Diff compares a resource's recorded state with its new inputs.
func (p *Provider) Diff(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
	return p.diff(ctx, "Diff", req, p.client.Diff)
}

// DiffConfig compares the provider's old and new configuration.
func (p *Provider) DiffConfig(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
	return p.diff(ctx, "DiffConfig", req, p.client.DiffConfig)
}

type diffRPC = func(context.Context, *pulumirpc.DiffRequest, ...grpc.CallOption) (*pulumirpc.DiffResponse, error)

func (p *Provider) diff(ctx context.Context, method string, req providers.DiffRequest, rpc diffRPC) (providers.DiffResponse, error) {
	ms, err := marshalAll(p.sendOptions(), req.OldOutputs, req.NewInputs, req.OldInputs)
	if err != nil {
		return providers.DiffResponse{}, p.errorf(method, req.URN, "%w", err)
	}
	name, typ := nameAndType(req.URN)
	var resp *pulumirpc.DiffResponse
	err = p.call(ctx, method, req.URN, func(ctx context.Context) (err error) {
		resp, err = rpc(ctx, &pulumirpc.DiffRequest{
			Urn: string(req.URN), Name: name, Type: typ, Id: string(req.ID),
			Olds: ms[0], News: ms[1], OldInputs: ms[2], IgnoreChanges: req.IgnoreChanges,
		})
		return err
	})
	if err != nil {
		return providers.DiffResponse{}, err
	}
	return wire.DiffFromRPC(resp), nil
}

// Create creates a resource (or, in a preview, computes its outputs).
func (p *Provider) Create(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
	ms, err := marshalAll(p.sendOptions(), req.Inputs)
	if err != nil {
		return providers.CreateResponse{}, p.errorf("Create", req.URN, "%w", err)
	}
	name, typ := nameAndType(req.URN)
	var resp *pulumirpc.CreateResponse
	err = p.call(ctx, "Create", req.URN, func(ctx context.Context) (err error) {
		resp, err = p.client.Create(ctx, &pulumirpc.CreateRequest{
			Urn: string(req.URN), Name: name, Type: typ,
			Properties: ms[0], Timeout: seconds(req.Timeout), Preview: req.Preview,
		})
		return err
	})
	if err != nil {
		return providers.CreateResponse{}, err
	}
	outs, err := p.receive("Create", req.URN, resp.GetProperties())
	if err != nil {
		return providers.CreateResponse{}, err
	}
	return providers.CreateResponse{ID: resource.ID(resp.GetId()), Outputs: p.annotateSecrets(outs, req.Inputs)}, nil
}

// Read reads a resource's current state; an empty ID means it is gone.
func (p *Provider) Read(ctx context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
	ms, err := marshalAll(p.sendOptions(), req.State, req.Inputs)
	if err != nil {
		return providers.ReadResponse{}, p.errorf("Read", req.URN, "%w", err)
	}
	name, typ := nameAndType(req.URN)
	var resp *pulumirpc.ReadResponse
	err = p.call(ctx, "Read", req.URN, func(ctx context.Context) (err error) {
		resp, err = p.client.Read(ctx, &pulumirpc.ReadRequest{
			Urn: string(req.URN), Name: name, Type: typ, Id: string(req.ID),
			Properties: ms[0], Inputs: ms[1],
		})
		return err
	})
	if err != nil {
		return providers.ReadResponse{}, err
	}
	outs, err := p.receive("Read", req.URN, resp.GetProperties())
	if err != nil {
		return providers.ReadResponse{}, err
	}
	ins, err := p.receive("Read", req.URN, resp.GetInputs())
	if err != nil {
		return providers.ReadResponse{}, err
	}
	if resp.GetInputs() == nil {
		ins = nil
	}
	return providers.ReadResponse{ID: resource.ID(resp.GetId()), Outputs: p.annotateSecrets(outs, req.State), Inputs: ins}, nil
}

// Update updates a resource in place.
func (p *Provider) Update(ctx context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
	ms, err := marshalAll(p.sendOptions(), req.OldOutputs, req.NewInputs, req.OldInputs)
	if err != nil {
		return providers.UpdateResponse{}, p.errorf("Update", req.URN, "%w", err)
	}
	name, typ := nameAndType(req.URN)
	var resp *pulumirpc.UpdateResponse
	err = p.call(ctx, "Update", req.URN, func(ctx context.Context) (err error) {
		resp, err = p.client.Update(ctx, &pulumirpc.UpdateRequest{
			Urn: string(req.URN), Name: name, Type: typ, Id: string(req.ID),
			Olds: ms[0], News: ms[1], OldInputs: ms[2],
			Timeout: seconds(req.Timeout), IgnoreChanges: req.IgnoreChanges, Preview: req.Preview,
		})
		return err
	})
	if err != nil {
		return providers.UpdateResponse{}, err
	}
	outs, err := p.receive("Update", req.URN, resp.GetProperties())
	if err != nil {
		return providers.UpdateResponse{}, err
	}
	return providers.UpdateResponse{Outputs: p.annotateSecrets(outs, req.NewInputs)}, nil
}

// Delete deletes a resource.
func (p *Provider) Delete(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
	ms, err := marshalAll(p.sendOptions(), req.Outputs, req.Inputs)
	if err != nil {
		return providers.DeleteResponse{}, p.errorf("Delete", req.URN, "%w", err)
	}
	name, typ := nameAndType(req.URN)
	err = p.call(ctx, "Delete", req.URN, func(ctx context.Context) error {
		_, err := p.client.Delete(ctx, &pulumirpc.DeleteRequest{
			Urn: string(req.URN), Name: name, Type: typ, Id: string(req.ID),
			Properties: ms[0], OldInputs: ms[1], Timeout: seconds(req.Timeout),
		})
		return err
	})
	return providers.DeleteResponse{}, err
}
