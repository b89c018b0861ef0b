package providertest

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// Memory is an in-memory fake cloud: the resources its provider creates
// live in a map, so tests can see what exists. Its provider
// (Memory.Provider) is a *providers.Func that:
//
//   - accepts any inputs in Check;
//   - diffs with providers.DiffInputs, except that a change of one of
//     ReplaceKeys forces a replacement;
//   - creates a resource with the ID "mem-<n>" whose outputs are its inputs
//     plus "id"; in a preview it creates nothing and "id" is unknown;
//   - reads a resource that no longer exists as not found (an empty ID);
//   - updates in place, keeping the ID; deletes idempotently;
//   - returns ctx's error from every call whose context has ended, having
//     done nothing.
//
// The zero Memory is ready to use and safe for concurrent use.
type Memory struct {
	// ReplaceKeys are the inputs whose change forces a replacement.
	ReplaceKeys []resource.PropertyKey

	mu        sync.Mutex
	next      int
	resources map[resource.ID]memoryResource
}

type memoryResource struct {
	inputs, outputs resource.PropertyMap
}

// NewMemory returns an empty fake cloud whose resources are replaced when
// any of replaceKeys change.
func NewMemory(replaceKeys ...resource.PropertyKey) *Memory {
	return &Memory{ReplaceKeys: replaceKeys}
}

// Count returns how many resources exist.
func (m *Memory) Count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.resources)
}

// Get returns the outputs of the resource id, and whether it exists.
func (m *Memory) Get(id resource.ID) (resource.PropertyMap, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.resources[id]
	return r.outputs.Copy(), ok
}

// Provider returns a provider backed by m. Each call returns a new value;
// all of them share m's resources.
func (m *Memory) Provider() *providers.Func {
	return &providers.Func{
		DiffF:   m.diff,
		CreateF: m.create,
		ReadF:   m.read,
		UpdateF: m.update,
		DeleteF: m.delete,
	}
}

func (m *Memory) diff(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
	if err := ctx.Err(); err != nil {
		return providers.DiffResponse{}, err
	}
	d := providers.DiffInputs(req.OldInputs, req.NewInputs)
	for _, k := range d.ChangedKeys {
		if slices.Contains(m.ReplaceKeys, k) {
			d.ReplaceKeys = append(d.ReplaceKeys, k)
			pd := d.DetailedDiff[string(k)]
			pd.Kind = pd.Kind.AsReplace()
			d.DetailedDiff[string(k)] = pd
		}
	}
	return d, nil
}

func (m *Memory) create(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
	if err := ctx.Err(); err != nil {
		return providers.CreateResponse{}, err
	}
	outs := req.Inputs.Copy()
	if outs == nil {
		outs = resource.PropertyMap{}
	}
	if req.Preview {
		outs["id"] = resource.NewUnknown()
		return providers.CreateResponse{Outputs: outs}, nil
	}
	if req.Inputs.ContainsUnknowns() {
		return providers.CreateResponse{}, fmt.Errorf("memory provider: create %s: inputs have unknown values outside a preview", req.URN)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.next++
	id := resource.ID(fmt.Sprintf("mem-%d", m.next))
	outs["id"] = resource.NewString(string(id))
	if m.resources == nil {
		m.resources = map[resource.ID]memoryResource{}
	}
	m.resources[id] = memoryResource{inputs: req.Inputs.Copy(), outputs: outs.Copy()}
	return providers.CreateResponse{ID: id, Outputs: outs}, nil
}

func (m *Memory) read(ctx context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
	if err := ctx.Err(); err != nil {
		return providers.ReadResponse{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.resources[req.ID]
	if !ok {
		return providers.ReadResponse{}, nil
	}
	return providers.ReadResponse{ID: req.ID, Inputs: r.inputs.Copy(), Outputs: r.outputs.Copy()}, nil
}

func (m *Memory) update(ctx context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
	if err := ctx.Err(); err != nil {
		return providers.UpdateResponse{}, err
	}
	outs := req.NewInputs.Copy()
	if outs == nil {
		outs = resource.PropertyMap{}
	}
	outs["id"] = resource.NewString(string(req.ID))
	if req.Preview {
		return providers.UpdateResponse{Outputs: outs}, nil
	}
	if req.NewInputs.ContainsUnknowns() {
		return providers.UpdateResponse{}, fmt.Errorf("memory provider: update %s: inputs have unknown values outside a preview", req.URN)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.resources[req.ID]; !ok {
		return providers.UpdateResponse{}, fmt.Errorf("memory provider: update %s: resource %s does not exist; refresh to forget it", req.URN, req.ID)
	}
	m.resources[req.ID] = memoryResource{inputs: req.NewInputs.Copy(), outputs: outs.Copy()}
	return providers.UpdateResponse{Outputs: outs}, nil
}

func (m *Memory) delete(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
	if err := ctx.Err(); err != nil {
		return providers.DeleteResponse{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.resources, req.ID)
	return providers.DeleteResponse{}, nil
}
