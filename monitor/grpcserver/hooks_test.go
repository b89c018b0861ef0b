package grpcserver_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/monitor/grpcserver"
	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/resource"
)

// contextHooks registers a program's hooks with its engine Context.
type contextHooks struct{ c *engine.Context }

func (h contextHooks) RegisterHook(name string, onPreview bool, run func(context.Context, resource.HookArgs) error) error {
	return h.c.RegisterHook(&engine.Hook{Name: name, OnPreview: onPreview, Run: run})
}

// hookedProgram serves the monitor with hooks over gRPC and runs fn
// against it; the server stays up until the operation's deletes are done
// (Context.Defer), as a runner keeps it up for a program that waits.
func hookedProgram(fn func(c *engine.Context, mon pulumirpc.ResourceMonitorClient) error) engine.Program {
	return func(c *engine.Context) error {
		srv, err := grpcserver.Start(c.Context(), grpcserver.Config{Monitor: c.Monitor(), Hooks: contextHooks{c}})
		if err != nil {
			return err
		}
		c.Defer(srv.Stop)
		conn, err := grpc.NewClient(srv.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return err
		}
		defer conn.Close()
		mon := pulumirpc.NewResourceMonitorClient(conn)
		has, err := mon.SupportsFeature(c.Context(), &pulumirpc.SupportsFeatureRequest{Id: "resourceHooks"})
		if err != nil || !has.GetHasSupport() {
			return errors.New("the server does not support resource hooks")
		}
		return fn(c, mon)
	}
}

// TestWireResourceHooks: hooks an SDK program registers run around the
// steps of the resources bound to them, by calling the program back with
// what the step knows; the hooks of a delete after the program run too.
func TestWireResourceHooks(t *testing.T) {
	var pc *programCallbacks
	var got []*pulumirpc.ResourceHookRequest
	pc = serveCallbacks(t, map[string]func([]byte) (proto.Message, error){
		"audit": func(b []byte) (proto.Message, error) {
			var req pulumirpc.ResourceHookRequest
			if err := proto.Unmarshal(b, &req); err != nil {
				return nil, err
			}
			pc.log("audit " + req.GetName())
			pc.mu.Lock()
			got = append(got, &req)
			pc.mu.Unlock()
			return &pulumirpc.ResourceHookResponse{}, nil
		},
		"veto": func([]byte) (proto.Message, error) {
			return &pulumirpc.ResourceHookResponse{Error: "vetoed"}, nil
		},
	})
	s := &store{live: map[resource.ID]bool{}}
	env := enginetest.New(t)
	env.Provider("test", "", s.provider())
	register := func(declare bool) engine.Program {
		return hookedProgram(func(c *engine.Context, mon pulumirpc.ResourceMonitorClient) error {
			ctx := c.Context()
			for _, h := range []string{"audit", "veto"} {
				if _, err := mon.RegisterResourceHook(ctx, &pulumirpc.RegisterResourceHookRequest{Name: h, Callback: pc.callback(h)}); err != nil {
					return err
				}
			}
			if !declare {
				return nil
			}
			root, err := c.Root().URN()
			if err != nil {
				return err
			}
			obj, err := wire.MarshalProperties(resource.PropertyMap{"k": resource.NewSecret(resource.NewString("v"))}, wire.Options{KeepSecrets: true})
			if err != nil {
				return err
			}
			if _, err := mon.RegisterResource(ctx, &pulumirpc.RegisterResourceRequest{
				Type: "test:index:Thing", Name: "a", Parent: string(root), Custom: true, Object: obj,
				Hooks: &pulumirpc.RegisterResourceRequest_ResourceHooksBinding{
					BeforeCreate: []string{"audit"}, AfterCreate: []string{"audit"}, AfterDelete: []string{"audit"},
				},
			}); err != nil {
				return err
			}
			_, err = mon.RegisterResource(ctx, &pulumirpc.RegisterResourceRequest{
				Type: "test:index:Thing", Name: "vetoed", Parent: string(root), Custom: true,
				Hooks: &pulumirpc.RegisterResourceRequest_ResourceHooksBinding{BeforeCreate: []string{"veto"}},
			})
			if err == nil {
				return errors.New("a resource whose before-create hook failed was registered")
			}
			return nil
		})
	}
	_, err := env.Up(register(true))
	if err == nil {
		t.Fatal("the vetoed create did not fail the update")
	}
	if s.log()[0] != "create a" || len(s.log()) != 1 {
		t.Errorf("writes = %v, want only a's create", s.log())
	}
	if _, err := env.Up(register(false)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"audit a", "audit a", "audit a"}, pc.calls); diff != "" {
		t.Errorf("hook calls (-want +got):\n%s", diff)
	}
	if len(got) != 3 {
		t.Fatalf("%d hook calls", len(got))
	}
	before, after, deleted := got[0], got[1], got[2]
	urn := string(env.URN("test:index:Thing", "a"))
	for _, req := range got {
		if req.GetUrn() != urn || req.GetType() != "test:index:Thing" {
			t.Errorf("a hook was told urn %q type %q", req.GetUrn(), req.GetType())
		}
	}
	in, err := wire.UnmarshalProperties(before.GetNewInputs(), wire.KeepAll())
	if err != nil || !in["k"].IsSecret() || before.GetId() != "" || before.GetNewOutputs() != nil {
		t.Errorf("before create was told %v (inputs %v, %v)", before, in, err)
	}
	if after.GetId() == "" || after.GetNewOutputs() == nil {
		t.Errorf("after create was told %v", after)
	}
	if deleted.GetOldInputs() == nil || deleted.GetNewInputs() != nil || deleted.GetId() != after.GetId() {
		t.Errorf("after delete was told %v", deleted)
	}
}
