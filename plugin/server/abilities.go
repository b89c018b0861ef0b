package server

import (
	"context"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// Handshake answers that this side accepts secrets and resource
// references; output values are agreed in Configure.
func (s *server) Handshake(ctx context.Context, req *pulumirpc.ProviderHandshakeRequest) (*pulumirpc.ProviderHandshakeResponse, error) {
	return &pulumirpc.ProviderHandshakeResponse{AcceptSecrets: true, AcceptResources: true}, nil
}

func (s *server) GetPluginInfo(ctx context.Context, _ *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: s.opts.Version}, nil
}

// Attach is how an engine attaches to a plugin it did not start; there is
// nothing to do.
func (s *server) Attach(ctx context.Context, req *pulumirpc.PluginAttach) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

// GetMapping and GetMappings answer that the provider maps nothing (they
// serve conversion from other tools' providers).
func (s *server) GetMapping(ctx context.Context, req *pulumirpc.GetMappingRequest) (*pulumirpc.GetMappingResponse, error) {
	return &pulumirpc.GetMappingResponse{}, nil
}

func (s *server) GetMappings(ctx context.Context, req *pulumirpc.GetMappingsRequest) (*pulumirpc.GetMappingsResponse, error) {
	return &pulumirpc.GetMappingsResponse{}, nil
}

// Configure reads the configuration from args, or from the legacy
// variables when args is absent, and records what the engine accepts in
// answers.
func (s *server) Configure(ctx context.Context, req *pulumirpc.ConfigureRequest) (*pulumirpc.ConfigureResponse, error) {
	var (
		inputs resource.PropertyMap
		err    error
	)
	if req.GetArgs() != nil {
		inputs, err = wire.UnmarshalProperties(req.GetArgs(), recvOptions())
	} else {
		inputs, err = wire.ParseConfigVariables(req.GetVariables())
	}
	if err != nil {
		return nil, badRequest(err)
	}
	resp, err := providers.Configure(ctx, s.p, providers.ConfigureRequest{
		URN: resource.URN(req.GetUrn()), ID: resource.ID(req.GetId()), Inputs: inputs,
		AcceptSecrets: req.GetAcceptSecrets(), AcceptResources: req.GetAcceptResources(),
	})
	if err != nil {
		return nil, s.toStatus(err)
	}
	s.mu.Lock()
	s.keepSecrets, s.keepResources = req.GetAcceptSecrets(), req.GetAcceptResources()
	s.mu.Unlock()
	return &pulumirpc.ConfigureResponse{
		AcceptSecrets: resp.AcceptSecrets, AcceptResources: resp.AcceptResources,
		AcceptOutputs: resp.AcceptOutputs, SupportsPreview: resp.SupportsPreview,
	}, nil
}

func (s *server) Parameterize(ctx context.Context, req *pulumirpc.ParameterizeRequest) (*pulumirpc.ParameterizeResponse, error) {
	var r providers.ParameterizeRequest
	switch p := req.GetParameters().(type) {
	case *pulumirpc.ParameterizeRequest_Args:
		r.Args = p.Args.GetArgs()
	case *pulumirpc.ParameterizeRequest_Value:
		r.Value = &providers.ParameterizeValue{Name: p.Value.GetName(), Version: p.Value.GetVersion(), Value: p.Value.GetValue()}
	default:
		return nil, status.Error(codes.InvalidArgument, "parameterize: the request has neither args nor a value")
	}
	resp, err := providers.Parameterize(ctx, s.p, r)
	if err != nil {
		return nil, s.toStatus(err)
	}
	return &pulumirpc.ParameterizeResponse{Name: resp.Name, Version: resp.Version}, nil
}

func (s *server) GetSchema(ctx context.Context, req *pulumirpc.GetSchemaRequest) (*pulumirpc.GetSchemaResponse, error) {
	resp, err := providers.GetSchema(ctx, s.p, providers.GetSchemaRequest{
		Version: int(req.GetVersion()), SubpackageName: req.GetSubpackageName(), SubpackageVersion: req.GetSubpackageVersion(),
	})
	if err != nil {
		return nil, s.toStatus(err)
	}
	return &pulumirpc.GetSchemaResponse{Schema: string(resp.Schema)}, nil
}

func (s *server) Invoke(ctx context.Context, req *pulumirpc.InvokeRequest) (*pulumirpc.InvokeResponse, error) {
	ms, err := unmarshalAll(req.GetArgs())
	if err != nil {
		return nil, err
	}
	resp, err := providers.Invoke(ctx, s.p, providers.InvokeRequest{Token: req.GetTok(), Args: ms[0]})
	if err != nil {
		return nil, s.toStatus(err)
	}
	ret, err := s.marshal(resp.Return)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.InvokeResponse{Return: ret, Failures: wire.FailuresToRPC(resp.Failures)}, nil
}

// Cancel signals the provider to wind down, then stops the server: calls in
// flight finish, new ones are refused.
func (s *server) Cancel(ctx context.Context, _ *emptypb.Empty) (*emptypb.Empty, error) {
	err := providers.SignalCancellation(ctx, s.p)
	s.shutdown()
	if err != nil {
		return nil, s.toStatus(err)
	}
	return &emptypb.Empty{}, nil
}
