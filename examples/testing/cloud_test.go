package infra_test

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// fakeCloud is the provider the tests deploy against: a providers.Func
// whose functions keep the "cloud" in a map and log every call that would
// change a real one. Replace it with your own fake, or with the real
// provider for an integration test.
type fakeCloud struct {
	mu     sync.Mutex
	nextID int
	live   map[resource.ID]resource.PropertyMap // what exists, by ID
	calls  []string                             // "create web", "delete assets", ...
}

func newFakeCloud() *fakeCloud { return &fakeCloud{live: map[resource.ID]resource.PropertyMap{}} }

// provider returns the Func the engine calls; Check and Read keep
// providers.Func's defaults. A preview never calls Create, Update or
// Delete, so they need not check for one.
func (c *fakeCloud) provider() *providers.Func {
	return &providers.Func{
		CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.nextID++
			id := resource.ID(fmt.Sprintf("%s-%d", req.URN.Name(), c.nextID))
			outs := req.Inputs.Copy()
			outs["url"] = resource.NewString("https://" + string(id) + ".example.com")
			c.live[id] = outs
			c.calls = append(c.calls, "create "+req.URN.Name())
			return providers.CreateResponse{ID: id, Outputs: outs}, nil
		},
		// A changed region forces a replacement: the thing cannot move.
		// Every other change is an update in place.
		DiffF: func(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
			d := providers.DiffInputs(req.OldInputs, req.NewInputs)
			if slices.Contains(d.ChangedKeys, "region") {
				d.ReplaceKeys = []resource.PropertyKey{"region"}
			}
			return d, nil
		},
		UpdateF: func(_ context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
			outs := req.NewInputs.Copy()
			outs["url"] = req.OldOutputs["url"]
			c.mu.Lock()
			defer c.mu.Unlock()
			c.live[req.ID] = outs
			c.calls = append(c.calls, "update "+req.URN.Name())
			return providers.UpdateResponse{Outputs: outs}, nil
		},
		DeleteF: func(_ context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			delete(c.live, req.ID)
			c.calls = append(c.calls, "delete "+req.URN.Name())
			return providers.DeleteResponse{}, nil
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
