package display_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/groundwork-iac/groundwork/display"
	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// A host shows its deployments by handing the renderer's Event method to
// the engine. On a terminal the table redraws in place; in a pipe or a CI
// log it prints one line per event.
func Example() {
	r := display.New(os.Stdout, display.Options{})
	defer r.Close()

	eng, err := engine.New(engine.Config{
		Project: "site", Stack: "dev", Store: memstore.New(),
		Providers: func() *providers.Registry {
			reg := providers.NewRegistry()
			_ = reg.RegisterFactory("test", "1.0.0", func(context.Context) (providers.Provider, error) {
				return &providers.Func{CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
					return providers.CreateResponse{ID: "t-1", Outputs: req.Inputs}, nil
				}}, nil
			})
			return reg
		},
		OnEvent: r.Event,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = eng.Up(context.Background(), func(ctx *engine.Context) error {
		ctx.Register("test:index:Thing", "a", engine.Props{"size": 1})
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
}

// In plain mode each event is a line, and a preview lists what each update
// would change.
func ExampleRenderer_Event() {
	r := display.New(os.Stdout, display.Options{Mode: display.ModePlain})
	defer r.Close()

	u := resource.NewURN("dev", "site", "", "test:index:Thing", "a")
	step := engine.StepEvent{
		Op: engine.StepUpdate, URN: u, Type: "test:index:Thing", Preview: true,
		OldInputs: resource.PropertyMap{"size": resource.NewNumber(1), "token": resource.NewSecret(resource.NewString("s3cr3t"))},
		NewInputs: resource.PropertyMap{"size": resource.NewNumber(2), "token": resource.NewSecret(resource.NewString("n3w"))},
		Keys:      []resource.PropertyKey{"size", "token"},
		Diff: map[string]resource.PropertyDiff{
			"size":  {Kind: resource.DiffUpdate, InputDiff: true},
			"token": {Kind: resource.DiffUpdate, InputDiff: true},
		},
	}
	for _, e := range []engine.Event{
		engine.OperationStartEvent{Operation: engine.OpPreview, Project: "site", Stack: "dev"},
		engine.StepStartEvent{StepEvent: step},
		engine.StepDoneEvent{StepEvent: step},
		engine.SummaryEvent{Operation: engine.OpPreview, Duration: 20 * time.Millisecond, Counts: map[engine.StepOp]int{engine.StepUpdate: 1}},
	} {
		r.Event(e)
	}
	// Output:
	// Previewing update of site/dev
	// ~ update  test:index:Thing  a
	//     ~ size: 1 → 2
	//     ~ token: [secret] → [secret]
	//
	// Resources: ~ 1 to update
	// Duration: 20ms
}
