// Command wiring deploys a stack by wiring the engine's parts by hand — a
// provider Registry, a Monitor, a step Generator and an Executor's walker —
// as a host does that needs what package engine does not offer. It gets the
// order engine.Up gets: the generator ties each step to the steps it needs,
// and the walker runs a step once those have succeeded. It makes provider
// calls one at a time and keeps no state (main.go runs it on a demo).
package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/groundwork-iac/groundwork/executor"
	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// host is the Monitor's Deployer. The generator is a state machine: every
// event goes to it under mu, and what it asks for is done at once.
type host struct {
	reg     *providers.Registry
	mu      sync.Mutex
	ended   *sync.Cond // a step has ended
	gen     *stepgen.Generator
	walker  *executor.Walker[*job]
	waiting map[*stepgen.Registration]chan stepgen.Reply
}

// job is a step in the walker, and its outcome once applied.
type job struct {
	s *stepgen.Step
	o *stepgen.Outcome
}

// handle carries out the generator's actions, with mu held: it answers
// calls in line, gives steps to the walker and replies to registrations.
func (h *host) handle(ctx context.Context, acts stepgen.Actions) {
	for _, s := range acts.Steps {
		_ = h.walker.Add(ctx, executor.Vertex[*job]{ID: s.ID, Needs: s.Needs, After: s.After, Value: &job{s: s}})
	}
	for _, r := range acts.Replies {
		h.waiting[r.Reg] <- r
	}
	for _, c := range acts.Calls {
		next, err := h.gen.Answer(stepgen.Ask(ctx, c, h.reg))
		if err != nil {
			next.Replies = []stepgen.Reply{{Reg: c.Reg, Err: err}}
		}
		h.handle(ctx, next)
	}
}

func (h *host) RegisterResource(ctx context.Context, goal resource.Goal) (providers.RegisterResult, error) {
	reg, reply := &stepgen.Registration{Goal: &goal}, make(chan stepgen.Reply, 1)
	h.mu.Lock()
	h.waiting[reg] = reply
	acts, err := h.gen.Register(reg)
	h.handle(ctx, acts)
	h.mu.Unlock()
	if err != nil {
		return providers.RegisterResult{}, err
	}
	select {
	case r := <-reply:
		return r.Result, r.Err
	case <-ctx.Done():
		return providers.RegisterResult{}, ctx.Err()
	}
}

func (h *host) ReadResource(context.Context, resource.Goal, resource.ID) (providers.RegisterResult, error) {
	return providers.RegisterResult{}, errors.New("this host reads no external resources")
}

func (h *host) RegisterResourceOutputs(context.Context, resource.URN, resource.PropertyMap) error {
	return errors.New("this host records no component outputs")
}

// up runs program over a stack that holds old, then deletes what the
// program no longer declares.
func up(ctx context.Context, reg *providers.Registry, old []*resource.State, program func(*monitor.Monitor) error) error {
	h := &host{reg: reg, waiting: map[*stepgen.Registration]chan stepgen.Reply{}}
	h.ended = sync.NewCond(&h.mu)
	var err error
	if h.gen, err = stepgen.New(stepgen.Config{Stack: "dev", Project: "wiring", Old: old}); err != nil {
		return err
	}
	visit := func(ctx context.Context, j *job) error {
		o := stepgen.Apply(ctx, j.s, h.reg, time.Now)
		j.o = &o
		return o.Err
	}
	h.walker = executor.New(executor.Options[*job]{Visit: visit, Ended: func(j *job, err error) {
		if j.o == nil { // skipped
			j.o = &stepgen.Outcome{Step: j.s, Err: err, Skipped: true}
		}
		fmt.Printf("%-7s %s\n", j.s.Op, j.s.URN())
		h.mu.Lock()
		defer h.mu.Unlock()
		h.handle(ctx, h.gen.Done(*j.o))
		h.ended.Broadcast()
	}})
	progErr := program(monitor.New(monitor.Config{Deployer: h, Providers: reg}))
	h.mu.Lock()
	for !h.gen.Settled() { // the deletes come once every step has ended
		h.ended.Wait()
	}
	if _, err := h.gen.Deletes(); err == nil && progErr == nil {
		h.handle(ctx, h.gen.StartDeletes())
	}
	h.mu.Unlock()
	return errors.Join(progErr, h.walker.Wait())
}
