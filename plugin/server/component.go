package server

import (
	"context"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// componentOptions marshals a component's answer: output values are kept
// when the engine said it accepts them.
func (s *server) componentOptions(acceptsOutputs bool) wire.Options {
	opts := s.sendOptions()
	opts.KeepOutputValues = acceptsOutputs
	return opts
}

func parseTimeout(s string) time.Duration {
	d, _ := time.ParseDuration(s)
	return d
}

// Construct builds a component by delegating to the provider, with a Host
// that registers the children with the engine's resource monitor.
func (s *server) Construct(ctx context.Context, req *pulumirpc.ConstructRequest) (*pulumirpc.ConstructResponse, error) {
	inputs, err := wire.UnmarshalProperties(req.GetInputs(), recvOptions())
	if err != nil {
		return nil, badRequest(err)
	}
	host, err := dialMonitor(req.GetMonitorEndpoint())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	defer host.close()
	parent := resource.URN(req.GetParent())
	deps := map[resource.PropertyKey][]resource.URN{}
	for k, d := range req.GetInputDependencies() {
		deps[resource.PropertyKey(k)] = wire.URNs(d.GetUrns())
	}
	goal := resource.Goal{
		Type: req.GetType(), Name: req.GetName(), Remote: true, Inputs: inputs, Parent: parent,
		Protect: req.GetProtect(), Dependencies: wire.URNs(req.GetDependencies()), PropertyDependencies: deps,
		DeleteBeforeReplace: req.GetDeleteBeforeReplace(), IgnoreChanges: req.GetIgnoreChanges(),
		ReplaceOnChanges: req.GetReplaceOnChanges(), RetainOnDelete: req.GetRetainOnDelete(),
		DeletedWith: resource.URN(req.GetDeletedWith()), Aliases: wire.AliasesFromRPC(req.GetAliases()),
	}
	for _, k := range req.GetAdditionalSecretOutputs() {
		goal.AdditionalSecretOutputs = append(goal.AdditionalSecretOutputs, resource.PropertyKey(k))
	}
	if t := req.GetCustomTimeouts(); t != nil {
		goal.CustomTimeouts = resource.CustomTimeouts{Create: parseTimeout(t.GetCreate()), Update: parseTimeout(t.GetUpdate()), Delete: parseTimeout(t.GetDelete())}
	}
	resp, err := providers.Construct(ctx, s.p, providers.ConstructRequest{
		URN:  resource.NewURN(req.GetStack(), req.GetProject(), parent.QualifiedType(), req.GetType(), req.GetName()),
		Type: req.GetType(), Name: req.GetName(), Parent: parent, Inputs: inputs, InputDependencies: deps,
		Options: goal, Providers: req.GetProviders(), Host: host, Preview: req.GetDryRun(),
		Config: wire.ParseStackConfig(req.GetConfig(), req.GetConfigSecretKeys()),
	})
	if err != nil {
		return nil, s.toStatus(err)
	}
	state, err := wire.MarshalProperties(resp.Outputs, s.componentOptions(req.GetAcceptsOutputValues()))
	if err != nil {
		return nil, s.toStatus(err)
	}
	out := &pulumirpc.ConstructResponse{Urn: string(resp.URN), State: state, StateDependencies: map[string]*pulumirpc.ConstructResponse_PropertyDependencies{}}
	for k, urns := range resp.OutputDependencies {
		out.StateDependencies[string(k)] = &pulumirpc.ConstructResponse_PropertyDependencies{Urns: wire.URNStrings(urns)}
	}
	return out, nil
}

// Call calls a component method by delegating to the provider, with a Host
// on the engine's resource monitor.
func (s *server) Call(ctx context.Context, req *pulumirpc.CallRequest) (*pulumirpc.CallResponse, error) {
	args, err := wire.UnmarshalProperties(req.GetArgs(), recvOptions())
	if err != nil {
		return nil, badRequest(err)
	}
	host, err := dialMonitor(req.GetMonitorEndpoint())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	defer host.close()
	deps := map[resource.PropertyKey][]resource.URN{}
	for k, d := range req.GetArgDependencies() {
		deps[resource.PropertyKey(k)] = wire.URNs(d.GetUrns())
	}
	resp, err := providers.Call(ctx, s.p, providers.CallRequest{
		Token: req.GetTok(), Args: args, ArgDependencies: deps, Host: host, Preview: req.GetDryRun(),
		Config: wire.ParseStackConfig(req.GetConfig(), req.GetConfigSecretKeys()),
	})
	if err != nil {
		return nil, s.toStatus(err)
	}
	ret, err := wire.MarshalProperties(resp.Return, s.componentOptions(req.GetAcceptsOutputValues()))
	if err != nil {
		return nil, s.toStatus(err)
	}
	out := &pulumirpc.CallResponse{Return: ret, Failures: wire.FailuresToRPC(resp.Failures), ReturnDependencies: map[string]*pulumirpc.CallResponse_ReturnDependencies{}}
	for k, urns := range resp.ReturnDependencies {
		out.ReturnDependencies[string(k)] = &pulumirpc.CallResponse_ReturnDependencies{Urns: wire.URNStrings(urns)}
	}
	return out, nil
}
