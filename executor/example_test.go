package executor_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/groundwork-iac/groundwork/executor"
	"github.com/groundwork-iac/groundwork/resource"
)

// exampleStep stands in for an engine step such as a create.
type exampleStep struct {
	urn resource.URN
	err error // what Apply returns
}

func (s exampleStep) URN() resource.URN           { return s.urn }
func (s exampleStep) Apply(context.Context) error { return s.err }

// printHooks reports each outcome, as a host would report it to the program
// and the journal. It embeds NoopHooks to leave StepStarting alone.
type printHooks struct{ executor.NoopHooks }

func (printHooks) StepDone(_ context.Context, s executor.Step, err error) error {
	if err != nil {
		fmt.Printf("%s failed: %v\n", s.URN().Name(), err)
	} else {
		fmt.Printf("%s done\n", s.URN().Name())
	}
	return nil
}

func (printHooks) StepSkipped(_ context.Context, s executor.Step, reason error) {
	var skip *executor.SkippedError
	errors.As(reason, &skip)
	fmt.Printf("%s skipped: %s did not succeed\n", s.URN().Name(), skip.Dependency.Name())
}

func ExampleExecutor() {
	urn := func(name string) resource.URN {
		return resource.NewURN("dev", "shop", "", "cloud:index:Thing", name)
	}
	ctx := context.Background()

	// Parallelism 1 keeps this example's output in a fixed order; a real
	// deployment lets independent chains overlap.
	e := executor.New(executor.Options{
		Parallelism:     1,
		ContinueOnError: true,
		Hooks:           printHooks{},
	})

	// Two independent chains; the second's database fails.
	e.Execute(ctx, executor.Chain{Steps: []executor.Step{
		exampleStep{urn: urn("network")},
		exampleStep{urn: urn("bucket")},
	}})
	e.Execute(ctx, executor.Chain{Steps: []executor.Step{
		exampleStep{urn: urn("database"), err: errors.New("quota exceeded")},
	}})

	// The engine submits a resource once its dependencies have finished:
	// WaitIdle stands in for that here.
	e.WaitIdle(ctx)
	e.Execute(ctx, executor.Chain{
		Steps: []executor.Step{exampleStep{urn: urn("app")}},
		Needs: []resource.URN{urn("network"), urn("database")},
	})
	e.Execute(ctx, executor.Chain{
		Steps: []executor.Step{exampleStep{urn: urn("cdn")}},
		Needs: []resource.URN{urn("bucket")},
	})

	if err := e.Wait(); err != nil {
		fmt.Println("deployment failed:", err)
	}
	// Output:
	// network done
	// bucket done
	// database failed: quota exceeded
	// app skipped: database did not succeed
	// cdn done
	// deployment failed: urn:pulumi:dev::shop::cloud:index:Thing::database: quota exceeded
}
