package plugin_test

import (
	"context"
	"fmt"
	"log"

	"github.com/groundwork-iac/groundwork/plugin"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// Launching a plugin by hand: find it, start it, configure it, use it,
// close it.
func ExampleLaunch() {
	ctx := context.Background()
	p, err := plugin.Launch(ctx, "aws", plugin.Options{
		Dirs:        []string{"/opt/plugins"},
		Diagnostics: func(line string) { log.Printf("aws: %s", line) },
	})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(ctx)
	if _, err := p.Configure(ctx, providers.ConfigureRequest{
		Inputs:        resource.PropertyMap{"region": resource.NewString("eu-west-1")},
		AcceptSecrets: true, AcceptResources: true,
	}); err != nil {
		log.Fatal(err)
	}
	fmt.Println("running aws plugin", p.Version())
}

// A registry that launches plugins on demand when no registered factory
// serves a package.
func ExampleResolver() {
	reg := providers.NewRegistry(providers.WithResolver(plugin.Resolver(plugin.Options{
		Dirs:          []string{"/opt/plugins"},
		EngineAddress: "127.0.0.1:50051",
	})))
	defer reg.Close(context.Background())
}
