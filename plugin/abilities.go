package plugin

import (
	"context"
	"errors"
	"math"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// Configure configures the plugin. The configuration is sent twice, as the
// protocol asks: structured (args, with secrets, resource references and
// unknowns kept) and in the legacy string form ("<pkg>:config:<key>"
// variables) that older plugins read. What the plugin answers it accepts
// decides how later calls marshal their values.
func (p *Provider) Configure(ctx context.Context, req providers.ConfigureRequest) (providers.ConfigureResponse, error) {
	args, err := wire.MarshalProperties(req.Inputs, wire.Options{KeepUnknowns: true, KeepSecrets: true, KeepResources: true})
	if err != nil {
		return providers.ConfigureResponse{}, p.errorf("Configure", req.URN, "%w", err)
	}
	vars, err := wire.ConfigVariables(p.name, req.Inputs)
	if err != nil {
		return providers.ConfigureResponse{}, p.errorf("Configure", req.URN, "%w", err)
	}
	rpcReq := &pulumirpc.ConfigureRequest{
		Args: args, Variables: vars,
		AcceptSecrets: req.AcceptSecrets, AcceptResources: req.AcceptResources,
		SendsOldInputs: true, SendsOldInputsToDelete: true,
	}
	if req.URN != "" {
		urn, name, typ := string(req.URN), req.URN.Name(), req.URN.Type()
		rpcReq.Urn, rpcReq.Name, rpcReq.Type = &urn, &name, &typ
	}
	if req.ID != "" {
		id := string(req.ID)
		rpcReq.Id = &id
	}
	var resp *pulumirpc.ConfigureResponse
	err = p.call(ctx, "Configure", req.URN, func(ctx context.Context) (err error) {
		resp, err = p.client.Configure(ctx, rpcReq)
		return err
	})
	if err != nil {
		return providers.ConfigureResponse{}, err
	}
	p.setAccepts(resp.GetAcceptSecrets(), resp.GetAcceptResources(), resp.GetAcceptOutputs())
	return providers.ConfigureResponse{
		AcceptSecrets:   resp.GetAcceptSecrets(),
		AcceptResources: resp.GetAcceptResources(),
		AcceptOutputs:   resp.GetAcceptOutputs(),
		SupportsPreview: resp.GetSupportsPreview(),
	}, nil
}

// Parameterize parameterizes the plugin, in the args or the value form.
func (p *Provider) Parameterize(ctx context.Context, req providers.ParameterizeRequest) (providers.ParameterizeResponse, error) {
	rpcReq := &pulumirpc.ParameterizeRequest{}
	switch {
	case req.Value != nil:
		rpcReq.Parameters = &pulumirpc.ParameterizeRequest_Value{Value: &pulumirpc.ParameterizeRequest_ParametersValue{
			Name: req.Value.Name, Version: req.Value.Version, Value: req.Value.Value,
		}}
	default:
		rpcReq.Parameters = &pulumirpc.ParameterizeRequest_Args{Args: &pulumirpc.ParameterizeRequest_ParametersArgs{Args: req.Args}}
	}
	var resp *pulumirpc.ParameterizeResponse
	err := p.call(ctx, "Parameterize", "", func(ctx context.Context) (err error) {
		resp, err = p.client.Parameterize(ctx, rpcReq)
		return err
	})
	if err != nil {
		return providers.ParameterizeResponse{}, err
	}
	return providers.ParameterizeResponse{Name: resp.GetName(), Version: resp.GetVersion()}, nil
}

// GetSchema returns the plugin's package schema.
func (p *Provider) GetSchema(ctx context.Context, req providers.GetSchemaRequest) (providers.GetSchemaResponse, error) {
	var resp *pulumirpc.GetSchemaResponse
	err := p.call(ctx, "GetSchema", "", func(ctx context.Context) (err error) {
		resp, err = p.client.GetSchema(ctx, &pulumirpc.GetSchemaRequest{
			Version: int32(req.Version), SubpackageName: req.SubpackageName, SubpackageVersion: req.SubpackageVersion,
		})
		return err
	})
	if err != nil {
		return providers.GetSchemaResponse{}, err
	}
	return providers.GetSchemaResponse{Schema: []byte(resp.GetSchema())}, nil
}

// Invoke calls one of the plugin's functions.
func (p *Provider) Invoke(ctx context.Context, req providers.InvokeRequest) (providers.InvokeResponse, error) {
	method := "Invoke " + req.Token
	args, err := wire.MarshalProperties(req.Args, p.sendOptions())
	if err != nil {
		return providers.InvokeResponse{}, p.errorf(method, "", "%w", err)
	}
	var resp *pulumirpc.InvokeResponse
	err = p.call(ctx, method, "", func(ctx context.Context) (err error) {
		resp, err = p.client.Invoke(ctx, &pulumirpc.InvokeRequest{Tok: req.Token, Args: args})
		return err
	})
	if err != nil {
		return providers.InvokeResponse{}, err
	}
	ret, err := p.receive(method, "", resp.GetReturn())
	if err != nil {
		return providers.InvokeResponse{}, err
	}
	return providers.InvokeResponse{Return: ret, Failures: wire.FailuresFromRPC(resp.GetFailures())}, nil
}

// StreamInvoke is not part of the provider protocol: it answers an error
// wrapping providers.ErrNotImplemented, so that providers.StreamInvoke
// falls back to Invoke.
func (p *Provider) StreamInvoke(ctx context.Context, req providers.InvokeRequest, emit func(resource.PropertyMap) error) error {
	return p.errorf("StreamInvoke "+req.Token, "", "%w (the provider protocol has no streaming invoke)", providers.ErrNotImplemented)
}

// SignalCancellation asks the plugin to wind down its work in flight.
func (p *Provider) SignalCancellation(ctx context.Context) error {
	return p.call(ctx, "Cancel", "", func(ctx context.Context) error {
		_, err := p.client.Cancel(ctx, &emptypb.Empty{})
		return err
	})
}

// MonitorHost is what Construct and Call need of the providers.Host in
// their request to work over gRPC: the address of a resource monitor gRPC
// server the plugin can call back to register the component's children. A
// Host without it makes them fail with ErrNoMonitor.
type MonitorHost interface {
	MonitorAddress() string
}

// ErrNoMonitor is the error of a Construct or Call whose Host has no
// resource monitor server (see MonitorHost).
var ErrNoMonitor = errors.New("construct and call over gRPC need the engine's resource monitor server: the request's Host has no MonitorAddress")

func monitorAddress(h providers.Host) (string, error) {
	if m, ok := h.(MonitorHost); ok && m.MonitorAddress() != "" {
		return m.MonitorAddress(), nil
	}
	return "", ErrNoMonitor
}

// componentOptions says how to marshal a component's inputs: output values
// are kept when the plugin accepts them.
func (p *Provider) componentOptions() wire.Options {
	opts := p.sendOptions()
	p.mu.Lock()
	opts.KeepOutputValues = p.acceptOutputs
	p.mu.Unlock()
	return opts
}

// Construct asks the plugin to construct a component; the plugin registers
// its children through the Host's resource monitor (see MonitorHost). The
// project and stack come from the component's URN; the stack's
// configuration goes as strings, with the keys of its secrets (see
// wire.StackConfig).
func (p *Provider) Construct(ctx context.Context, req providers.ConstructRequest) (providers.ConstructResponse, error) {
	addr, err := monitorAddress(req.Host)
	if err != nil {
		return providers.ConstructResponse{}, p.errorf("Construct", req.URN, "%w", err)
	}
	inputs, err := wire.MarshalProperties(req.Inputs, p.componentOptions())
	if err != nil {
		return providers.ConstructResponse{}, p.errorf("Construct", req.URN, "%w", err)
	}
	config, secretKeys, err := wire.StackConfig(req.Config)
	if err != nil {
		return providers.ConstructResponse{}, p.errorf("Construct", req.URN, "%w", err)
	}
	rpcReq := constructRequest(req, addr, inputs)
	rpcReq.Config, rpcReq.ConfigSecretKeys = config, secretKeys
	var resp *pulumirpc.ConstructResponse
	err = p.call(ctx, "Construct", req.URN, func(ctx context.Context) (err error) {
		resp, err = p.client.Construct(ctx, rpcReq)
		return err
	})
	if err != nil {
		return providers.ConstructResponse{}, err
	}
	outs, err := p.receive("Construct", req.URN, resp.GetState())
	if err != nil {
		return providers.ConstructResponse{}, err
	}
	deps := map[resource.PropertyKey][]resource.URN{}
	for k, d := range resp.GetStateDependencies() {
		deps[resource.PropertyKey(k)] = wire.URNs(d.GetUrns())
	}
	return providers.ConstructResponse{URN: resource.URN(resp.GetUrn()), Outputs: outs, OutputDependencies: deps}, nil
}

func constructRequest(req providers.ConstructRequest, addr string, inputs *structpb.Struct) *pulumirpc.ConstructRequest {
	where := req.URN
	if where == "" {
		where = req.Parent
	}
	o := req.Options
	rpcReq := &pulumirpc.ConstructRequest{
		Project: where.Project(), Stack: where.Stack(),
		DryRun: req.Preview, Parallel: math.MaxInt32, MonitorEndpoint: addr,
		Type: req.Type, Name: req.Name, Parent: string(req.Parent),
		Inputs: inputs, Providers: req.Providers, InputDependencies: map[string]*pulumirpc.ConstructRequest_PropertyDependencies{},
		Dependencies: wire.URNStrings(o.Dependencies), Protect: &o.Protect,
		AdditionalSecretOutputs: wire.KeyStrings(o.AdditionalSecretOutputs), DeletedWith: string(o.DeletedWith),
		DeleteBeforeReplace: &o.DeleteBeforeReplace, IgnoreChanges: o.IgnoreChanges, ReplaceOnChanges: o.ReplaceOnChanges,
		RetainOnDelete: &o.RetainOnDelete, AcceptsOutputValues: true, Aliases: wire.AliasesToRPC(o.Aliases),
	}
	for k, urns := range req.InputDependencies {
		rpcReq.InputDependencies[string(k)] = &pulumirpc.ConstructRequest_PropertyDependencies{Urns: wire.URNStrings(urns)}
	}
	if t := o.CustomTimeouts; !t.IsZero() {
		rpcReq.CustomTimeouts = &pulumirpc.ConstructRequest_CustomTimeouts{
			Create: durationString(t.Create), Update: durationString(t.Update), Delete: durationString(t.Delete),
		}
	}
	return rpcReq
}

func durationString(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

// Call calls a method of a component the plugin constructed; like
// Construct, it needs a Host with a resource monitor (see MonitorHost),
// and it sends the stack's configuration as Construct does.
func (p *Provider) Call(ctx context.Context, req providers.CallRequest) (providers.CallResponse, error) {
	method := "Call " + req.Token
	addr, err := monitorAddress(req.Host)
	if err != nil {
		return providers.CallResponse{}, p.errorf(method, "", "%w", err)
	}
	args, err := wire.MarshalProperties(req.Args, p.componentOptions())
	if err != nil {
		return providers.CallResponse{}, p.errorf(method, "", "%w", err)
	}
	config, secretKeys, err := wire.StackConfig(req.Config)
	if err != nil {
		return providers.CallResponse{}, p.errorf(method, "", "%w", err)
	}
	self := req.Args["__self__"].ResourceReferenceValue().URN
	rpcReq := &pulumirpc.CallRequest{
		Tok: req.Token, Args: args, ArgDependencies: map[string]*pulumirpc.CallRequest_ArgumentDependencies{},
		Project: self.Project(), Stack: self.Stack(), Config: config, ConfigSecretKeys: secretKeys,
		DryRun: req.Preview, Parallel: math.MaxInt32, MonitorEndpoint: addr, AcceptsOutputValues: true,
	}
	for k, urns := range req.ArgDependencies {
		rpcReq.ArgDependencies[string(k)] = &pulumirpc.CallRequest_ArgumentDependencies{Urns: wire.URNStrings(urns)}
	}
	var resp *pulumirpc.CallResponse
	err = p.call(ctx, method, "", func(ctx context.Context) (err error) {
		resp, err = p.client.Call(ctx, rpcReq)
		return err
	})
	if err != nil {
		return providers.CallResponse{}, err
	}
	ret, err := p.receive(method, "", resp.GetReturn())
	if err != nil {
		return providers.CallResponse{}, err
	}
	deps := map[resource.PropertyKey][]resource.URN{}
	for k, d := range resp.GetReturnDependencies() {
		deps[resource.PropertyKey(k)] = wire.URNs(d.GetUrns())
	}
	return providers.CallResponse{Return: ret, ReturnDependencies: deps, Failures: wire.FailuresFromRPC(resp.GetFailures())}, nil
}
