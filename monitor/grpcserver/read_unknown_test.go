package grpcserver_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/monitor/grpcserver"
	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// Issue 29: in a preview, a program may read a resource whose ID it does
// not know yet (the SDKs send the unknown value): as in Pulumi's engine,
// the read calls no provider, and it is answered with the resource's URN
// and no outputs, so that what depends on the read names it. The provider
// used to be asked to read the ID "unknown", which fails, and what
// depended on the read got an empty URN.
func TestPreviewReadOfAnUnknownID(t *testing.T) {
	var reads atomic.Int32
	p := &providers.Func{
		CheckF: func(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
			return providers.CheckResponse{Inputs: req.News}, nil
		},
		ReadF: func(_ context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
			reads.Add(1)
			return providers.ReadResponse{}, errors.New("no such resource " + string(req.ID))
		},
	}
	env := enginetest.New(t)
	env.Provider("test", "", p)
	var readURN string
	var deps []resource.URN
	_, err := env.Preview(func(ctx *engine.Context) error {
		srv, err := grpcserver.Start(ctx.Context(), grpcserver.Config{Monitor: ctx.Monitor()})
		if err != nil {
			return err
		}
		defer srv.Stop()
		conn, err := grpc.NewClient(srv.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return err
		}
		defer conn.Close()
		mon := pulumirpc.NewResourceMonitorClient(conn)
		root, err := ctx.Root().URN()
		if err != nil {
			return err
		}
		read, err := mon.ReadResource(ctx.Context(), &pulumirpc.ReadResourceRequest{
			Type: "test:index:Thing", Name: "found", Parent: string(root), Id: wire.UnknownStringValue,
			Properties: props(t, resource.PropertyMap{"filter": resource.NewString("x")}),
		})
		if err != nil {
			return err
		}
		readURN = read.GetUrn()
		if got := read.GetProperties().GetFields(); len(got) != 0 {
			t.Errorf("the read of an unknown ID answered the outputs %v, want none", got)
		}
		user, err := mon.RegisterResource(ctx.Context(), &pulumirpc.RegisterResourceRequest{
			Type: "test:index:Thing", Name: "user", Parent: string(root), Custom: true,
			Object: props(t, resource.PropertyMap{}), Dependencies: []string{readURN},
		})
		if err != nil {
			return err
		}
		_ = user
		return nil
	})
	if err != nil {
		t.Fatalf("preview: %v", err)
	}
	if want := string(env.URN("test:index:Thing", "found")); readURN != want {
		t.Errorf("the read was answered with the URN %q, want %q", readURN, want)
	}
	if n := reads.Load(); n != 0 {
		t.Errorf("the provider was asked to read %d times, want none", n)
	}
	for _, e := range env.Events() {
		if s, ok := e.(engine.StepDoneEvent); ok && s.URN.Name() == "user" {
			deps = append(deps, s.URN)
		}
	}
	if len(deps) == 0 {
		t.Errorf("the resource that depends on the read was not previewed")
	}
}
