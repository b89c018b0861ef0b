package engine

import (
	"fmt"

	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// Transform rewrites a registration's inputs and options (its
// resource.Goal) before it reaches the step generator. Pass stack-wide
// transforms with the Transforms option, or add one to a running program
// with Context.RegisterTransform.
type Transform = monitor.Transform

// targets builds the target and exclude sets of the operation, extended to
// dependents when asked. Nil means "everything".
func (d *deployment) targets(snap *state.Snapshot) (targets, excludes map[resource.URN]bool, err error) {
	if len(d.opts.targets) == 0 && len(d.opts.excludes) == 0 {
		return nil, nil, nil
	}
	var graph *resource.Graph
	if d.opts.targetDependents {
		var live []*resource.State
		for _, s := range snap.Resources {
			if !s.Delete {
				live = append(live, s)
			}
		}
		if graph, err = resource.NewGraph(live); err != nil {
			return nil, nil, fmt.Errorf("computing the dependents of the targets: %w", err)
		}
	}
	set := func(urns []resource.URN) (map[resource.URN]bool, error) {
		if len(urns) == 0 {
			return nil, nil
		}
		m := make(map[resource.URN]bool, len(urns))
		for _, u := range urns {
			if _, err := resource.ParseURN(string(u)); err != nil {
				return nil, fmt.Errorf("target %q: %w", u, err)
			}
			m[u] = true
		}
		if graph != nil {
			for _, u := range graph.TransitiveDependents(urns...) {
				m[u] = true
			}
		}
		return m, nil
	}
	if targets, err = set(d.opts.targets); err != nil {
		return nil, nil, err
	}
	if excludes, err = set(d.opts.excludes); err != nil {
		return nil, nil, err
	}
	return targets, excludes, nil
}
