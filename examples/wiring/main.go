package main

import (
	"context"
	"log"

	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// main deploys two resources, b needing a's ID, with a provider that
// creates them.
func main() {
	reg := providers.NewRegistry()
	demo := &providers.Func{CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
		return providers.CreateResponse{ID: resource.ID("id-" + req.URN.Name()), Outputs: req.Inputs}, nil
	}}
	if err := reg.RegisterFactory("demo", "1.0.0", func(context.Context) (providers.Provider, error) { return demo, nil }); err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	if err := up(ctx, reg, nil, func(m *monitor.Monitor) error {
		a, err := m.RegisterResource(ctx, resource.Goal{Type: "demo:index:Thing", Name: "a", Custom: true})
		if err == nil {
			_, err = m.RegisterResource(ctx, resource.Goal{Type: "demo:index:Thing", Name: "b", Custom: true,
				Inputs: resource.PropertyMap{"peer": resource.NewString(string(a.ID))}, Dependencies: []resource.URN{a.URN}})
		}
		return err
	}); err != nil {
		log.Fatal(err)
	}
}
