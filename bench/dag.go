// This file holds workload W5 (a random DAG) and the check that its
// deletes ran in antichains.

package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// W5: a deep graph. n resources in a random DAG (seeded): each depends on
// up to three earlier ones. The provider checks that every create finds
// its dependencies and every delete finds its dependents gone, and that
// deletes run antichain by antichain.

var w5 = &workload{
	name: "W5", ops: []string{"create", "destroy"}, smallN: 1000,
	provider: func(b *bench) providers.Provider {
		b.deps = randomDAG(b.s.N, b.s.Seed)
		b.order = newOrderCheck(b.deps)
		return b.order.provider()
	},
	setup0: func(b *bench, _ string) error {
		_, err := b.up(dagProgram(b.deps))
		return err
	},
	run: func(b *bench, op string) (*engine.Result, error) {
		// The check covers only the measured operation.
		b.order.reset(op == "destroy")
		if op == "destroy" {
			return b.destroy()
		}
		return b.up(dagProgram(b.deps))
	},
	check: func(b *bench, op string, res *engine.Result) (extra, error) {
		want := map[string]engine.StepOp{"create": engine.StepCreate, "destroy": engine.StepDelete}[op]
		if err := expectCount(res, want, b.s.N); err != nil {
			return extra{}, err
		}
		layers, ok := b.order.verdict(op == "destroy")
		if !ok {
			return extra{}, fmt.Errorf("%w: %s", errOrder, b.order.firstViolation())
		}
		return extra{antichains: layers, orderOK: &ok}, nil
	},
}

// randomDAG returns, for each of n resources, up to three distinct earlier
// resources it depends on.
func randomDAG(n int, seed int64) [][]int {
	r := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	deps := make([][]int, n)
	for i := 1; i < n; i++ {
		k := r.IntN(min(i, 3) + 1)
		for len(deps[i]) < k {
			j := r.IntN(i)
			if !slices.Contains(deps[i], j) {
				deps[i] = append(deps[i], j)
			}
		}
	}
	return deps
}

func dagProgram(deps [][]int) engine.Program {
	return func(ctx *engine.Context) error {
		rs := make([]*engine.Resource, len(deps))
		for i, ds := range deps {
			var opts []engine.ResourceOption
			if len(ds) > 0 {
				on := make([]engine.Handle, len(ds))
				for k, j := range ds {
					on[k] = rs[j]
				}
				opts = append(opts, engine.DependsOn(on...))
			}
			rs[i] = ctx.Register(thing, "n"+strconv.Itoa(i), engine.Props{"index": strconv.Itoa(i)}, opts...)
		}
		return nil
	}
}

// orderCheck is W5's provider state: which resources exist, and the order
// in which deletes started and ended.
type orderCheck struct {
	deps       [][]int
	dependents [][]int
	// layer is each resource's delete antichain, as the reference engine
	// cuts them: a resource comes as late as its dependencies allow, at
	// its height (the longest chain of dependencies below it), highest
	// first.
	layer []int

	mu         sync.Mutex
	live       []bool
	violations []string
	clock      atomic.Int64
	start, end []int64
}

func newOrderCheck(deps [][]int) *orderCheck {
	n := len(deps)
	o := &orderCheck{deps: deps, dependents: make([][]int, n), layer: make([]int, n), live: make([]bool, n),
		start: make([]int64, n), end: make([]int64, n)}
	for i, ds := range deps {
		for _, j := range ds {
			o.dependents[j] = append(o.dependents[j], i)
		}
	}
	height, top := make([]int, n), 0
	for i, ds := range deps { // dependencies come earlier, so are done first
		for _, j := range ds {
			height[i] = max(height[i], height[j]+1)
		}
		top = max(top, height[i])
	}
	for i := range o.layer {
		o.layer[i] = top - height[i]
	}
	return o
}

func (o *orderCheck) reset(live bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range o.live {
		o.live[i] = live
	}
	o.violations = nil
	clear(o.start)
	clear(o.end)
}

func (o *orderCheck) index(urn resource.URN) int {
	i, _ := strconv.Atoi(urn.Name()[1:])
	return i
}

func (o *orderCheck) provider() *providers.Func {
	p := noop()
	p.CreateF = func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
		i := o.index(req.URN)
		o.mu.Lock()
		for _, j := range o.deps[i] {
			if !o.live[j] {
				o.violations = append(o.violations, fmt.Sprintf("n%d created before its dependency n%d", i, j))
			}
		}
		o.live[i] = true
		o.mu.Unlock()
		return providers.CreateResponse{ID: resource.ID("id-" + req.URN.Name()), Outputs: req.Inputs}, nil
	}
	p.DeleteF = func(_ context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
		i := o.index(req.URN)
		o.mu.Lock()
		o.start[i] = o.clock.Add(1)
		for _, k := range o.dependents[i] {
			if o.live[k] {
				o.violations = append(o.violations, fmt.Sprintf("n%d deleted before its dependent n%d", i, k))
			}
		}
		o.mu.Unlock()
		o.mu.Lock()
		o.live[i] = false
		o.end[i] = o.clock.Add(1)
		o.mu.Unlock()
		return providers.DeleteResponse{}, nil
	}
	return p
}

// verdict reports the number of antichains (deletes) or graph depth
// (creates) and whether the order held: for deletes, that every delete of
// antichain k ended before any delete of antichain k+1 started.
func (o *orderCheck) verdict(deletes bool) (int, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	depth := 0
	for _, l := range o.layer {
		depth = max(depth, l+1)
	}
	if !deletes {
		return depth, len(o.violations) == 0
	}
	lastEnd := make([]int64, depth)
	firstStart := make([]int64, depth)
	for i, l := range o.layer {
		lastEnd[l] = max(lastEnd[l], o.end[i])
		if firstStart[l] == 0 || o.start[i] < firstStart[l] {
			firstStart[l] = o.start[i]
		}
	}
	for l := 0; l+1 < depth; l++ {
		if lastEnd[l] > firstStart[l+1] {
			o.violations = append(o.violations, fmt.Sprintf("antichain %d started before antichain %d ended", l+1, l))
		}
	}
	return depth, len(o.violations) == 0
}

func (o *orderCheck) firstViolation() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.violations) == 0 {
		return ""
	}
	return fmt.Sprintf("%s (%d violations)", o.violations[0], len(o.violations))
}
