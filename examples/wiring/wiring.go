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
	cond    *sync.Cond                   // signalled whenever the generator has had an event
	waiting map[*stepgen.Registration]func(providers.RegisterResult, error)
}

// feed gives an event to the generator and the steps it issues to the walker under cond.L, then
// answers registrations and makes provider calls without it: a done may register again at once.
func (h *host) feed(ctx context.Context, event func() stepgen.Actions) {
	h.cond.L.Lock()
	acts, replies := event(), []func(){}
	for i := 0; i < len(acts.Steps); i++ { // a step the walker refuses ends at once
		s := acts.Steps[i]
		if err := h.walker.Add(ctx, dag.Vertex[stepgen.Outcome]{ID: s.ID, Needs: s.Needs, After: s.After, Value: stepgen.Outcome{Step: s}}); err != nil {
			more := h.gen.Done(stepgen.Outcome{Step: s, Err: err})
			acts.Steps, acts.Replies, acts.Calls = append(acts.Steps, more.Steps...), append(acts.Replies, more.Replies...), append(acts.Calls, more.Calls...)
		}
	}
	for _, r := range acts.Replies {
		done := h.waiting[r.Reg]
		delete(h.waiting, r.Reg)
		replies = append(replies, func() { done(r.Result, r.Err) })
	}
	h.cond.Broadcast()
	h.cond.L.Unlock()
	for _, reply := range replies {
		reply()
	}
	for _, c := range acts.Calls {
		answer := deploy.Ask(ctx, c, h.reg)
		h.feed(ctx, func() stepgen.Actions { next, _ := h.gen.Answer(answer); return next }) // an error comes with its reply
	}
}

func (h *host) RegisterResourceAsync(ctx context.Context, goal *resource.Goal, done func(providers.RegisterResult, error)) {
	reg := &stepgen.Registration{Goal: goal}
	h.feed(ctx, func() stepgen.Actions { h.waiting[reg] = done; acts, _ := h.gen.Register(reg); return acts }) // an error comes with its reply
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
		h.feed(ctx, func() stepgen.Actions { return h.gen.Done(*o) })
	}})
	progErr := program(monitor.New(monitor.Config{Deployer: h, Providers: reg}))
	settle := func() { // until all that was issued has ended
		h.cond.L.Lock()
		for !h.gen.Settled() {
			h.cond.Wait()
		}
		h.cond.L.Unlock()
	}
	if settle(); progErr == nil {
		h.feed(ctx, func() stepgen.Actions { _, progErr = h.gen.Deletes(); return h.gen.StartDeletes() }) // none if Deletes failed
		settle()
	}
	return errors.Join(progErr, h.walker.Wait())
}
