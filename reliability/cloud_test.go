package reliability_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// fakeCloud is an in-memory world for the in-process tests: every
// physical resource with its inputs, a count of the changes made, and
// failures injected by operation and resource name.
type fakeCloud struct {
	mu   sync.Mutex
	next int
	live map[resource.ID]phys
	// changes counts physical creates, updates and deletes.
	changes int
	// failures maps "create name", "update name", "delete name", "check
	// name" and "diff name" to how that call fails.
	failures map[string]failMode
	// failed counts the calls that failed, by kind of failure.
	failed  map[failMode]int
	signals atomic.Int32
	// hook, if set, runs at the start of every create, update and delete.
	hook func(ctx context.Context, op string, urn resource.URN) error
}

type phys struct {
	URN    resource.URN
	Inputs resource.PropertyMap
}

type failMode int

const (
	failNone failMode = iota
	// failPlain fails the call; nothing changes in the world.
	failPlain
	// failInit makes the change, then fails with a providers.InitError.
	failInit
)

func newCloud() *fakeCloud {
	return &fakeCloud{live: map[resource.ID]phys{}, failures: map[string]failMode{}, failed: map[failMode]int{}}
}

func (c *fakeCloud) failure(op string, urn resource.URN) failMode {
	m := c.failures[op+" "+urn.Name()]
	if m != failNone {
		c.failed[m]++
	}
	return m
}

// Live returns the world's resources.
func (c *fakeCloud) Live() map[resource.ID]phys {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.live)
}

// Changes returns how many physical changes were made.
func (c *fakeCloud) Changes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changes
}

// Remove deletes a resource behind the engine's back.
func (c *fakeCloud) Remove(urn resource.URN) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, p := range c.live {
		if p.URN == urn {
			delete(c.live, id)
		}
	}
}

// Fail sets how calls fail: keys are "op name".
func (c *fakeCloud) Fail(f map[string]failMode) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failures = f
	if c.failures == nil {
		c.failures = map[string]failMode{}
	}
}

var errInjected = errors.New("injected failure")

func outputsOf(id resource.ID, in resource.PropertyMap) resource.PropertyMap {
	out := in.Copy()
	out["id"] = resource.NewString(string(id))
	return out
}

func (c *fakeCloud) runHook(ctx context.Context, op string, urn resource.URN) error {
	c.mu.Lock()
	h := c.hook
	c.mu.Unlock()
	if h == nil {
		return nil
	}
	return h(ctx, op, urn)
}

// provider serves the cloud. A change of "gen", or of the key named by
// the input "rk", forces a replacement.
func (c *fakeCloud) provider() *providers.Func {
	return &providers.Func{
		CheckF: func(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
			c.mu.Lock()
			m := c.failure("check", req.URN)
			c.mu.Unlock()
			if m != failNone {
				return providers.CheckResponse{}, fmt.Errorf("check of %s: %w", req.URN.Name(), errInjected)
			}
			return providers.CheckResponse{Inputs: req.News}, nil
		},
		DiffF: func(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
			c.mu.Lock()
			m := c.failures["diff "+req.URN.Name()]
			// A failed diff with unknowns (a delete-before-replace asking
			// about a dependent) is taken as a replacement on purpose,
			// not reported as a failure; do not count it as one.
			if m != failNone && !req.NewInputs.ContainsUnknowns() {
				c.failed[m]++
			}
			c.mu.Unlock()
			if m != failNone {
				return providers.DiffResponse{}, fmt.Errorf("diff of %s: %w", req.URN.Name(), errInjected)
			}
			d := req.OldInputs.Diff(req.NewInputs)
			if d == nil || !d.AnyChanges() {
				return providers.DiffResponse{Changes: resource.DiffNone}, nil
			}
			res := providers.DiffResponse{Changes: resource.DiffSome, ChangedKeys: d.ChangedKeys()}
			// "gen" and the keys listed in the input "rk" replace.
			replace := []resource.PropertyKey{"gen"}
			if rk := req.NewInputs["rk"]; rk.IsString() {
				replace = append(replace, resource.PropertyKey(rk.StringValue()))
			}
			for _, k := range res.ChangedKeys {
				if slices.Contains(replace, k) {
					res.ReplaceKeys = append(res.ReplaceKeys, k)
				}
			}
			return res, nil
		},
		CreateF: func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			if err := c.runHook(ctx, "create", req.URN); err != nil {
				return providers.CreateResponse{}, err
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			m := c.failure("create", req.URN)
			if m == failPlain {
				return providers.CreateResponse{}, fmt.Errorf("create of %s: %w", req.URN.Name(), errInjected)
			}
			c.next++
			id := resource.ID(fmt.Sprintf("%s-%d", req.URN.Name(), c.next))
			c.live[id] = phys{URN: req.URN, Inputs: req.Inputs}
			c.changes++
			if m == failInit {
				return providers.CreateResponse{}, &providers.InitError{ID: id, Outputs: outputsOf(id, req.Inputs), Reasons: []string{"injected init failure"}}
			}
			return providers.CreateResponse{ID: id, Outputs: outputsOf(id, req.Inputs)}, nil
		},
		UpdateF: func(ctx context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
			if err := c.runHook(ctx, "update", req.URN); err != nil {
				return providers.UpdateResponse{}, err
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			if _, ok := c.live[req.ID]; !ok {
				return providers.UpdateResponse{}, fmt.Errorf("update of %s: no resource %s", req.URN.Name(), req.ID)
			}
			m := c.failure("update", req.URN)
			if m == failPlain {
				return providers.UpdateResponse{}, fmt.Errorf("update of %s: %w", req.URN.Name(), errInjected)
			}
			c.live[req.ID] = phys{URN: req.URN, Inputs: req.NewInputs}
			c.changes++
			if m == failInit {
				return providers.UpdateResponse{}, &providers.InitError{ID: req.ID, Outputs: outputsOf(req.ID, req.NewInputs), Reasons: []string{"injected init failure"}}
			}
			return providers.UpdateResponse{Outputs: outputsOf(req.ID, req.NewInputs)}, nil
		},
		DeleteF: func(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
			if err := c.runHook(ctx, "delete", req.URN); err != nil {
				return providers.DeleteResponse{}, err
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			if _, ok := c.live[req.ID]; !ok {
				return providers.DeleteResponse{}, fmt.Errorf("delete of %s: no resource %s", req.URN.Name(), req.ID)
			}
			if c.failure("delete", req.URN) != failNone {
				return providers.DeleteResponse{}, fmt.Errorf("delete of %s: %w", req.URN.Name(), errInjected)
			}
			delete(c.live, req.ID)
			c.changes++
			return providers.DeleteResponse{}, nil
		},
		ReadF: func(_ context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			p, ok := c.live[req.ID]
			if !ok {
				return providers.ReadResponse{}, nil
			}
			return providers.ReadResponse{ID: req.ID, Inputs: p.Inputs, Outputs: outputsOf(req.ID, p.Inputs)}, nil
		},
		SignalCancellationF: func(context.Context) error {
			c.signals.Add(1)
			return nil
		},
	}
}

const thing = "fz:index:Thing"

// newEnv returns a test stack served by c (package "fz").
func newEnv(t testing.TB, c *fakeCloud) *enginetest.Env {
	env := enginetest.New(t)
	env.Provider("fz", "", c.provider())
	return env
}
