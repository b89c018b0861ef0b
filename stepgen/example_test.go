package stepgen_test

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/deploy"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// oneProvider serves one provider for every reference.
type oneProvider struct{ p providers.Provider }

func (o oneProvider) Provider(ref, typ string) (providers.Provider, error) { return o.p, nil }

// The host loop around a Generator: feed it a registration, make the
// provider calls it asks for and Answer them, Apply the steps it issues and
// give it each Outcome, and pass its replies on to the program; after the
// program, decide the Deletes and start them. An engine makes the calls concurrently and
// walks the steps on a dag.Walker, each once the steps it needs have
// succeeded; this host does everything in line.
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
		Old: []*resource.State{recorded("web", 1), recorded("legacy", 1)},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	var calls []*stepgen.Call
	// handle queues the calls, applies the steps and prints the replies of
	// one Actions.
	var handle func(acts stepgen.Actions, err error)
	handle = func(acts stepgen.Actions, err error) {
		if err != nil {
			fmt.Println("  failed:", err)
			return
		}
		calls = append(calls, acts.Calls...)
		for _, r := range acts.Replies {
			fmt.Printf("  answered %s: id %s\n", r.Reg.URN.Name(), r.Result.ID)
		}
		for _, s := range acts.Steps {
			o := deploy.Apply(ctx, s, oneProvider{server}, nil)
			if o.Err != nil {
				fmt.Println("  failed:", o.Err)
			} else {
				fmt.Printf("  %s %s\n", s.Op, s.URN().Name())
			}
			handle(gen.Done(o), nil)
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
	if _, err := gen.Deletes(); err != nil {
		fmt.Println(err)
		return
	}
	handle(gen.StartDeletes(), nil)
	fmt.Println("settled:", gen.Settled())
	// Output:
	// register web
	//   call Check
	//   call Diff
	//   update web
	//   answered web: id id-web
	// register db
	//   call Check
	//   create db
	//   answered db: id id-db
	// after the program
	//   delete legacy
	// settled: true
}
