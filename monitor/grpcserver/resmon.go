package grpcserver

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/providers/pulumi"
	"github.com/groundwork-iac/groundwork/resource"
)

// resourceMonitor adapts a Monitor to the ResourceMonitor service: it
// converts each request with package wire and passes it on.
type resourceMonitor struct {
	pulumirpc.UnimplementedResourceMonitorServer
	mon        Monitor
	packages   *packages
	callbacks  *callbacks
	transforms *transforms
	hooks      HookRegistry
	shutdown   func(context.Context) error
	// continueOnError is Config.ContinueOnError.
	continueOnError bool
	// waiting is set by the first SignalAndWaitForShutdown.
	waiting atomic.Bool
}

func newResourceMonitor(cfg Config, cbs *callbacks) *resourceMonitor {
	return &resourceMonitor{mon: cfg.Monitor, packages: newPackages(cfg.Packages), callbacks: cbs,
		transforms: newTransforms(cbs), hooks: cfg.Hooks, shutdown: cfg.Shutdown, continueOnError: cfg.ContinueOnError}
}

// features are the SupportsFeature ids the server answers true for.
// "errorHooks" and "replaceWith" are not supported: the SDKs then refuse
// the option.
var features = map[string]bool{
	"secrets":            true,
	"resourceReferences": true,
	"outputValues":       true,
	"aliasSpecs":         true,
	"deletedWith":        true,
	"transforms":         true,
	"invokeTransforms":   true,
}

// SupportsFeature says which protocol features the server understands.
func (s *resourceMonitor) SupportsFeature(_ context.Context, req *pulumirpc.SupportsFeatureRequest) (*pulumirpc.SupportsFeatureResponse, error) {
	has := features[req.GetId()]
	switch req.GetId() {
	case "parameterization":
		has = s.packages.enabled()
	case "resourceHooks":
		has = s.hooks != nil
	}
	return &pulumirpc.SupportsFeatureResponse{HasSupport: has}, nil
}

// RegisterResource registers a resource and answers once its step has
// completed, with the outputs in the form the caller accepts.
func (s *resourceMonitor) RegisterResource(ctx context.Context, req *pulumirpc.RegisterResourceRequest) (*pulumirpc.RegisterResourceResponse, error) {
	own, all := s.transforms.forRegistration(req)
	if len(all) > 0 {
		if err := s.transforms.applyResource(ctx, req, all, len(own) > 0); err != nil {
			return nil, status.Errorf(statusOf(err), "transforming %s %q: %v", req.GetType(), req.GetName(), err)
		}
	}
	goal, err := goalOf(ctx, req)
	if err != nil {
		return nil, badRequest("register %s %q: %v", req.GetType(), req.GetName(), err)
	}
	if err := s.packages.apply(req.GetPackageRef(), &goal.Version); err != nil {
		return nil, badRequest("register %s %q: %v", req.GetType(), req.GetName(), err)
	}
	res, err := s.mon.RegisterResource(ctx, goal)
	if err != nil {
		if answer := s.stepNotSucceeded(ctx, err); answer != nil {
			return answer, nil
		}
		return nil, registrationStatus(err)
	}
	s.transforms.registered(res.URN, goal.Parent, own)
	opts := answerOptions(req.GetAcceptSecrets(), req.GetAcceptResources())
	obj, err := wire.MarshalProperties(res.Outputs, opts)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "register %s %q: sending its outputs: %v", req.GetType(), req.GetName(), err)
	}
	return &pulumirpc.RegisterResourceResponse{
		Urn: string(res.URN), Id: string(res.ID), Object: obj, Stable: res.Stable, Result: pulumirpc.Result_SUCCESS,
		PropertyDependencies: componentOutputDependencies(res.OutputDependencies),
	}, nil
}

// componentOutputDependencies are a remote component's output dependencies as the
// SDKs read them: each output's value depends on those resources too.
func componentOutputDependencies(deps map[resource.PropertyKey][]resource.URN) map[string]*pulumirpc.RegisterResourceResponse_PropertyDependencies {
	if len(deps) == 0 {
		return nil
	}
	out := make(map[string]*pulumirpc.RegisterResourceResponse_PropertyDependencies, len(deps))
	for k, urns := range deps {
		out[string(k)] = &pulumirpc.RegisterResourceResponse_PropertyDependencies{Urns: wire.URNStrings(urns)}
	}
	return out
}

// stepNotSucceeded answers a registration whose step failed, or was
// skipped because a resource it needs failed, in an operation that goes on
// after errors: with the resource's URN, no outputs (so that the SDKs take
// them as unknown) and the result FAIL or SKIP, as the Pulumi engine does,
// so that the program goes on. It returns nil for any other failure.
func (s *resourceMonitor) stepNotSucceeded(ctx context.Context, err error) *pulumirpc.RegisterResourceResponse {
	urn, skipped, ok := monitor.StepOutcome(err)
	if !ok || !s.continueOnError || ctx.Err() != nil {
		return nil
	}
	result := pulumirpc.Result_FAIL
	if skipped {
		result = pulumirpc.Result_SKIP
	}
	return &pulumirpc.RegisterResourceResponse{Urn: string(urn), Object: &structpb.Struct{}, Result: result}
}

// RegisterResourceOutputs records a component's outputs (the stack's, for
// the root resource).
func (s *resourceMonitor) RegisterResourceOutputs(ctx context.Context, req *pulumirpc.RegisterResourceOutputsRequest) (*emptypb.Empty, error) {
	outs, err := wire.UnmarshalProperties(req.GetOutputs(), plainInputs)
	if err != nil {
		return nil, badRequest("register outputs of %s: %v", req.GetUrn(), err)
	}
	if err := s.mon.RegisterResourceOutputs(ctx, resource.URN(req.GetUrn()), outs); err != nil {
		return nil, registrationStatus(err)
	}
	return &emptypb.Empty{}, nil
}

// ReadResource reads an external resource and records it.
func (s *resourceMonitor) ReadResource(ctx context.Context, req *pulumirpc.ReadResourceRequest) (*pulumirpc.ReadResourceResponse, error) {
	props, err := wire.UnmarshalProperties(req.GetProperties(), plainInputs)
	if err != nil {
		return nil, badRequest("read %s %q: %v", req.GetType(), req.GetName(), err)
	}
	goal := resource.Goal{
		Type: req.GetType(), Name: req.GetName(), Custom: true, Parent: resource.URN(req.GetParent()),
		Inputs: props, Dependencies: wire.URNs(req.GetDependencies()), Provider: req.GetProvider(),
		Version: req.GetVersion(), AdditionalSecretOutputs: keys(req.GetAdditionalSecretOutputs()),
	}
	if err := s.packages.apply(req.GetPackageRef(), &goal.Version); err != nil {
		return nil, badRequest("read %s %q: %v", req.GetType(), req.GetName(), err)
	}
	res, err := s.mon.ReadResource(ctx, goal, resource.ID(req.GetId()))
	if err != nil {
		return nil, registrationStatus(err)
	}
	obj, err := wire.MarshalProperties(res.Outputs, answerOptions(req.GetAcceptSecrets(), req.GetAcceptResources()))
	if err != nil {
		return nil, status.Errorf(codes.Internal, "read %s %q: sending its state: %v", req.GetType(), req.GetName(), err)
	}
	return &pulumirpc.ReadResourceResponse{Urn: string(res.URN), Properties: obj}, nil
}

// Invoke calls a provider function. Secret arguments are passed as their
// plain values (the SDKs mark the result secret themselves).
func (s *resourceMonitor) Invoke(ctx context.Context, req *pulumirpc.ResourceInvokeRequest) (*pulumirpc.InvokeResponse, error) {
	if err := s.transforms.applyInvoke(ctx, req); err != nil {
		return nil, status.Errorf(statusOf(err), "invoke %s: %v", req.GetTok(), err)
	}
	args, err := wire.UnmarshalProperties(req.GetArgs(), invokeArgs)
	if err != nil {
		return nil, badRequest("invoke %s: %v", req.GetTok(), err)
	}
	ir := monitor.InvokeRequest{Token: req.GetTok(), Args: args, Provider: req.GetProvider(), Version: req.GetVersion()}
	if err := s.packages.apply(req.GetPackageRef(), &ir.Version); err != nil {
		return nil, badRequest("invoke %s: %v", req.GetTok(), err)
	}
	resp, err := s.mon.Invoke(ctx, ir)
	if err != nil {
		return nil, toStatus(err)
	}
	// getResource's answer keeps resource references whatever the caller
	// says: SDKs that predate acceptResources rely on it, as with Pulumi's
	// engine.
	keepResources := req.GetAcceptResources() || req.GetTok() == pulumi.GetResource
	ret, err := wire.MarshalProperties(resp.Return, answerOptions(true, keepResources))
	if err != nil {
		return nil, status.Errorf(codes.Internal, "invoke %s: sending its result: %v", req.GetTok(), err)
	}
	return &pulumirpc.InvokeResponse{Return: ret, Failures: wire.FailuresToRPC(resp.Failures)}, nil
}

// Call calls a component's method through its provider.
func (s *resourceMonitor) Call(ctx context.Context, req *pulumirpc.ResourceCallRequest) (*pulumirpc.CallResponse, error) {
	args, err := wire.UnmarshalProperties(req.GetArgs(), wire.KeepAll())
	if err != nil {
		return nil, badRequest("call %s: %v", req.GetTok(), err)
	}
	cr := monitor.CallRequest{Token: req.GetTok(), Args: args, Provider: req.GetProvider(), Version: req.GetVersion()}
	if deps := req.GetArgDependencies(); len(deps) > 0 {
		cr.ArgDependencies = make(map[resource.PropertyKey][]resource.URN, len(deps))
		for k, d := range deps {
			cr.ArgDependencies[resource.PropertyKey(k)] = wire.URNs(d.GetUrns())
		}
	}
	if err := s.packages.apply(req.GetPackageRef(), &cr.Version); err != nil {
		return nil, badRequest("call %s: %v", req.GetTok(), err)
	}
	resp, err := s.mon.Call(ctx, cr)
	if err != nil {
		return nil, toStatus(err)
	}
	ret, err := wire.MarshalProperties(resp.Return, answerOptions(true, true))
	if err != nil {
		return nil, status.Errorf(codes.Internal, "call %s: sending its result: %v", req.GetTok(), err)
	}
	out := &pulumirpc.CallResponse{Return: ret, Failures: wire.FailuresToRPC(resp.Failures)}
	if len(resp.ReturnDependencies) > 0 {
		out.ReturnDependencies = make(map[string]*pulumirpc.CallResponse_ReturnDependencies, len(resp.ReturnDependencies))
		for k, urns := range resp.ReturnDependencies {
			out.ReturnDependencies[string(k)] = &pulumirpc.CallResponse_ReturnDependencies{Urns: wire.URNStrings(urns)}
		}
	}
	return out, nil
}

// RegisterPackage records a package (parameterizing its plugin when asked)
// and answers the reference later requests name it by.
func (s *resourceMonitor) RegisterPackage(ctx context.Context, req *pulumirpc.RegisterPackageRequest) (*pulumirpc.RegisterPackageResponse, error) {
	ref, err := s.packages.register(ctx, req)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.RegisterPackageResponse{Ref: ref}, nil
}

// RegisterStackTransform adds a transform of the program that rewrites
// every registration from now on.
func (s *resourceMonitor) RegisterStackTransform(_ context.Context, cb *pulumirpc.Callback) (*emptypb.Empty, error) {
	if cb.GetTarget() == "" || cb.GetToken() == "" {
		return nil, badRequest("register a stack transform: the callback needs a target and a token")
	}
	s.transforms.addStack(cb)
	return &emptypb.Empty{}, nil
}

// RegisterStackInvokeTransform adds a transform of the program that
// rewrites every function invoke from now on.
func (s *resourceMonitor) RegisterStackInvokeTransform(_ context.Context, cb *pulumirpc.Callback) (*emptypb.Empty, error) {
	if cb.GetTarget() == "" || cb.GetToken() == "" {
		return nil, badRequest("register an invoke transform: the callback needs a target and a token")
	}
	s.transforms.addInvoke(cb)
	return &emptypb.Empty{}, nil
}

// SignalAndWaitForShutdown is the program saying that it has finished
// registering and waits, to serve its callbacks (the hooks of the deletes
// that follow), until the operation has ended: it answers when
// Config.Shutdown returns, at once without one. It may be called once.
func (s *resourceMonitor) SignalAndWaitForShutdown(ctx context.Context, _ *emptypb.Empty) (*emptypb.Empty, error) {
	if !s.waiting.CompareAndSwap(false, true) {
		return nil, status.Error(codes.FailedPrecondition, "the program is already waiting for the operation to end")
	}
	if s.shutdown != nil {
		if err := s.shutdown(ctx); err != nil {
			return nil, toStatus(err)
		}
	}
	return &emptypb.Empty{}, nil
}

// plainInputs reads values that are recorded as they are: output values
// sent by the SDK become their element (secret or unknown as they were).
var plainInputs = wire.Options{KeepUnknowns: true, KeepSecrets: true, KeepResources: true}

// invokeArgs reads function arguments, which take no secrets: a secret
// argument is passed as its plain value.
var invokeArgs = wire.Options{KeepUnknowns: true, KeepResources: true}

// answerOptions are the options of values sent back to a program that
// accepts secrets and resource references as it said.
func answerOptions(secrets, resources bool) wire.Options {
	return wire.Options{KeepUnknowns: true, KeepSecrets: secrets, KeepResources: resources}
}

func keys(ss []string) []resource.PropertyKey {
	if len(ss) == 0 {
		return nil
	}
	out := make([]resource.PropertyKey, len(ss))
	for i, s := range ss {
		out[i] = resource.PropertyKey(s)
	}
	return out
}

func badRequest(format string, args ...any) error {
	return status.Error(codes.InvalidArgument, fmt.Sprintf(format, args...))
}

// statusOf is the code of an error of the program's callbacks: a
// cancelled or timed-out context keeps its code; anything else is Unknown.
func statusOf(err error) codes.Code {
	if st, ok := status.FromError(err); ok && (st.Code() == codes.Canceled || st.Code() == codes.DeadlineExceeded) {
		return st.Code()
	}
	switch {
	case errors.Is(err, context.Canceled):
		return codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return codes.DeadlineExceeded
	}
	return codes.Unknown
}

// registrationStatus is the answer to a registration that failed. A
// failure the deployment has reported itself (its step failed, or the
// deployment is stopping) is answered Unavailable, as Pulumi's engine
// answers once a failed step has stopped its deployment: the SDKs then stop
// making requests and leave the reporting to the engine (the Node.js SDK
// would otherwise wait forever for outputs of the failed resource). Other
// failures are answered as toStatus does, for the program to report.
func registrationStatus(err error) error {
	if monitor.Reported(err) {
		return status.Error(codes.Unavailable, err.Error())
	}
	return toStatus(err)
}

// toStatus turns an error of the Monitor into a gRPC status: a cancelled
// or timed-out context keeps its code; anything else is Unknown with the
// error's message, which the SDKs show to the user.
func toStatus(err error) error {
	if st, ok := status.FromError(err); ok {
		return st.Err()
	}
	switch {
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, err.Error())
	}
	return status.Error(codes.Unknown, err.Error())
}
