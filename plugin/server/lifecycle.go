package server

import (
	"context"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// unmarshalAll unmarshals the request's maps, in order.
func unmarshalAll(ss ...*structpb.Struct) ([]resource.PropertyMap, error) {
	out := make([]resource.PropertyMap, len(ss))
	for i, s := range ss {
		m, err := wire.UnmarshalProperties(s, recvOptions())
		if err != nil {
			return nil, badRequest(err)
		}
		out[i] = m
	}
	return out, nil
}

// marshal marshals an answer's map; nil stays nil.
func (s *server) marshal(m resource.PropertyMap) (*structpb.Struct, error) {
	if m == nil {
		return nil, nil
	}
	st, err := wire.MarshalProperties(m, s.sendOptions())
	if err != nil {
		return nil, s.toStatus(err)
	}
	return st, nil
}

func duration(seconds float64) time.Duration { return time.Duration(seconds * float64(time.Second)) }

func (s *server) Check(ctx context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	return s.check(ctx, req, s.p.Check)
}

func (s *server) CheckConfig(ctx context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	return s.check(ctx, req, func(ctx context.Context, r providers.CheckRequest) (providers.CheckResponse, error) {
		return providers.CheckConfig(ctx, s.p, r)
	})
}

func (s *server) check(ctx context.Context, req *pulumirpc.CheckRequest,
	f func(context.Context, providers.CheckRequest) (providers.CheckResponse, error),
) (*pulumirpc.CheckResponse, error) {
	ms, err := unmarshalAll(req.GetOlds(), req.GetNews())
	if err != nil {
		return nil, err
	}
	resp, err := f(ctx, providers.CheckRequest{URN: resource.URN(req.GetUrn()), Olds: ms[0], News: ms[1], RandomSeed: req.GetRandomSeed()})
	if err != nil {
		return nil, s.toStatus(err)
	}
	inputs, err := s.marshal(resp.Inputs)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.CheckResponse{Inputs: inputs, Failures: wire.FailuresToRPC(resp.Failures)}, nil
}

func (s *server) Diff(ctx context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	return s.diff(ctx, req, s.p.Diff)
}

func (s *server) DiffConfig(ctx context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	return s.diff(ctx, req, func(ctx context.Context, r providers.DiffRequest) (providers.DiffResponse, error) {
		return providers.DiffConfig(ctx, s.p, r)
	})
}

func (s *server) diff(ctx context.Context, req *pulumirpc.DiffRequest,
	f func(context.Context, providers.DiffRequest) (providers.DiffResponse, error),
) (*pulumirpc.DiffResponse, error) {
	ms, err := unmarshalAll(req.GetOlds(), req.GetNews(), req.GetOldInputs())
	if err != nil {
		return nil, err
	}
	resp, err := f(ctx, providers.DiffRequest{
		URN: resource.URN(req.GetUrn()), ID: resource.ID(req.GetId()),
		OldOutputs: ms[0], NewInputs: ms[1], OldInputs: ms[2], IgnoreChanges: req.GetIgnoreChanges(),
	})
	if err != nil {
		return nil, s.toStatus(err)
	}
	return wire.DiffToRPC(resp), nil
}

func (s *server) Create(ctx context.Context, req *pulumirpc.CreateRequest) (*pulumirpc.CreateResponse, error) {
	ms, err := unmarshalAll(req.GetProperties())
	if err != nil {
		return nil, err
	}
	resp, err := s.p.Create(ctx, providers.CreateRequest{
		URN: resource.URN(req.GetUrn()), Inputs: ms[0], Timeout: duration(req.GetTimeout()), Preview: req.GetPreview(),
	})
	if err != nil {
		return nil, s.toStatus(err)
	}
	outs, err := s.marshal(resp.Outputs)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.CreateResponse{Id: string(resp.ID), Properties: outs}, nil
}

func (s *server) Read(ctx context.Context, req *pulumirpc.ReadRequest) (*pulumirpc.ReadResponse, error) {
	ms, err := unmarshalAll(req.GetProperties(), req.GetInputs())
	if err != nil {
		return nil, err
	}
	resp, err := s.p.Read(ctx, providers.ReadRequest{
		URN: resource.URN(req.GetUrn()), ID: resource.ID(req.GetId()), State: ms[0], Inputs: ms[1],
	})
	if err != nil {
		return nil, s.toStatus(err)
	}
	outs, err := s.marshal(resp.Outputs)
	if err != nil {
		return nil, err
	}
	ins, err := s.marshal(resp.Inputs)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.ReadResponse{Id: string(resp.ID), Properties: outs, Inputs: ins}, nil
}

func (s *server) Update(ctx context.Context, req *pulumirpc.UpdateRequest) (*pulumirpc.UpdateResponse, error) {
	ms, err := unmarshalAll(req.GetOlds(), req.GetNews(), req.GetOldInputs())
	if err != nil {
		return nil, err
	}
	resp, err := s.p.Update(ctx, providers.UpdateRequest{
		URN: resource.URN(req.GetUrn()), ID: resource.ID(req.GetId()),
		OldOutputs: ms[0], NewInputs: ms[1], OldInputs: ms[2],
		IgnoreChanges: req.GetIgnoreChanges(), Timeout: duration(req.GetTimeout()), Preview: req.GetPreview(),
	})
	if err != nil {
		return nil, s.toStatus(err)
	}
	outs, err := s.marshal(resp.Outputs)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.UpdateResponse{Properties: outs}, nil
}

func (s *server) Delete(ctx context.Context, req *pulumirpc.DeleteRequest) (*emptypb.Empty, error) {
	ms, err := unmarshalAll(req.GetProperties(), req.GetOldInputs())
	if err != nil {
		return nil, err
	}
	_, err = s.p.Delete(ctx, providers.DeleteRequest{
		URN: resource.URN(req.GetUrn()), ID: resource.ID(req.GetId()),
		Outputs: ms[0], Inputs: ms[1], Timeout: duration(req.GetTimeout()),
	})
	if err != nil {
		return nil, s.toStatus(err)
	}
	return &emptypb.Empty{}, nil
}
