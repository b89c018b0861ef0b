package grpcserver_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/monitor/grpcserver"
	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// fakeMonitor records what reaches it and answers from func fields.
type fakeMonitor struct {
	mu      sync.Mutex
	goals   []resource.Goal
	reads   []resource.ID
	outputs map[resource.URN]resource.PropertyMap
	invokes []monitor.InvokeRequest
	calls   []monitor.CallRequest

	registerF func(ctx context.Context, goal resource.Goal) (providers.RegisterResult, error)
	invokeF   func(req monitor.InvokeRequest) (providers.InvokeResponse, error)
	callF     func(req monitor.CallRequest) (providers.CallResponse, error)
}

func (f *fakeMonitor) RegisterResource(ctx context.Context, goal resource.Goal) (providers.RegisterResult, error) {
	f.mu.Lock()
	f.goals = append(f.goals, goal)
	f.mu.Unlock()
	if f.registerF != nil {
		return f.registerF(ctx, goal)
	}
	return providers.RegisterResult{URN: resource.URN("urn:pulumi:dev::proj::" + goal.Type + "::" + goal.Name), ID: "id-1", Outputs: goal.Inputs}, nil
}

func (f *fakeMonitor) RegisterResourceOutputs(_ context.Context, urn resource.URN, outputs resource.PropertyMap) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.outputs == nil {
		f.outputs = map[resource.URN]resource.PropertyMap{}
	}
	f.outputs[urn] = outputs
	return nil
}

func (f *fakeMonitor) ReadResource(_ context.Context, goal resource.Goal, id resource.ID) (providers.RegisterResult, error) {
	f.mu.Lock()
	f.goals = append(f.goals, goal)
	f.reads = append(f.reads, id)
	f.mu.Unlock()
	return providers.RegisterResult{URN: "urn:pulumi:dev::proj::" + resource.URN(goal.Type) + "::" + resource.URN(goal.Name), ID: id,
		Outputs: resource.PropertyMap{"read": resource.NewBool(true)}}, nil
}

func (f *fakeMonitor) Invoke(_ context.Context, req monitor.InvokeRequest) (providers.InvokeResponse, error) {
	f.mu.Lock()
	f.invokes = append(f.invokes, req)
	f.mu.Unlock()
	if f.invokeF != nil {
		return f.invokeF(req)
	}
	return providers.InvokeResponse{Return: req.Args}, nil
}

func (f *fakeMonitor) Call(_ context.Context, req monitor.CallRequest) (providers.CallResponse, error) {
	f.mu.Lock()
	f.calls = append(f.calls, req)
	f.mu.Unlock()
	if f.callF != nil {
		return f.callF(req)
	}
	return providers.CallResponse{Return: req.Args}, nil
}

func (f *fakeMonitor) lastGoal() resource.Goal {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.goals[len(f.goals)-1]
}

// fakePackages parameterizes by echoing the value form.
type fakePackages struct {
	mu    sync.Mutex
	calls []string
}

func (p *fakePackages) Parameterize(_ context.Context, pluginPkg, pluginVersion string, req providers.ParameterizeRequest) (providers.ParameterizeResponse, error) {
	p.mu.Lock()
	p.calls = append(p.calls, pluginPkg+"@"+pluginVersion+"->"+req.Value.Name)
	p.mu.Unlock()
	return providers.ParameterizeResponse{Name: req.Value.Name, Version: req.Value.Version}, nil
}

type clients struct {
	mon pulumirpc.ResourceMonitorClient
	eng pulumirpc.EngineClient
}

// start serves mon and returns clients of the server.
func start(t *testing.T, cfg grpcserver.Config) (*grpcserver.Server, clients) {
	t.Helper()
	srv, err := grpcserver.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Error(err)
		}
	})
	conn, err := grpc.NewClient(srv.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return srv, clients{mon: pulumirpc.NewResourceMonitorClient(conn), eng: pulumirpc.NewEngineClient(conn)}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func props(t *testing.T, m resource.PropertyMap) *structpb.Struct {
	t.Helper()
	s, err := wire.MarshalProperties(m, wire.KeepAll())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSupportsFeature(t *testing.T) {
	for _, tc := range []struct {
		name     string
		packages bool
		want     map[string]bool
	}{
		{"without packages", false, map[string]bool{
			"secrets": true, "resourceReferences": true, "outputValues": true, "aliasSpecs": true, "deletedWith": true,
			"transforms": true, "invokeTransforms": true, "resourceHooks": false, "errorHooks": false, "parameterization": false, "nonsense": false,
		}},
		{"with packages", true, map[string]bool{"parameterization": true, "transforms": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := grpcserver.Config{Monitor: &fakeMonitor{}}
			if tc.packages {
				cfg.Packages = &fakePackages{}
			}
			_, c := start(t, cfg)
			got := map[string]bool{}
			for id := range tc.want {
				resp, err := c.mon.SupportsFeature(ctxT(t), &pulumirpc.SupportsFeatureRequest{Id: id})
				if err != nil {
					t.Fatal(err)
				}
				got[id] = resp.GetHasSupport()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("features (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRegisterResourceOptions(t *testing.T) {
	fm := &fakeMonitor{}
	_, c := start(t, grpcserver.Config{Monitor: fm})
	protect, retain := true, true
	parent := resource.URN("urn:pulumi:dev::proj::pkg:index:Comp::parent")
	dep := resource.URN("urn:pulumi:dev::proj::pkg:index:Thing::dep")
	req := &pulumirpc.RegisterResourceRequest{
		Type: "pkg:index:Thing", Name: "thing", Parent: string(parent), Custom: true,
		Object: props(t, resource.PropertyMap{
			"plain":  resource.NewString("v"),
			"secret": resource.NewSecret(resource.NewString("s")),
			"later":  resource.NewUnknown(),
			"out":    resource.NewOutput(resource.Output{Element: resource.NewString("o"), Known: true, Secret: true, Dependencies: []resource.URN{dep}}),
		}),
		Protect: &protect, Dependencies: []string{string(dep)},
		PropertyDependencies: map[string]*pulumirpc.RegisterResourceRequest_PropertyDependencies{"plain": {Urns: []string{string(dep)}}},
		DeleteBeforeReplace:  true, Version: "1.2.3", IgnoreChanges: []string{"plain"}, ReplaceOnChanges: []string{"secret"},
		AdditionalSecretOutputs: []string{"plain"}, ImportId: "imp-1", RetainOnDelete: &retain, DeletedWith: string(dep),
		CustomTimeouts: &pulumirpc.RegisterResourceRequest_CustomTimeouts{Create: "5m", Delete: "1h30m"},
		AliasURNs:      []string{"urn:pulumi:dev::proj::pkg:index:Thing::old"},
		Aliases:        []*pulumirpc.Alias{{Alias: &pulumirpc.Alias_Spec_{Spec: &pulumirpc.Alias_Spec{Name: "older", Parent: &pulumirpc.Alias_Spec_NoParent{NoParent: true}}}}},
		Providers:      map[string]string{"pkg": "urn:pulumi:dev::proj::pulumi:providers:pkg::p::id-9"},
		AcceptSecrets:  true, AcceptResources: true,
	}
	resp, err := c.mon.RegisterResource(ctxT(t), req)
	if err != nil {
		t.Fatal(err)
	}
	want := resource.Goal{
		Type: "pkg:index:Thing", Name: "thing", Custom: true, Parent: parent,
		Inputs: resource.PropertyMap{
			"plain": resource.NewString("v"), "secret": resource.NewSecret(resource.NewString("s")),
			"later": resource.NewUnknown(), "out": resource.NewSecret(resource.NewString("o")),
		},
		Provider: "urn:pulumi:dev::proj::pulumi:providers:pkg::p::id-9", Version: "1.2.3", Protect: true,
		Dependencies:         []resource.URN{dep},
		PropertyDependencies: map[resource.PropertyKey][]resource.URN{"plain": {dep}},
		DeleteBeforeReplace:  true, IgnoreChanges: []string{"plain"}, ReplaceOnChanges: []string{"secret"},
		AdditionalSecretOutputs: []resource.PropertyKey{"plain"},
		// The legacy alias URNs come first, as Pulumi's engine reads them.
		Aliases:        []resource.Alias{{URN: "urn:pulumi:dev::proj::pkg:index:Thing::old"}, {Name: "older", NoParent: true}},
		CustomTimeouts: resource.CustomTimeouts{Create: 5 * time.Minute, Delete: 90 * time.Minute},
		RetainOnDelete: true, DeletedWith: dep, ImportID: "imp-1",
	}
	if diff := cmp.Diff(want, fm.lastGoal()); diff != "" {
		t.Errorf("goal (-want +got):\n%s", diff)
	}
	if resp.GetUrn() != "urn:pulumi:dev::proj::pkg:index:Thing::thing" || resp.GetId() != "id-1" {
		t.Errorf("answer: urn %q id %q", resp.GetUrn(), resp.GetId())
	}
	outs, err := wire.UnmarshalProperties(resp.GetObject(), wire.KeepAll())
	if err != nil {
		t.Fatal(err)
	}
	if !outs["secret"].IsSecret() || !outs["later"].IsUnknown() {
		t.Errorf("outputs for a caller that accepts secrets: %v", outs)
	}
}

func TestRegisterResourceAnswersWhatTheCallerAccepts(t *testing.T) {
	ref := resource.NewResourceReference(resource.ResourceReference{URN: "urn:pulumi:dev::proj::pkg:index:Thing::other", ID: "id-7"})
	fm := &fakeMonitor{registerF: func(_ context.Context, g resource.Goal) (providers.RegisterResult, error) {
		return providers.RegisterResult{URN: "urn:pulumi:dev::proj::pkg:index:Thing::x", Outputs: resource.PropertyMap{
			"secret": resource.NewSecret(resource.NewString("s")), "ref": ref,
		}}, nil
	}}
	_, c := start(t, grpcserver.Config{Monitor: fm})
	resp, err := c.mon.RegisterResource(ctxT(t), &pulumirpc.RegisterResourceRequest{Type: "pkg:index:Thing", Name: "x", Custom: true})
	if err != nil {
		t.Fatal(err)
	}
	outs, err := wire.UnmarshalProperties(resp.GetObject(), wire.KeepAll())
	if err != nil {
		t.Fatal(err)
	}
	want := resource.PropertyMap{"secret": resource.NewString("s"), "ref": resource.NewString("id-7")}
	if !outs.DeepEquals(want) {
		t.Errorf("outputs for a caller that accepts neither secrets nor references = %v, want %v", outs, want)
	}
}

func TestRegisterResourceKeepsOutputValuesOfRemoteComponents(t *testing.T) {
	fm := &fakeMonitor{}
	_, c := start(t, grpcserver.Config{Monitor: fm})
	out := resource.NewOutput(resource.Output{Element: resource.NewString("o"), Known: true, Dependencies: []resource.URN{"urn:pulumi:dev::proj::a:b:C::d"}})
	_, err := c.mon.RegisterResource(ctxT(t), &pulumirpc.RegisterResourceRequest{
		Type: "pkg:index:Comp", Name: "c", Remote: true, Object: props(t, resource.PropertyMap{"in": out}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := fm.lastGoal().Inputs["in"]; !got.IsOutput() {
		t.Errorf("a remote component's input = %v, want the output value", got)
	}
}

// TestReportedFailuresAnswerUnavailable: a registration whose failure the
// deployment has reported itself (its step failed) is answered Unavailable,
// as Pulumi's engine answers once a failure has stopped the deployment, so
// that the SDKs stop rather than wait (the Node.js SDK waited forever for
// the failed resource's outputs when told of the failure as an error).
func TestReportedFailuresAnswerUnavailable(t *testing.T) {
	fm := &fakeMonitor{registerF: func(context.Context, resource.Goal) (providers.RegisterResult, error) {
		return providers.RegisterResult{}, fmt.Errorf("registering: %w", &monitor.ReportedError{Err: errors.New("create of x failed")})
	}}
	_, c := start(t, grpcserver.Config{Monitor: fm})
	_, err := c.mon.RegisterResource(ctxT(t), &pulumirpc.RegisterResourceRequest{Type: "pkg:index:Thing", Name: "x", Custom: true})
	if st := status.Convert(err); st.Code() != codes.Unavailable || st.Message() != "registering: create of x failed" {
		t.Errorf("error = %v, want Unavailable with the failure's message", err)
	}
}

// TestStepOutcomesWithContinueOnError: in an operation that goes on after
// errors, a registration whose step failed or was skipped is answered as
// the Pulumi engine answers it — its URN, no outputs, the result FAIL or
// SKIP — so that the program goes on; any other failure, and any failure
// without ContinueOnError, keeps its error.
func TestStepOutcomesWithContinueOnError(t *testing.T) {
	const urn = resource.URN("urn:pulumi:dev::p::pkg:index:Thing::x")
	failed := &monitor.ReportedError{Err: errors.New("create failed"), URN: urn}
	skipped := &monitor.ReportedError{Err: errors.New("skipped: needed y did not succeed"), URN: urn, Skipped: true}
	tests := []struct {
		name            string
		continueOnError bool
		err             error
		want            pulumirpc.Result // when answered
		code            codes.Code       // when not
	}{
		{"failed step, continuing", true, failed, pulumirpc.Result_FAIL, codes.OK},
		{"skipped step, continuing", true, skipped, pulumirpc.Result_SKIP, codes.OK},
		{"failed step wrapped, continuing", true, fmt.Errorf("registering: %w", failed), pulumirpc.Result_FAIL, codes.OK},
		{"failed step, stopping", false, failed, 0, codes.Unavailable},
		{"skipped step, stopping", false, skipped, 0, codes.Unavailable},
		{"reported, no step outcome, continuing", true, &monitor.ReportedError{Err: errors.New("the deployment has finished")}, 0, codes.Unavailable},
		{"refused registration, continuing", true, errors.New("the provider said no"), 0, codes.Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm := &fakeMonitor{registerF: func(context.Context, resource.Goal) (providers.RegisterResult, error) {
				return providers.RegisterResult{}, tt.err
			}}
			_, c := start(t, grpcserver.Config{Monitor: fm, ContinueOnError: tt.continueOnError})
			resp, err := c.mon.RegisterResource(ctxT(t), &pulumirpc.RegisterResourceRequest{Type: "pkg:index:Thing", Name: "x", Custom: true})
			if st := status.Convert(err); st.Code() != tt.code {
				t.Fatalf("error = %v, want code %v", err, tt.code)
			}
			if tt.code != codes.OK {
				return
			}
			if resp.GetUrn() != string(urn) || resp.GetResult() != tt.want || len(resp.GetObject().GetFields()) != 0 || resp.GetId() != "" {
				t.Errorf("answer = %v, want URN %s, result %v, no outputs", resp, urn, tt.want)
			}
		})
	}
}

func TestRegisterResourceErrors(t *testing.T) {
	fm := &fakeMonitor{registerF: func(context.Context, resource.Goal) (providers.RegisterResult, error) {
		return providers.RegisterResult{}, errors.New("the provider said no")
	}}
	_, c := start(t, grpcserver.Config{Monitor: fm})
	_, err := c.mon.RegisterResource(ctxT(t), &pulumirpc.RegisterResourceRequest{Type: "pkg:index:Thing", Name: "x", Custom: true})
	if st := status.Convert(err); st.Code() != codes.Unknown || st.Message() != "the provider said no" {
		t.Errorf("error = %v, want Unknown with the monitor's message", err)
	}
	_, err = c.mon.RegisterResource(ctxT(t), &pulumirpc.RegisterResourceRequest{
		Type: "pkg:index:Thing", Name: "x", CustomTimeouts: &pulumirpc.RegisterResourceRequest_CustomTimeouts{Create: "soon"},
	})
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("a bad timeout: %v, want InvalidArgument", err)
	}
	_, err = c.mon.RegisterResource(ctxT(t), &pulumirpc.RegisterResourceRequest{Type: "pkg:index:Thing", Name: "x", PackageRef: "nope"})
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("an unknown package reference: %v, want InvalidArgument", err)
	}
}

func TestReadInvokeCallAndOutputs(t *testing.T) {
	fm := &fakeMonitor{callF: func(req monitor.CallRequest) (providers.CallResponse, error) {
		return providers.CallResponse{Return: resource.PropertyMap{"r": resource.NewNumber(1)},
			ReturnDependencies: map[resource.PropertyKey][]resource.URN{"r": {"urn:pulumi:dev::proj::a:b:C::d"}}}, nil
	}}
	_, c := start(t, grpcserver.Config{Monitor: fm})
	ctx := ctxT(t)

	read, err := c.mon.ReadResource(ctx, &pulumirpc.ReadResourceRequest{
		Id: "ext-1", Type: "pkg:index:Thing", Name: "ext", Parent: "urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev",
		Properties: props(t, resource.PropertyMap{"k": resource.NewString("v")}), Provider: "urn:pulumi:dev::proj::pulumi:providers:pkg::p::id",
	})
	if err != nil {
		t.Fatal(err)
	}
	if g := fm.lastGoal(); g.Type != "pkg:index:Thing" || !g.Custom || g.Provider == "" || g.Parent == "" || g.Inputs["k"].StringValue() != "v" {
		t.Errorf("read goal = %+v", g)
	}
	if fm.reads[0] != "ext-1" || read.GetUrn() == "" || read.GetProperties().GetFields()["read"].GetBoolValue() != true {
		t.Errorf("read: %v %v", fm.reads, read)
	}

	inv, err := c.mon.Invoke(ctx, &pulumirpc.ResourceInvokeRequest{
		Tok: "pkg:index:fn", Version: "2.0.0",
		Args: props(t, resource.PropertyMap{"a": resource.NewSecret(resource.NewString("x"))}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := fm.invokes[0]; got.Token != "pkg:index:fn" || got.Version != "2.0.0" || !got.Args["a"].IsString() {
		t.Errorf("invoke request = %+v (a secret argument is passed plain)", got)
	}
	if inv.GetReturn().GetFields()["a"].GetStringValue() != "x" {
		t.Errorf("invoke answer = %v", inv)
	}

	fm.invokeF = func(monitor.InvokeRequest) (providers.InvokeResponse, error) {
		return providers.InvokeResponse{Failures: []providers.CheckFailure{{Property: "a", Reason: "bad"}}}, nil
	}
	inv, err = c.mon.Invoke(ctx, &pulumirpc.ResourceInvokeRequest{Tok: "pkg:index:fn"})
	if err != nil || len(inv.GetFailures()) != 1 || inv.GetFailures()[0].GetReason() != "bad" {
		t.Errorf("invoke failures: %v %v", inv, err)
	}

	call, err := c.mon.Call(ctx, &pulumirpc.ResourceCallRequest{
		Tok: "pkg:index:Comp/method", Args: props(t, resource.PropertyMap{"x": resource.NewNumber(2)}),
		ArgDependencies: map[string]*pulumirpc.ResourceCallRequest_ArgumentDependencies{"x": {Urns: []string{"urn:pulumi:dev::proj::a:b:C::e"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := fm.calls[0]; got.Token != "pkg:index:Comp/method" || len(got.ArgDependencies["x"]) != 1 {
		t.Errorf("call request = %+v", got)
	}
	if call.GetReturnDependencies()["r"].GetUrns()[0] != "urn:pulumi:dev::proj::a:b:C::d" {
		t.Errorf("call answer = %v", call)
	}

	urn := "urn:pulumi:dev::proj::pkg:index:Comp::c"
	if _, err := c.mon.RegisterResourceOutputs(ctx, &pulumirpc.RegisterResourceOutputsRequest{
		Urn: urn, Outputs: props(t, resource.PropertyMap{"o": resource.NewSecret(resource.NewNumber(3))}),
	}); err != nil {
		t.Fatal(err)
	}
	if got := fm.outputs[resource.URN(urn)]["o"]; !got.IsSecret() {
		t.Errorf("component outputs: o = %v", got)
	}
	if _, err := c.mon.SignalAndWaitForShutdown(ctx, &emptypb.Empty{}); err != nil {
		t.Errorf("SignalAndWaitForShutdown: %v", err)
	}
}

func TestRegisterPackage(t *testing.T) {
	t.Run("unimplemented without packages", func(t *testing.T) {
		_, c := start(t, grpcserver.Config{Monitor: &fakeMonitor{}})
		_, err := c.mon.RegisterPackage(ctxT(t), &pulumirpc.RegisterPackageRequest{Name: "pkg", Version: "1.0.0"})
		if status.Code(err) != codes.Unimplemented {
			t.Errorf("error = %v, want Unimplemented", err)
		}
	})
	t.Run("parameterized", func(t *testing.T) {
		fm, fp := &fakeMonitor{}, &fakePackages{}
		_, c := start(t, grpcserver.Config{Monitor: fm, Packages: fp})
		ctx := ctxT(t)
		req := &pulumirpc.RegisterPackageRequest{Name: "bridge", Version: "1.0.0",
			Parameterization: &pulumirpc.Parameterization{Name: "mycloud", Version: "3.1.0", Value: []byte("blob")}}
		first, err := c.mon.RegisterPackage(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		again, err := c.mon.RegisterPackage(ctx, req)
		if err != nil || again.GetRef() != first.GetRef() {
			t.Errorf("registering again: %v %v, want the same reference %q", again, err, first.GetRef())
		}
		if !cmp.Equal(fp.calls, []string{"bridge@1.0.0->mycloud"}) {
			t.Errorf("parameterize calls = %v, want one", fp.calls)
		}
		plain, err := c.mon.RegisterPackage(ctx, &pulumirpc.RegisterPackageRequest{Name: "bridge", Version: "1.0.0"})
		if err != nil || plain.GetRef() == first.GetRef() {
			t.Errorf("a plain package: %v %v", plain, err)
		}
		if _, err := c.mon.RegisterResource(ctx, &pulumirpc.RegisterResourceRequest{
			Type: "mycloud:index:Thing", Name: "t", Custom: true, PackageRef: first.GetRef(),
		}); err != nil {
			t.Fatal(err)
		}
		if v := fm.lastGoal().Version; v != "3.1.0" {
			t.Errorf("a resource of the parameterized package has version %q, want 3.1.0", v)
		}
		if _, err := c.mon.Invoke(ctx, &pulumirpc.ResourceInvokeRequest{Tok: "mycloud:index:fn", PackageRef: first.GetRef()}); err != nil {
			t.Fatal(err)
		}
		if v := fm.invokes[0].Version; v != "3.1.0" {
			t.Errorf("an invoke of the parameterized package has version %q", v)
		}
	})
}

func TestEngineService(t *testing.T) {
	var (
		mu   sync.Mutex
		logs []grpcserver.LogMessage
	)
	_, c := start(t, grpcserver.Config{Monitor: &fakeMonitor{}, Log: func(m grpcserver.LogMessage) {
		mu.Lock()
		logs = append(logs, m)
		mu.Unlock()
	}})
	ctx := ctxT(t)
	for _, req := range []*pulumirpc.LogRequest{
		{Severity: pulumirpc.LogSeverity_ERROR, Message: "boom", Urn: "urn:pulumi:dev::proj::a:b:C::d"},
		{Severity: pulumirpc.LogSeverity_INFO, Message: "status", Ephemeral: true},
		{Severity: pulumirpc.LogSeverity(42), Message: "odd"},
	} {
		if _, err := c.eng.Log(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	want := []grpcserver.LogMessage{
		{Severity: grpcserver.SeverityError, URN: "urn:pulumi:dev::proj::a:b:C::d", Message: "boom"},
		{Severity: grpcserver.SeverityInfo, Message: "status", Ephemeral: true},
		{Severity: grpcserver.SeverityInfo, Message: "odd"},
	}
	if diff := cmp.Diff(want, logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
	root, err := c.eng.GetRootResource(ctx, &pulumirpc.GetRootResourceRequest{})
	if err != nil || root.GetUrn() != "" {
		t.Errorf("root before it is set: %v %v", root, err)
	}
	if _, err := c.eng.SetRootResource(ctx, &pulumirpc.SetRootResourceRequest{Urn: "urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev"}); err != nil {
		t.Fatal(err)
	}
	if root, _ := c.eng.GetRootResource(ctx, &pulumirpc.GetRootResourceRequest{}); root.GetUrn() != "urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev" {
		t.Errorf("root = %q", root.GetUrn())
	}
}

func TestStopCutsOffRequestsInFlight(t *testing.T) {
	entered := make(chan struct{})
	fm := &fakeMonitor{registerF: func(ctx context.Context, _ resource.Goal) (providers.RegisterResult, error) {
		close(entered)
		<-ctx.Done()
		return providers.RegisterResult{}, context.Cause(ctx)
	}}
	srv, err := grpcserver.Start(context.Background(), grpcserver.Config{Monitor: fm, StopTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := grpc.NewClient(srv.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	done := make(chan error, 1)
	go func() {
		_, err := pulumirpc.NewResourceMonitorClient(conn).RegisterResource(ctxT(t), &pulumirpc.RegisterResourceRequest{Type: "a:b:C", Name: "x"})
		done <- err
	}()
	<-entered
	start := time.Now()
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Stop took %v", d)
	}
	if err := <-done; err == nil {
		t.Error("a request cut off by Stop succeeded")
	}
	if err := srv.Stop(); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
}

func TestRequestsEndWithTheServersContext(t *testing.T) {
	entered := make(chan struct{})
	fm := &fakeMonitor{registerF: func(ctx context.Context, _ resource.Goal) (providers.RegisterResult, error) {
		close(entered)
		<-ctx.Done()
		return providers.RegisterResult{}, context.Cause(ctx)
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := grpcserver.Start(ctx, grpcserver.Config{Monitor: fm})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	conn, err := grpc.NewClient(srv.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	done := make(chan error, 1)
	go func() {
		_, err := pulumirpc.NewResourceMonitorClient(conn).RegisterResource(ctxT(t), &pulumirpc.RegisterResourceRequest{Type: "a:b:C", Name: "x"})
		done <- err
	}()
	<-entered
	cancel()
	if err := <-done; status.Code(err) != codes.Canceled {
		t.Errorf("error = %v, want Canceled", err)
	}
}

func TestStartNeedsAMonitor(t *testing.T) {
	if _, err := grpcserver.Start(context.Background(), grpcserver.Config{}); err == nil {
		t.Error("Start without a Monitor succeeded")
	}
}

// A remote component's registration is answered with the dependencies of
// its outputs, which the SDKs give the outputs they resolve.
func TestRegisterResourceAnswersComponentOutputDependencies(t *testing.T) {
	childA := resource.URN("urn:pulumi:dev::proj::pkg:index:Comp$pkg:index:Thing::child-a")
	fm := &fakeMonitor{registerF: func(_ context.Context, g resource.Goal) (providers.RegisterResult, error) {
		return providers.RegisterResult{
			URN: "urn:pulumi:dev::proj::pkg:index:Comp::a", Outputs: resource.PropertyMap{"childId": resource.NewString("id-1")},
			OutputDependencies: map[resource.PropertyKey][]resource.URN{"childId": {childA}},
		}, nil
	}}
	_, c := start(t, grpcserver.Config{Monitor: fm})
	resp, err := c.mon.RegisterResource(ctxT(t), &pulumirpc.RegisterResourceRequest{Type: "pkg:index:Comp", Name: "a", Remote: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for k, d := range resp.GetPropertyDependencies() {
		got[k] = d.GetUrns()
	}
	if diff := cmp.Diff(map[string][]string{"childId": {string(childA)}}, got); diff != "" {
		t.Errorf("the answer's property dependencies (-want +got):\n%s", diff)
	}
}

// A component records no provider, as under Pulumi's engine, even when its
// registration names one (Pulumi's transforms/simple: a transform sets a
// provider on a remote component, whose provider then registers it); a
// custom resource and a remote component keep theirs.
func TestRegisterResourceComponentHasNoProvider(t *testing.T) {
	const p = "urn:pulumi:dev::proj::pulumi:providers:pkg::p2::id-2"
	tests := []struct {
		name           string
		custom, remote bool
		want           string
	}{
		{"component", false, false, ""},
		{"remote component", false, true, p},
		{"custom resource", true, false, p},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm := &fakeMonitor{}
			_, c := start(t, grpcserver.Config{Monitor: fm})
			_, err := c.mon.RegisterResource(ctxT(t), &pulumirpc.RegisterResourceRequest{
				Type: "pkg:index:Comp", Name: "res7", Custom: tt.custom, Remote: tt.remote, Provider: p,
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := fm.lastGoal().Provider; got != tt.want {
				t.Errorf("the goal's provider is %q; want %q", got, tt.want)
			}
		})
	}
}
