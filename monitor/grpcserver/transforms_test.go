package grpcserver_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// programCallbacks is the Callbacks server an SDK program runs: each token
// names a function of the program.
type programCallbacks struct {
	pulumirpc.UnimplementedCallbacksServer
	addr string
	fns  map[string]func(req []byte) (proto.Message, error)

	mu    sync.Mutex
	calls []string
}

// serveCallbacks starts a Callbacks server with fns until the test ends.
func serveCallbacks(t *testing.T, fns map[string]func([]byte) (proto.Message, error)) *programCallbacks {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	pc := &programCallbacks{addr: lis.Addr().String(), fns: fns}
	pulumirpc.RegisterCallbacksServer(gs, pc)
	done := make(chan struct{})
	go func() { defer close(done); _ = gs.Serve(lis) }()
	t.Cleanup(func() { gs.Stop(); <-done })
	return pc
}

func (pc *programCallbacks) Invoke(_ context.Context, req *pulumirpc.CallbackInvokeRequest) (*pulumirpc.CallbackInvokeResponse, error) {
	fn, ok := pc.fns[req.GetToken()]
	if !ok {
		return nil, fmt.Errorf("no callback %q", req.GetToken())
	}
	resp, err := fn(req.GetRequest())
	if err != nil {
		return nil, err
	}
	b, err := proto.Marshal(resp)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.CallbackInvokeResponse{Response: b}, nil
}

func (pc *programCallbacks) callback(token string) *pulumirpc.Callback {
	return &pulumirpc.Callback{Target: pc.addr, Token: token}
}

func (pc *programCallbacks) log(s string) {
	pc.mu.Lock()
	pc.calls = append(pc.calls, s)
	pc.mu.Unlock()
}

// trailTransform appends token to the "trail" input of each resource it
// sees, and logs "token name".
func trailTransform(pc **programCallbacks, token string, opts func(*pulumirpc.TransformResourceOptions)) func([]byte) (proto.Message, error) {
	return func(b []byte) (proto.Message, error) {
		var req pulumirpc.TransformRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			return nil, err
		}
		(*pc).log(token + " " + req.GetName())
		props, err := wire.UnmarshalProperties(req.GetProperties(), wire.KeepAll())
		if err != nil {
			return nil, err
		}
		props = props.Copy()
		var trail []resource.PropertyValue
		if v, ok := props["trail"]; ok {
			trail = v.ArrayValue()
		}
		props["trail"] = resource.NewArray(append(slices.Clip(trail), resource.NewString(token))...)
		out, err := wire.MarshalProperties(props, wire.KeepAll())
		if err != nil {
			return nil, err
		}
		o := req.GetOptions()
		if opts != nil {
			opts(o)
		}
		return &pulumirpc.TransformResponse{Properties: out, Options: o}, nil
	}
}

// TestWireTransforms: the transforms an SDK program registers run in the
// engine as Pulumi's engine runs them — a resource's own, then its
// ancestors', then the stack's — and invoke transforms rewrite invokes;
// the property dependencies of a transformed resource are kept.
func TestWireTransforms(t *testing.T) {
	var pc *programCallbacks
	pc = serveCallbacks(t, map[string]func([]byte) (proto.Message, error){
		"stack": trailTransform(&pc, "stack", func(o *pulumirpc.TransformResourceOptions) {
			o.IgnoreChanges = append(o.IgnoreChanges, "ignored")
		}),
		// A stack transform that adds a dependency (Pulumi's engine
		// ignores a stack transform's dependsOn; see COMPATIBILITY.md).
		"depend": func(b []byte) (proto.Message, error) {
			var req pulumirpc.TransformRequest
			if err := proto.Unmarshal(b, &req); err != nil {
				return nil, err
			}
			o := req.GetOptions()
			if req.GetName() == "solo" {
				o.DependsOn = append(o.DependsOn, "urn:pulumi:dev::test::test:index:Thing::before")
			}
			return &pulumirpc.TransformResponse{Options: o}, nil
		},
		"group": trailTransform(&pc, "group", nil),
		"invoke": func(b []byte) (proto.Message, error) {
			var req pulumirpc.TransformInvokeRequest
			if err := proto.Unmarshal(b, &req); err != nil {
				return nil, err
			}
			pc.log("invoke " + req.GetToken())
			args, err := wire.MarshalProperties(resource.PropertyMap{"x": resource.NewString("transformed")}, wire.Options{})
			return &pulumirpc.TransformInvokeResponse{Args: args, Options: req.GetOptions()}, err
		},
		"fail": func([]byte) (proto.Message, error) { return nil, errors.New("the transform says no") },
	})
	s := &store{live: map[resource.ID]bool{}}
	p := s.provider()
	var invoked resource.PropertyMap
	p.InvokeF = func(_ context.Context, req providers.InvokeRequest) (providers.InvokeResponse, error) {
		invoked = req.Args
		return providers.InvokeResponse{Return: resource.PropertyMap{}}, nil
	}
	env := enginetest.New(t)
	env.Provider("test", "", p)

	var failure error
	_, err := env.Up(overWire(func(c *engine.Context, mon pulumirpc.ResourceMonitorClient) error {
		ctx := c.Context()
		root, err := c.Root().URN()
		if err != nil {
			return err
		}
		register := func(req *pulumirpc.RegisterResourceRequest) (string, error) {
			resp, err := mon.RegisterResource(ctx, req)
			return resp.GetUrn(), err
		}
		before, err := register(&pulumirpc.RegisterResourceRequest{Type: "test:index:Thing", Name: "before", Parent: string(root), Custom: true})
		if err != nil {
			return err
		}
		if _, err := mon.RegisterStackTransform(ctx, pc.callback("stack")); err != nil {
			return err
		}
		if _, err := mon.RegisterStackTransform(ctx, pc.callback("depend")); err != nil {
			return err
		}
		if _, err := mon.RegisterStackInvokeTransform(ctx, pc.callback("invoke")); err != nil {
			return err
		}
		group, err := register(&pulumirpc.RegisterResourceRequest{Type: "my:index:Group", Name: "group", Parent: string(root),
			Transforms: []*pulumirpc.Callback{pc.callback("group")}})
		if err != nil {
			return err
		}
		sub, err := register(&pulumirpc.RegisterResourceRequest{Type: "my:index:Group", Name: "sub", Parent: group})
		if err != nil {
			return err
		}
		in, err := wire.MarshalProperties(resource.PropertyMap{"in": resource.NewString("v")}, wire.Options{})
		if err != nil {
			return err
		}
		if _, err := register(&pulumirpc.RegisterResourceRequest{Type: "test:index:Thing", Name: "leaf", Parent: sub, Custom: true,
			Object: in, Dependencies: []string{before},
			PropertyDependencies: map[string]*pulumirpc.RegisterResourceRequest_PropertyDependencies{"in": {Urns: []string{before}}}}); err != nil {
			return err
		}
		if _, err := register(&pulumirpc.RegisterResourceRequest{Type: "test:index:Thing", Name: "solo", Parent: string(root), Custom: true}); err != nil {
			return err
		}
		_, failure = register(&pulumirpc.RegisterResourceRequest{Type: "test:index:Thing", Name: "refused", Parent: string(root), Custom: true,
			Transforms: []*pulumirpc.Callback{pc.callback("fail")}})
		_, err = mon.Invoke(ctx, &pulumirpc.ResourceInvokeRequest{Tok: "test:index:fn"})
		return err
	}))
	if err != nil {
		t.Fatal(err)
	}
	wantCalls := []string{
		"group group", "stack group",
		"group sub", "stack sub",
		"group leaf", "stack leaf",
		"stack solo",
		"invoke test:index:fn",
	}
	if diff := cmp.Diff(wantCalls, pc.calls); diff != "" {
		t.Errorf("transform calls (-want +got):\n%s", diff)
	}
	trail := func(ts ...string) resource.PropertyValue {
		var vs []resource.PropertyValue
		for _, t := range ts {
			vs = append(vs, resource.NewString(t))
		}
		return resource.NewArray(vs...)
	}
	leaf := env.Resource(resource.URN(fmt.Sprintf("urn:pulumi:dev::test::my:index:Group$my:index:Group$test:index:Thing::leaf")))
	solo := env.Resource(env.URN("test:index:Thing", "solo"))
	if leaf == nil || solo == nil {
		t.Fatalf("leaf %v and solo %v were not recorded", leaf, solo)
	}
	if got := leaf.Inputs["trail"]; !got.DeepEquals(trail("group", "stack")) {
		t.Errorf("leaf's trail = %v", got)
	}
	if got := solo.Inputs["trail"]; !got.DeepEquals(trail("stack")) {
		t.Errorf("solo's trail = %v", got)
	}
	before := env.URN("test:index:Thing", "before")
	if !cmp.Equal(leaf.PropertyDependencies["in"], []resource.URN{before}) || !slices.Contains(leaf.Dependencies, before) {
		t.Errorf("leaf's dependencies = %v %v, want those it was registered with", leaf.Dependencies, leaf.PropertyDependencies)
	}
	if !slices.Contains(solo.Dependencies, before) {
		t.Errorf("solo's dependencies = %v, want the one its stack transform added", solo.Dependencies)
	}
	if !cmp.Equal(leaf.IgnoreChanges, []string{"ignored"}) {
		t.Errorf("leaf's ignoreChanges = %v, want what the stack transform set", leaf.IgnoreChanges)
	}
	if b := env.Resource(before); b == nil || b.Inputs["trail"].IsArray() {
		t.Errorf("a resource registered before the stack transform was transformed: %v", b)
	}
	if failure == nil {
		t.Error("a registration whose transform failed succeeded")
	}
	if !invoked.DeepEquals(resource.PropertyMap{"x": resource.NewString("transformed")}) {
		t.Errorf("the provider was invoked with %v, want the transformed arguments", invoked)
	}
}
