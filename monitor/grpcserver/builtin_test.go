package grpcserver_test

import (
	"fmt"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/monitor/grpcserver"
	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/resource"
)

// overWire runs fn against the deployment's monitor served over gRPC, as
// an SDK program would reach it.
func overWire(fn func(c *engine.Context, mon pulumirpc.ResourceMonitorClient) error) engine.Program {
	return func(c *engine.Context) error {
		srv, err := grpcserver.Start(c.Context(), grpcserver.Config{Monitor: c.Monitor()})
		if err != nil {
			return err
		}
		defer srv.Stop()
		conn, err := grpc.NewClient(srv.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return err
		}
		defer conn.Close()
		return fn(c, pulumirpc.NewResourceMonitorClient(conn))
	}
}

// TestWireBuiltinPackage: the requests an SDK makes of the built-in
// "pulumi" package — getResource for a resource registered earlier, and a
// read of a stack reference — are served, and the other stack's secrets
// come back as secrets.
func TestWireBuiltinPackage(t *testing.T) {
	s := &store{live: map[resource.ID]bool{}}
	other := enginetest.New(t)
	other.Stack = "other"
	if _, err := other.Up(func(c *engine.Context) error {
		c.Export("plain", "p")
		c.Export("token", resource.NewSecret(resource.NewString("s3cr3t")))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	env := enginetest.New(t)
	env.Store = other.Store
	env.Provider("test", "", s.provider())

	var got, ref resource.PropertyMap
	_, err := env.Up(overWire(func(c *engine.Context, mon pulumirpc.ResourceMonitorClient) error {
		ctx := c.Context()
		root, err := c.Root().URN()
		if err != nil {
			return err
		}
		obj, err := wire.MarshalProperties(resource.PropertyMap{"k": resource.NewString("v")}, wire.Options{})
		if err != nil {
			return err
		}
		reg, err := mon.RegisterResource(ctx, &pulumirpc.RegisterResourceRequest{
			Type: "test:index:Thing", Name: "a", Parent: string(root), Custom: true, Object: obj,
		})
		if err != nil {
			return err
		}
		args, err := wire.MarshalProperties(resource.PropertyMap{"urn": resource.NewString(reg.GetUrn())}, wire.Options{})
		if err != nil {
			return err
		}
		inv, err := mon.Invoke(ctx, &pulumirpc.ResourceInvokeRequest{Tok: "pulumi:pulumi:getResource", Args: args})
		if err != nil {
			return fmt.Errorf("getResource: %w", err)
		}
		if got, err = wire.UnmarshalProperties(inv.GetReturn(), wire.KeepAll()); err != nil {
			return err
		}
		props, err := wire.MarshalProperties(resource.PropertyMap{"name": resource.NewString("other")}, wire.Options{})
		if err != nil {
			return err
		}
		read, err := mon.ReadResource(ctx, &pulumirpc.ReadResourceRequest{
			Type: "pulumi:pulumi:StackReference", Name: "ref", Id: "other", Parent: string(root), Properties: props, AcceptSecrets: true,
		})
		if err != nil {
			return fmt.Errorf("reading the stack reference: %w", err)
		}
		ref, err = wire.UnmarshalProperties(read.GetProperties(), wire.KeepAll())
		return err
	}))
	if err != nil {
		t.Fatal(err)
	}
	a := env.Resource(env.URN("test:index:Thing", "a"))
	want := resource.PropertyMap{
		"urn": resource.NewString(string(a.URN)), "id": resource.NewString(string(a.ID)),
		"provider": resource.NewString(a.Provider), "state": resource.NewObject(a.Outputs),
	}
	if !got.DeepEquals(want) {
		t.Errorf("getResource = %v, want %v", got, want)
	}
	outs := ref["outputs"].ObjectValue()
	if !outs["token"].IsSecret() || outs["token"].SecretElement().StringValue() != "s3cr3t" || outs["plain"].StringValue() != "p" {
		t.Errorf("stack reference outputs = %v, want the other stack's, its secret still secret", outs)
	}
	if names := ref["secretOutputNames"]; !names.DeepEquals(resource.NewArray(resource.NewString("token"))) {
		t.Errorf("secretOutputNames = %v", names)
	}
}
