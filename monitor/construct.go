package monitor

import (
	"context"
	"fmt"
	"slices"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// construct sends a remote component to its provider's Construct, which
// registers the component and its children back through the Monitor.
func (m *Monitor) construct(ctx context.Context, goal resource.Goal) (providers.RegisterResult, error) {
	p, err := m.resolve(ctx, goal.Type, goal.Provider, goal.Version)
	if err != nil {
		return providers.RegisterResult{}, fmt.Errorf("constructing %s %q: %w", goal.Type, goal.Name, err)
	}
	resp, err := providers.Construct(ctx, p, providers.ConstructRequest{
		Type: goal.Type, Name: goal.Name, Parent: goal.Parent, Inputs: goal.Inputs,
		InputDependencies: inputDependencies(goal), Options: goal, Providers: goal.Providers, Host: m, Preview: m.cfg.Preview,
		Config: m.cfg.Config,
	})
	if err != nil {
		return providers.RegisterResult{}, fmt.Errorf("constructing %s %q: %w", goal.Type, goal.Name, err)
	}
	return providers.RegisterResult{URN: resp.URN, Outputs: resp.Outputs, OutputDependencies: outputDependencies(resp)}, nil
}

// inputDependencies are the dependencies of a remote component's inputs
// that Construct is given, as Pulumi's engine gives them: every input has
// an entry, holding what the program said it depends on and the
// dependencies of the output values in it, at any depth.
func inputDependencies(goal resource.Goal) map[resource.PropertyKey][]resource.URN {
	if len(goal.Inputs) == 0 && len(goal.PropertyDependencies) == 0 {
		return goal.PropertyDependencies
	}
	deps := make(map[resource.PropertyKey][]resource.URN, len(goal.Inputs))
	for k, urns := range goal.PropertyDependencies {
		deps[k] = addDependencies(nil, urns)
	}
	for k, v := range goal.Inputs {
		deps[k] = outputValueDependencies(deps[k], v)
		if deps[k] == nil {
			deps[k] = []resource.URN{}
		}
	}
	return deps
}

// outputDependencies are the dependencies of a constructed component's
// outputs, as Pulumi's engine answers them: those Construct named, and
// those of the output values in the outputs, at any depth. Nil when there
// are none.
func outputDependencies(resp providers.ConstructResponse) map[resource.PropertyKey][]resource.URN {
	var deps map[resource.PropertyKey][]resource.URN
	add := func(k resource.PropertyKey, urns []resource.URN) {
		if len(urns) == 0 {
			return
		}
		if deps == nil {
			deps = map[resource.PropertyKey][]resource.URN{}
		}
		deps[k] = addDependencies(deps[k], urns)
	}
	for k, urns := range resp.OutputDependencies {
		add(k, urns)
	}
	for k, v := range resp.Outputs {
		add(k, outputValueDependencies(nil, v))
	}
	return deps
}

// outputValueDependencies adds to deps the dependencies of the output
// values in v: v itself, the value a known output holds, and the elements
// of objects and arrays.
func outputValueDependencies(deps []resource.URN, v resource.PropertyValue) []resource.URN {
	switch {
	case v.IsOutput():
		o := v.OutputValue()
		if o.Known {
			deps = outputValueDependencies(deps, o.Element)
		}
		deps = addDependencies(deps, o.Dependencies)
	case v.IsObject():
		for _, e := range v.ObjectValue() {
			deps = outputValueDependencies(deps, e)
		}
	case v.IsArray():
		for _, e := range v.ArrayValue() {
			deps = outputValueDependencies(deps, e)
		}
	}
	return deps
}

// addDependencies appends to deps those of urns it does not hold yet.
func addDependencies(deps, urns []resource.URN) []resource.URN {
	for _, u := range urns {
		if !slices.Contains(deps, u) {
			deps = append(deps, u)
		}
	}
	return deps
}
