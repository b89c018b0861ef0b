package server_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// fakeMonitor is a resource monitor that records registrations.
type fakeMonitor struct {
	pulumirpc.UnimplementedResourceMonitorServer
	addr string

	mu      sync.Mutex
	regs    []*pulumirpc.RegisterResourceRequest
	outputs map[string]resource.PropertyMap
}

func startMonitor(t *testing.T) *fakeMonitor {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &fakeMonitor{addr: lis.Addr().String(), outputs: map[string]resource.PropertyMap{}}
	gs := grpc.NewServer()
	pulumirpc.RegisterResourceMonitorServer(gs, m)
	go gs.Serve(lis)
	t.Cleanup(gs.Stop)
	return m
}

func (m *fakeMonitor) RegisterResource(_ context.Context, req *pulumirpc.RegisterResourceRequest) (*pulumirpc.RegisterResourceResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.regs = append(m.regs, req)
	parent := resource.URN(req.GetParent())
	urn := resource.NewURN(parent.Stack(), parent.Project(), parent.QualifiedType(), req.GetType(), req.GetName())
	return &pulumirpc.RegisterResourceResponse{Urn: string(urn), Id: "child-id", Object: req.GetObject(), Stable: true}, nil
}

func (m *fakeMonitor) RegisterResourceOutputs(_ context.Context, req *pulumirpc.RegisterResourceOutputsRequest) (*emptypb.Empty, error) {
	outs, err := wire.UnmarshalProperties(req.GetOutputs(), wire.KeepAll())
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.outputs[req.GetUrn()] = outs
	return &emptypb.Empty{}, nil
}

// engineHost is the Host an engine hands Construct: here, only the address
// of the monitor matters.
type engineHost struct{ addr string }

func (h engineHost) MonitorAddress() string { return h.addr }
func (engineHost) RegisterResource(context.Context, resource.Goal) (providers.RegisterResult, error) {
	panic("not called over gRPC")
}
func (engineHost) RegisterResourceOutputs(context.Context, resource.URN, resource.PropertyMap) error {
	panic("not called over gRPC")
}

// Construct and Call cross the wire both ways: the request reaches the
// provider whole, the provider registers its children with the engine's
// monitor through its Host, and the answer comes back.
func TestConstructAndCall(t *testing.T) {
	mon := startMonitor(t)
	parent := resource.NewURN("dev", "proj", "", "my:index:App", "app")
	compURN := resource.NewURN("dev", "proj", "my:index:App", "mem:index:Component", "comp")
	dep := resource.NewURN("dev", "proj", "", "mem:index:Thing", "dep")
	var seen providers.ConstructRequest
	var seenCall providers.CallRequest
	addr, _ := serve(t, &providers.Func{
		ConfigureF: func(context.Context, providers.ConfigureRequest) (providers.ConfigureResponse, error) {
			return providers.ConfigureResponse{AcceptSecrets: true, AcceptResources: true, AcceptOutputs: true}, nil
		},
		ConstructF: func(ctx context.Context, req providers.ConstructRequest) (providers.ConstructResponse, error) {
			seen = req
			child, err := req.Host.RegisterResource(ctx, resource.Goal{
				Type: "mem:index:Thing", Name: req.Name + "-child", Custom: true, Parent: req.URN,
				Inputs: resource.PropertyMap{"x": resource.NewNumber(1)},
			})
			if err != nil {
				return providers.ConstructResponse{}, err
			}
			outs := resource.PropertyMap{"childId": resource.NewString(string(child.ID))}
			if err := req.Host.RegisterResourceOutputs(ctx, req.URN, outs); err != nil {
				return providers.ConstructResponse{}, err
			}
			return providers.ConstructResponse{URN: req.URN, Outputs: outs, OutputDependencies: map[resource.PropertyKey][]resource.URN{"childId": {child.URN}}}, nil
		},
		CallF: func(ctx context.Context, req providers.CallRequest) (providers.CallResponse, error) {
			seenCall = req
			return providers.CallResponse{Return: resource.PropertyMap{"n": resource.NewNumber(42)},
				ReturnDependencies: map[resource.PropertyKey][]resource.URN{"n": {dep}}}, nil
		},
	})
	p := connect(t, addr)
	if _, err := p.Configure(t.Context(), providers.ConfigureRequest{AcceptSecrets: true, AcceptResources: true}); err != nil {
		t.Fatal(err)
	}
	output := resource.NewOutput(resource.Output{Element: resource.NewString("v"), Known: true, Dependencies: []resource.URN{dep}})
	// The stack's configuration crosses as strings, the secret keys named.
	config := map[string]resource.PropertyValue{
		"proj:name":  resource.NewString("x"),
		"proj:token": resource.NewSecret(resource.NewString("t")),
		"aws:tags":   resource.NewObject(resource.PropertyMap{"a": resource.NewNumber(1)}),
	}
	wantConfig := map[string]resource.PropertyValue{
		"proj:name":  resource.NewString("x"),
		"proj:token": resource.NewSecret(resource.NewString("t")),
		"aws:tags":   resource.NewString(`{"a":1}`),
	}
	req := providers.ConstructRequest{
		URN: compURN, Type: "mem:index:Component", Name: "comp", Parent: parent,
		Inputs:            resource.PropertyMap{"in": output, "s": resource.NewSecret(resource.NewBool(true))},
		InputDependencies: map[resource.PropertyKey][]resource.URN{"in": {dep}},
		Options: resource.Goal{Protect: true, Dependencies: []resource.URN{dep},
			Aliases:        []resource.Alias{{Name: "old"}, {URN: parent}},
			CustomTimeouts: resource.CustomTimeouts{Create: time.Minute}},
		Providers: map[string]string{"mem": "urn:pulumi:dev::proj::pulumi:providers:mem::p::id"},
		Host:      engineHost{mon.addr}, Preview: true,
		Config: config,
	}
	resp, err := p.Construct(t.Context(), req)
	if err != nil {
		t.Fatalf("Construct: %v", err)
	}
	childURN := resource.NewURN("dev", "proj", "my:index:App$mem:index:Component", "mem:index:Thing", "comp-child")
	wantResp := providers.ConstructResponse{URN: compURN, Outputs: resource.PropertyMap{"childId": resource.NewString("child-id")},
		OutputDependencies: map[resource.PropertyKey][]resource.URN{"childId": {childURN}}}
	if diff := cmp.Diff(wantResp, resp); diff != "" {
		t.Errorf("Construct answer (-want +got):\n%s", diff)
	}
	ignore := cmpopts.IgnoreFields(providers.ConstructRequest{}, "Host")
	wantSeen := req
	wantSeen.Options.Type, wantSeen.Options.Name, wantSeen.Options.Remote, wantSeen.Options.Parent = req.Type, req.Name, true, parent
	wantSeen.Options.Inputs, wantSeen.Options.PropertyDependencies = req.Inputs, req.InputDependencies
	wantSeen.Options.Aliases = []resource.Alias{{Name: "old"}, {URN: parent}}
	wantSeen.Config = wantConfig
	if diff := cmp.Diff(wantSeen, seen, ignore, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("the provider's ConstructRequest (-want +got):\n%s", diff)
	}
	mon.mu.Lock()
	defer mon.mu.Unlock()
	if len(mon.regs) != 1 || mon.regs[0].GetParent() != string(compURN) || !mon.regs[0].GetCustom() {
		t.Errorf("monitor registrations = %v, want the child under the component", mon.regs)
	}
	if got := mon.outputs[string(compURN)]; got["childId"].StringValue() != "child-id" {
		t.Errorf("registered outputs = %v", got)
	}

	self := resource.NewResourceReference(resource.ResourceReference{URN: compURN})
	callResp, err := p.Call(t.Context(), providers.CallRequest{
		Token: "mem:index:Component/method", Args: resource.PropertyMap{"__self__": self, "a": output},
		ArgDependencies: map[resource.PropertyKey][]resource.URN{"a": {dep}}, Host: engineHost{mon.addr},
		Config: config,
	})
	if err != nil {
		t.Fatalf("Call: %v", err)
	}
	if callResp.Return["n"].NumberValue() != 42 || !cmp.Equal(callResp.ReturnDependencies["n"], []resource.URN{dep}) {
		t.Errorf("Call answer = %+v", callResp)
	}
	if !seenCall.Args["__self__"].DeepEquals(self) || !seenCall.Args["a"].DeepEquals(output) || !cmp.Equal(seenCall.ArgDependencies["a"], []resource.URN{dep}) {
		t.Errorf("the provider's CallRequest = %+v", seenCall)
	}
	if diff := cmp.Diff(wantConfig, seenCall.Config); diff != "" {
		t.Errorf("the config of the provider's CallRequest (-want +got):\n%s", diff)
	}
}
