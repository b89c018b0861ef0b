package dag_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/groundwork-iac/groundwork/dag"
)

// A diamond: the network first, then the two servers on it in parallel,
// then the load balancer in front of both.
func Example() {
	var mu sync.Mutex
	var order []string
	w := dag.New(dag.Options[string]{
		Visit: func(ctx context.Context, name *string) error {
			mu.Lock()
			defer mu.Unlock()
			order = append(order, *name)
			return nil
		},
	})
	ctx := context.Background()
	add := func(id uint64, name string, needs ...uint64) {
		if err := w.Add(ctx, dag.Vertex[string]{ID: id, Needs: needs, Value: name}); err != nil {
			panic(err)
		}
	}
	add(1, "network")
	add(2, "server a", 1)
	add(3, "server b", 1)
	add(4, "load balancer", 2, 3)
	if err := w.Wait(); err != nil {
		fmt.Println(err)
	}
	fmt.Println(order[0], "first,", order[3], "last")
	// Output: network first, load balancer last
}

// With ContinueOnError, a failure skips only what needs it; Ended tells
// the host how each vertex ended.
func ExampleOptions_continueOnError() {
	var mu sync.Mutex
	ended := map[string]string{}
	w := dag.New(dag.Options[string]{
		ContinueOnError: true,
		Visit: func(ctx context.Context, name *string) error {
			if *name == "database" {
				return fmt.Errorf("%s: quota exceeded", *name)
			}
			return nil
		},
		Ended: func(name *string, err error) {
			mu.Lock()
			defer mu.Unlock()
			ended[*name] = fmt.Sprint(err)
		},
		Name: func(name *string) string { return *name },
	})
	ctx := context.Background()
	for _, v := range []dag.Vertex[string]{
		{ID: 1, Value: "database"},
		{ID: 2, Value: "schema", Needs: []uint64{1}},
		{ID: 3, Value: "bucket"},
	} {
		if err := w.Add(ctx, v); err != nil {
			panic(err)
		}
	}
	fmt.Println("Wait:", w.Wait())
	for _, name := range []string{"database", "schema", "bucket"} {
		fmt.Printf("%s: %s\n", name, ended[name])
	}
	// Output:
	// Wait: database: quota exceeded
	// database: database: quota exceeded
	// schema: schema skipped: needed database did not succeed: database: quota exceeded
	// bucket: <nil>
}
