package stepgen_test

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// oneProvider serves one provider for every reference.
type oneProvider struct{ p providers.Provider }

func (o oneProvider) Provider(ref, typ string) (providers.Provider, error) { return o.p, nil }

// The host loop around a Generator: feed it a registration, make the
// provider calls it asks for and Answer them, run the chains it issues;
// after the program, run what Deletes returns. An engine makes the calls
// concurrently and runs the chains on an executor; this host does both in
// line.
func ExampleGenerator() {
	ctx := context.Background()
	server := &providers.Func{
		CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			return providers.CreateResponse{ID: resource.ID("id-" + req.URN.Name()), Outputs: req.Inputs}, nil
		},
	}
	provURN := resource.NewURN("dev", "demo", "", "pulumi:providers:demo", "default")
	ref := providers.NewReference(provURN, "p1").String()
	recorded := func(name string, size float64) *resource.State {
		in := resource.PropertyMap{"size": resource.NewNumber(size)}
		return &resource.State{
			Type: "demo:index:Server", URN: resource.NewURN("dev", "demo", "", "demo:index:Server", name),
			Custom: true, ID: resource.ID("id-" + name), Inputs: in, Outputs: in, Provider: ref,
		}
	}
	gen, err := stepgen.New(stepgen.Config{
		Stack: "dev", Project: "demo",
		Old:       []*resource.State{recorded("web", 1), recorded("legacy", 1)},
		Providers: oneProvider{server},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	var calls []*stepgen.Call
	// handle queues the calls and runs the chains of one Actions.
	handle := func(acts stepgen.Actions, err error) {
		if err != nil {
			fmt.Println("  failed:", err)
			return
		}
		calls = append(calls, acts.Calls...)
		for _, ch := range acts.Chains {
			for _, s := range ch.Steps {
				if err := s.Apply(ctx); err != nil {
					fmt.Println("  failed:", err)
					return
				}
				fmt.Printf("  %s %s\n", s.Op, s.URN().Name())
			}
		}
	}

	program := []resource.Goal{
		{Type: "demo:index:Server", Name: "web", Custom: true, Provider: ref, Inputs: resource.PropertyMap{"size": resource.NewNumber(2)}},
		{Type: "demo:index:Server", Name: "db", Custom: true, Provider: ref, Inputs: resource.PropertyMap{"size": resource.NewNumber(4)}},
	}
	for _, goal := range program {
		fmt.Println("register", goal.Name)
		handle(gen.Register(&stepgen.Registration{Goal: &goal}))
		for len(calls) > 0 {
			c := calls[0]
			calls = calls[1:]
			a := stepgen.Answer{Call: c}
			switch c.Kind {
			case stepgen.CallCheck:
				fmt.Println("  call Check")
				a.Check, a.Err = server.Check(ctx, c.Check)
			case stepgen.CallDiff:
				fmt.Println("  call Diff")
				a.Diff, a.Err = server.Diff(ctx, c.Diff)
			}
			handle(gen.Answer(a))
		}
	}

	fmt.Println("after the program")
	layers, err := gen.Deletes()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, antichain := range layers {
		handle(stepgen.Actions{Chains: antichain}, nil)
	}
	// Output:
	// register web
	//   call Check
	//   call Diff
	//   update web
	// register db
	//   call Check
	//   create db
	// after the program
	//   delete legacy
}
