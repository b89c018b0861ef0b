// Command wiring deploys two resources by wiring the engine's parts by hand —
// a provider Registry, a step Generator, an Executor and a Monitor — without
// package engine. It is the shape a host takes when it needs something the
// engine does not offer (its own scheduler, a registry kept warm across
// deployments): this host makes provider calls one at a time and keeps no
// state between runs.
package main

import (
	"context"
	"fmt"
	"log"
	"sync"

	"github.com/groundwork-iac/groundwork/executor"
	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// host is the Monitor's Deployer and the Executor's hooks: it feeds each
// registration to the generator, answers its provider calls, runs its steps
// and reports each step's outcome back to the waiting registration.
type host struct {
	executor.NoopHooks
	registry *providers.Registry
	exec     *executor.Executor
	mu       sync.Mutex // the generator is single-threaded
	gen      *stepgen.Generator
	waiting  sync.Map // *stepgen.Registration → chan error
}

// Provider resolves references for steps and the monitor.
func (h *host) Provider(ref, typ string) (providers.Provider, error) {
	if resource.IsProviderType(typ) {
		return h.registry, nil
	}
	r, err := providers.ParseReference(ref)
	if err != nil {
		return nil, err
	}
	if p, ok := h.registry.Get(r); ok {
		return p, nil
	}
	return nil, fmt.Errorf("unknown provider %s", ref)
}

func (h *host) RegisterResource(ctx context.Context, goal resource.Goal) (providers.RegisterResult, error) {
	reg := &stepgen.Registration{Goal: &goal}
	done := make(chan error, 1)
	h.waiting.Store(reg, done)
	h.mu.Lock()
	acts, err := h.gen.Register(reg)
	for err == nil && len(acts.Calls) > 0 { // answer calls inline, one by one
		c := acts.Calls[0]
		ans := stepgen.Answer{Call: c}
		if p, perr := h.Provider(c.Provider, c.Type); perr != nil {
			ans.Err = perr
		} else if c.Kind == stepgen.CallCheck {
			ans.Check, ans.Err = p.Check(ctx, c.Check)
		} else {
			ans.Diff, ans.Err = p.Diff(ctx, c.Diff)
		}
		acts, err = h.gen.Answer(ans)
	}
	h.mu.Unlock()
	if err != nil {
		return providers.RegisterResult{}, err
	}
	for _, ch := range acts.Chains {
		steps := make([]executor.Step, len(ch.Steps))
		for i, s := range ch.Steps {
			steps[i] = s
		}
		if err := h.exec.Execute(ctx, executor.Chain{Steps: steps, Needs: ch.Needs}); err != nil {
			return providers.RegisterResult{}, err
		}
	}
	if err := <-done; err != nil {
		return providers.RegisterResult{}, err
	}
	h.mu.Lock()
	s := h.gen.State(reg.URN)
	h.mu.Unlock()
	return providers.RegisterResult{URN: reg.URN, ID: s.ID, Outputs: s.Outputs}, nil
}

// StepDone answers the registration a step completes.
func (h *host) StepDone(ctx context.Context, es executor.Step, err error) error {
	s := es.(*stepgen.Step)
	if ch, ok := h.waiting.LoadAndDelete(s.Reg); ok {
		ch.(chan error) <- err
	}
	fmt.Printf("%-7s %s\n", s.Op, s.URN())
	return nil
}

func (h *host) RegisterResourceOutputs(context.Context, resource.URN, resource.PropertyMap) error {
	return nil
}
func (h *host) ReadResource(context.Context, resource.Goal, resource.ID) (providers.RegisterResult, error) {
	return providers.RegisterResult{}, providers.ErrNotImplemented
}

func main() {
	ctx := context.Background()
	h := &host{registry: providers.NewRegistry()}
	next := 0
	demo := &providers.Func{CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
		next++
		return providers.CreateResponse{ID: resource.ID(fmt.Sprint("thing-", next)), Outputs: req.Inputs}, nil
	}}
	if err := h.registry.RegisterFactory("demo", "1.0.0", func(context.Context) (providers.Provider, error) { return demo, nil }); err != nil {
		log.Fatal(err)
	}
	h.gen, _ = stepgen.New(stepgen.Config{Stack: "dev", Project: "wiring", Providers: h})
	h.exec = executor.New(executor.Options{Parallelism: 1, Hooks: h})
	mon := monitor.New(monitor.Config{Deployer: h, Providers: h})

	a, err := mon.RegisterResource(ctx, resource.Goal{Type: "demo:index:Thing", Name: "a", Custom: true})
	if err != nil {
		log.Fatal(err)
	}
	_, err = mon.RegisterResource(ctx, resource.Goal{Type: "demo:index:Thing", Name: "b", Custom: true,
		Inputs: resource.PropertyMap{"peer": resource.NewString(string(a.ID))}, Dependencies: []resource.URN{a.URN}})
	if err != nil {
		log.Fatal(err)
	}
	if err := h.exec.Wait(); err != nil {
		log.Fatal(err)
	}
}
