package monitor_test

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// printingDeployer stands in for the engine: it prints each registration
// and answers it at once with an ID.
type printingDeployer struct{}

func (printingDeployer) RegisterResourceAsync(_ context.Context, goal *resource.Goal, done func(providers.RegisterResult, error)) {
	fmt.Printf("register %s %s %v", goal.Type, goal.Name, goal.Inputs)
	if goal.Provider != "" {
		ref, _ := providers.ParseReference(goal.Provider)
		fmt.Printf(" with provider %s", ref.URN.Name())
	}
	fmt.Println()
	urn := resource.NewURN("dev", "site", "", goal.Type, goal.Name)
	done(providers.RegisterResult{URN: urn, ID: resource.ID(goal.Name + "-1")}, nil)
}

func (printingDeployer) RegisterResourceOutputs(context.Context, resource.URN, resource.PropertyMap) error {
	return nil
}

func (printingDeployer) ReadResource(_ context.Context, goal resource.Goal, id resource.ID) (providers.RegisterResult, error) {
	return providers.RegisterResult{URN: resource.NewURN("dev", "site", "", goal.Type, goal.Name), ID: id}, nil
}

// funcSource serves one provider for every reference.
type funcSource struct{ p providers.Provider }

func (s funcSource) Provider(ref, typ string) (providers.Provider, error) { return s.p, nil }

// The Monitor gives each custom resource a provider: here none is named,
// so the default provider of the package is registered on first need,
// configured from the "cloud:" keys of the stack configuration, and shared
// by every resource of the package. Functions go to the same provider.
func ExampleMonitor() {
	cloud := &providers.Func{InvokeF: func(_ context.Context, req providers.InvokeRequest) (providers.InvokeResponse, error) {
		return providers.InvokeResponse{Return: resource.PropertyMap{"zones": resource.NewNumber(3)}}, nil
	}}
	m := monitor.New(monitor.Config{
		Deployer:  printingDeployer{},
		Providers: funcSource{cloud},
		Config: map[string]resource.PropertyValue{
			"cloud:region": resource.NewString("eu-west-1"),
			"cloud:token":  resource.NewSecret(resource.NewString("t0ken")),
			"site:title":   resource.NewString("not a provider's"),
		},
	})
	ctx := context.Background()
	for _, name := range []string{"www", "assets"} {
		_, err := m.RegisterResource(ctx, resource.Goal{
			Type: "cloud:storage:Bucket", Name: name, Custom: true,
			Inputs: resource.PropertyMap{"public": resource.NewBool(true)},
		})
		if err != nil {
			fmt.Println(err)
		}
	}
	resp, err := m.Invoke(ctx, monitor.InvokeRequest{Token: "cloud:index:getZones"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("zones:", resp.Return["zones"])
	// Output:
	// register pulumi:providers:cloud default {region: "eu-west-1", token: [secret]}
	// register cloud:storage:Bucket www {public: true} with provider default
	// register cloud:storage:Bucket assets {public: true} with provider default
	// zones: 3
}
