package server_test

import (
	"context"
	"fmt"
	"net"

	"github.com/groundwork-iac/groundwork/plugin"
	"github.com/groundwork-iac/groundwork/plugin/server"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// A plugin binary's main function.
func ExampleMain() {
	p := &providers.Func{
		CreateF: func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			return providers.CreateResponse{ID: "id-1", Outputs: req.Inputs}, nil
		},
	}
	server.Main(p, server.Options{Name: "example", Version: "1.0.0"})
}

// Serving a provider in-process and talking to it over gRPC.
func ExampleServe() {
	ctx, stop := context.WithCancel(context.Background())
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	served := make(chan error, 1)
	go func() {
		served <- server.Serve(ctx, lis, &providers.Func{
			CreateF: func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
				return providers.CreateResponse{ID: "id-1", Outputs: req.Inputs}, nil
			},
		}, server.Options{Name: "example", Version: "1.0.0"})
	}()

	p, err := plugin.Connect(ctx, "example", lis.Addr().String(), plugin.Options{})
	if err != nil {
		panic(err)
	}
	resp, err := p.Create(ctx, providers.CreateRequest{
		URN:    resource.NewURN("dev", "proj", "", "example:index:Thing", "a"),
		Inputs: resource.PropertyMap{"size": resource.NewNumber(3), "token": resource.NewSecret(resource.NewString("x"))},
	})
	fmt.Println(resp.ID, resp.Outputs, err)

	p.Close(ctx)
	stop()
	fmt.Println(<-served)
	// Output:
	// id-1 {size: 3, token: [secret]} <nil>
	// <nil>
}
