package grpcserver_test

import (
	"context"
	"fmt"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/groundwork-iac/groundwork/monitor/grpcserver"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// A host serves its monitor (here a stand-in that names each resource)
// while a program in another process registers resources at Addr.
func ExampleStart() {
	srv, err := grpcserver.Start(context.Background(), grpcserver.Config{Monitor: &fakeMonitor{
		registerF: func(_ context.Context, g resource.Goal) (providers.RegisterResult, error) {
			return providers.RegisterResult{URN: resource.URN("urn:pulumi:dev::demo::" + g.Type + "::" + g.Name)}, nil
		},
	}})
	if err != nil {
		panic(err)
	}
	defer srv.Stop()

	// The program's side: what a Pulumi SDK does with PULUMI_MONITOR.
	conn, err := grpc.NewClient(srv.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	resp, err := pulumirpc.NewResourceMonitorClient(conn).RegisterResource(context.Background(),
		&pulumirpc.RegisterResourceRequest{Type: "demo:index:Thing", Name: "one", Custom: true})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.GetUrn())
	// Output: urn:pulumi:dev::demo::demo:index:Thing::one
}
