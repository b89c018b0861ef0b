package langhost

import (
	"context"
	"sync/atomic"

	"github.com/groundwork-iac/groundwork/monitor/grpcserver"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// stackMonitor passes a program's requests to the deployment's Monitor,
// except those about the stack's root resource, which the engine's
// Context registered before the program started: the program's own
// registration of it is answered with that resource, and the outputs the
// program registers for it are exported as the stack's outputs (the
// Context records them when the program is done).
type stackMonitor struct {
	grpcserver.Monitor
	root   resource.URN
	export func(name string, value any)
	// exported is set once the program has registered the root's outputs.
	exported atomic.Bool
}

// RegisterResource answers the registration of the root stack resource
// with the Context's; every other registration goes to the Monitor.
func (m *stackMonitor) RegisterResource(ctx context.Context, goal resource.Goal) (providers.RegisterResult, error) {
	if goal.Type == resource.RootStackType && goal.Parent == "" {
		return providers.RegisterResult{URN: m.root, Outputs: resource.PropertyMap{}}, nil
	}
	return m.Monitor.RegisterResource(ctx, goal)
}

// RegisterResourceOutputs exports the root's outputs as stack outputs;
// other components' outputs go to the Monitor.
func (m *stackMonitor) RegisterResourceOutputs(ctx context.Context, urn resource.URN, outputs resource.PropertyMap) error {
	if urn != m.root {
		return m.Monitor.RegisterResourceOutputs(ctx, urn, outputs)
	}
	for k, v := range outputs {
		m.export(string(k), v)
	}
	m.exported.Store(true)
	return nil
}

// keepOutputs exports the stack's previous outputs, prev, if the program
// registered none: a program that failed before it could (the SDKs register
// the stack's outputs last, and not at all when one of them failed) leaves
// the stack's outputs as they were, as with Pulumi's engine.
func (m *stackMonitor) keepOutputs(prev resource.PropertyMap) {
	if m.exported.Load() {
		return
	}
	for k, v := range prev {
		m.export(string(k), v)
	}
}
