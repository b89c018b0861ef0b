package grpcserver_test

import (
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/monitor/grpcserver"
	"github.com/groundwork-iac/groundwork/resource"
)

// Issue 29: the answer to a component's RegisterResource carries no
// outputs, as from Pulumi's engine: a component's outputs are the
// program's own. It used to carry the outputs the component registered in
// the last run, so a program reading them saw stale values (none on the
// first run), in an update and in a preview alike.
func TestComponentRegistrationCarriesNoOutputs(t *testing.T) {
	env := enginetest.New(t)
	// register serves the operation's monitor over gRPC and registers a
	// component "comp" there, with outputs {"x": x}; it returns the
	// answer's outputs.
	register := func(x string) engine.Program {
		return func(ctx *engine.Context) error {
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
			resp, err := mon.RegisterResource(ctx.Context(), &pulumirpc.RegisterResourceRequest{
				Type: "my:index:Component", Name: "comp", Parent: string(root),
			})
			if err != nil {
				return err
			}
			if got := resp.GetObject().GetFields(); len(got) != 0 {
				t.Errorf("x=%s: the component's registration carries the outputs %v", x, got)
			}
			_, err = mon.RegisterResourceOutputs(ctx.Context(), &pulumirpc.RegisterResourceOutputsRequest{
				Urn: resp.GetUrn(), Outputs: props(t, resource.PropertyMap{"x": resource.NewString(x)}),
			})
			return err
		}
	}
	if _, err := env.Up(register("one")); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Preview(register("two")); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Up(register("two")); err != nil {
		t.Fatal(err)
	}
	if got := env.Resource(env.URN("my:index:Component", "comp")).Outputs["x"]; got.StringValue() != "two" {
		t.Errorf("the component's recorded output x = %v, want two", got)
	}
}
