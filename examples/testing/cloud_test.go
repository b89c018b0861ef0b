package infra_test

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// The provider the tests deploy against is a fake cloud: one
// providers.Typed per resource type, keeping what exists in a map and
// logging every call that would change a real cloud. Each type's inputs
// and outputs are Go structs; Typed checks the inputs against them and
// does the property-map handling. Replace it with your own fake, or with
// the real provider for an integration test.

// bucketInputs and the others are what the provider sees: plain values.
// A region cannot change in place: `replace` makes a change replace the
// thing.
type bucketInputs struct {
	Region string `prop:"region,replace"`
}

type serverInputs struct {
	Region string `prop:"region,replace"`
	Size   string `prop:"size"`
	Assets string `prop:"assets"`
}

type cacheInputs struct {
	Backend string `prop:"backend"`
}

// The outputs of each type are its inputs and where it is.
type bucket struct {
	bucketInputs
	URL string `prop:"url"`
}

type server struct {
	serverInputs
	URL string `prop:"url"`
}

type cache struct {
	cacheInputs
	URL string `prop:"url"`
}

type fakeCloud struct {
	mu     sync.Mutex
	nextID int
	live   map[resource.ID]any // what exists, by ID
	calls  []string            // "create web", "delete assets", ...
}

func newFakeCloud() *fakeCloud { return &fakeCloud{live: map[resource.ID]any{}} }

// provider serves the cloud's three types. A preview never calls Create,
// Update or Delete, so they need not check for one.
func (c *fakeCloud) provider() providers.Provider {
	return providers.ByType(map[string]providers.Provider{
		bucketType: thingType(c, func(in bucketInputs, url string) bucket { return bucket{in, url} }, func(b bucket) string { return b.URL }),
		serverType: thingType(c, func(in serverInputs, url string) server { return server{in, url} }, func(s server) string { return s.URL }),
		cacheType:  thingType(c, func(in cacheInputs, url string) cache { return cache{in, url} }, func(c cache) string { return c.URL }),
	})
}

// thingType is the fake of one type: it creates, updates and deletes
// entries of the map; Check, Diff and Read keep Typed's defaults. outputs
// makes a thing's outputs from its inputs and URL.
func thingType[In, Out any](c *fakeCloud, outputs func(In, string) Out, urlOf func(Out) string) *providers.Typed[In, Out] {
	return &providers.Typed[In, Out]{
		CreateF: func(_ context.Context, req providers.TypedCreate[In]) (resource.ID, Out, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.nextID++
			id := resource.ID(fmt.Sprintf("%s-%d", req.URN.Name(), c.nextID))
			out := outputs(req.Inputs, "https://"+string(id)+".example.com")
			c.live[id] = out
			c.calls = append(c.calls, "create "+req.URN.Name())
			return id, out, nil
		},
		UpdateF: func(_ context.Context, req providers.TypedUpdate[In, Out]) (Out, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			out := outputs(req.NewInputs, urlOf(req.OldOutputs))
			c.live[req.ID] = out
			c.calls = append(c.calls, "update "+req.URN.Name())
			return out, nil
		},
		DeleteF: func(_ context.Context, req providers.TypedDelete[In, Out]) error {
			c.mu.Lock()
			defer c.mu.Unlock()
			delete(c.live, req.ID)
			c.calls = append(c.calls, "delete "+req.URN.Name())
			return nil
		},
	}
}

// Calls returns the calls since the last Calls, sorted (resources
// without dependencies between them are deployed in parallel, so their
// order varies).
func (c *fakeCloud) Calls() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	calls := c.calls
	c.calls = nil
	slices.Sort(calls)
	return calls
}

// Live returns the number of things that exist in the cloud.
func (c *fakeCloud) Live() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.live)
}
