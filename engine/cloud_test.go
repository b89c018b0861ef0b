package engine_test

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// cloud is a fake world for lifecycle tests: a provider whose resources
// live in a map, with a log of every call that changed something.
type cloud struct {
	mu   sync.Mutex
	next int
	// writes logs "create name", "update name", "delete name" in order.
	writes []string
	live   map[resource.ID]resource.PropertyMap
	// replaceKeys are inputs whose change forces a replacement.
	replaceKeys []resource.PropertyKey
	// failCreate makes the create of the named resources fail.
	failCreate map[string]error
	checks     int
	diffs      int
	// onCreate, if set, runs inside every create (after the fail check).
	onCreate func(ctx context.Context, name string) error
	// onDiff, if set, runs inside every diff.
	onDiff func(ctx context.Context, req providers.DiffRequest) error
	// onDelete, if set, runs after every delete, with the resource's name.
	onDelete func(name string)
}

func newCloud(replaceKeys ...resource.PropertyKey) *cloud {
	return &cloud{live: map[resource.ID]resource.PropertyMap{}, replaceKeys: replaceKeys, failCreate: map[string]error{}}
}

func (c *cloud) log(op string, urn resource.URN) {
	c.writes = append(c.writes, op+" "+urn.Name())
}

// Writes returns the log of changing calls.
func (c *cloud) Writes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.writes)
}

func (c *cloud) count(op string) int {
	n := 0
	for _, w := range c.Writes() {
		if len(w) > len(op) && w[:len(op)+1] == op+" " {
			n++
		}
	}
	return n
}

// Live returns how many resources exist.
func (c *cloud) Live() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.live)
}

func (c *cloud) provider() *providers.Func {
	return &providers.Func{
		CheckF: func(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
			c.mu.Lock()
			c.checks++
			c.mu.Unlock()
			return providers.CheckResponse{Inputs: req.News}, nil
		},
		DiffF: func(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
			c.mu.Lock()
			c.diffs++
			hook := c.onDiff
			c.mu.Unlock()
			if hook != nil {
				if err := hook(ctx, req); err != nil {
					return providers.DiffResponse{}, err
				}
			}
			d := req.OldInputs.Diff(req.NewInputs)
			if d == nil || !d.AnyChanges() {
				return providers.DiffResponse{Changes: resource.DiffNone}, nil
			}
			res := providers.DiffResponse{Changes: resource.DiffSome, ChangedKeys: d.ChangedKeys()}
			for _, k := range res.ChangedKeys {
				if slices.Contains(c.replaceKeys, k) {
					res.ReplaceKeys = append(res.ReplaceKeys, k)
				}
			}
			return res, nil
		},
		CreateF: func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			c.mu.Lock()
			err := c.failCreate[req.URN.Name()]
			hook := c.onCreate
			c.mu.Unlock()
			if err != nil {
				return providers.CreateResponse{}, err
			}
			if hook != nil {
				if err := hook(ctx, req.URN.Name()); err != nil {
					return providers.CreateResponse{}, err
				}
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			c.next++
			id := resource.ID(fmt.Sprintf("id-%d", c.next))
			out := req.Inputs.Copy()
			out["id"] = resource.NewString(string(id))
			c.live[id] = out
			c.log("create", req.URN)
			return providers.CreateResponse{ID: id, Outputs: out}, nil
		},
		UpdateF: func(ctx context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			if _, ok := c.live[req.ID]; !ok {
				return providers.UpdateResponse{}, fmt.Errorf("update of %s: no resource %s", req.URN, req.ID)
			}
			out := req.NewInputs.Copy()
			out["id"] = resource.NewString(string(req.ID))
			c.live[req.ID] = out
			c.log("update", req.URN)
			return providers.UpdateResponse{Outputs: out}, nil
		},
		DeleteF: func(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
			c.mu.Lock()
			if _, ok := c.live[req.ID]; !ok {
				c.mu.Unlock()
				return providers.DeleteResponse{}, fmt.Errorf("delete of %s: no resource %s", req.URN, req.ID)
			}
			delete(c.live, req.ID)
			c.log("delete", req.URN)
			hook := c.onDelete
			c.mu.Unlock()
			if hook != nil {
				hook(req.URN.Name())
			}
			return providers.DeleteResponse{}, nil
		},
		ReadF: func(ctx context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			out, ok := c.live[req.ID]
			if !ok {
				return providers.ReadResponse{}, nil
			}
			inputs := req.Inputs
			if inputs == nil { // an import: what exists is what was asked for
				inputs = out.Copy()
				delete(inputs, "id")
			}
			return providers.ReadResponse{ID: req.ID, Inputs: inputs, Outputs: out}, nil
		},
	}
}
