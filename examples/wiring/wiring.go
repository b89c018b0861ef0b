// Package wiring deploys a stack with a provider Registry, a Monitor, a step Generator and a
// dag.Walker wired by hand, in engine.Up's order: each step names the steps it waits for.
package wiring

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/groundwork-iac/groundwork/dag"
	"github.com/groundwork-iac/groundwork/deploy"
	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// host is the Monitor's Deployer: events go to the generator under cond.L.
type host struct {
	reg     *providers.Registry
	gen     *stepgen.Generator
	walker  *dag.Walker[stepgen.Outcome] // a step, and how it went
	cond    *sync.Cond                   // signalled whenever a step has ended
	waiting map[*stepgen.Registration]func(providers.RegisterResult, error)
}

// handle carries out actions, cond.L held; it makes provider calls in line
// and answers registrations under cond.L (the Monitor's blocking
// RegisterResource only hands the answer over).
func (h *host) handle(ctx context.Context, acts stepgen.Actions) {
	for _, s := range acts.Steps {
		if err := h.walker.Add(ctx, dag.Vertex[stepgen.Outcome]{ID: s.ID, Needs: s.Needs, After: s.After, Value: stepgen.Outcome{Step: s}}); err != nil {
			h.handle(ctx, h.gen.Done(stepgen.Outcome{Step: s, Err: err}))
		}
	}
	for _, r := range acts.Replies {
		h.waiting[r.Reg](r.Result, r.Err)
		delete(h.waiting, r.Reg)
	}
	for _, c := range acts.Calls {
		next, _ := h.gen.Answer(deploy.Ask(ctx, c, h.reg)) // an error comes with its reply
		h.handle(ctx, next)
	}
}

func (h *host) RegisterResourceAsync(ctx context.Context, goal *resource.Goal, done func(providers.RegisterResult, error)) {
	reg := &stepgen.Registration{Goal: goal}
	h.cond.L.Lock()
	defer h.cond.L.Unlock()
	h.waiting[reg] = done
	acts, _ := h.gen.Register(reg) // an error comes with its reply
	h.handle(ctx, acts)
}

func (h *host) ReadResource(context.Context, resource.Goal, resource.ID) (providers.RegisterResult, error) {
	return providers.RegisterResult{}, errors.ErrUnsupported
}
func (h *host) RegisterResourceOutputs(context.Context, resource.URN, resource.PropertyMap) error {
	return errors.ErrUnsupported
}

// Up runs program over old (stack dev of project wiring), then deletes the rest.
func Up(ctx context.Context, reg *providers.Registry, old []*resource.State, program func(*monitor.Monitor) error) error {
	gen, err := stepgen.New(stepgen.Config{Stack: "dev", Project: "wiring", Old: old})
	if err = errors.Join(err, reg.Load(ctx, old)); err != nil {
		return err
	}
	h := &host{reg: reg, gen: gen, cond: sync.NewCond(new(sync.Mutex)), waiting: map[*stepgen.Registration]func(providers.RegisterResult, error){}}
	h.walker = dag.New(dag.Options[stepgen.Outcome]{Visit: func(ctx context.Context, o *stepgen.Outcome) error {
		*o = deploy.Apply(ctx, o.Step, reg, time.Now)
		return o.Err
	}, Ended: func(o *stepgen.Outcome, err error) { // on the goroutine that ran Visit
		if err != nil && o.Err == nil { // skipped, or Visit panicked
			*o = stepgen.Outcome{Step: o.Step, Err: err, Skipped: errors.As(err, new(*dag.SkippedError))}
		}
		h.cond.L.Lock()
		defer h.cond.L.Unlock()
		h.handle(ctx, h.gen.Done(*o))
		h.cond.Broadcast()
	}})
	progErr := program(monitor.New(monitor.Config{Deployer: h, Providers: reg}))
	h.cond.L.Lock()
	settle := func() { // until all that was issued has ended
		for !h.gen.Settled() {
			h.cond.Wait()
		}
	}
	if settle(); progErr == nil {
		_, progErr = h.gen.Deletes()
		h.handle(ctx, h.gen.StartDeletes()) // nothing, should Deletes have failed
		settle()
	}
	h.cond.L.Unlock()
	return errors.Join(progErr, h.walker.Wait())
}
