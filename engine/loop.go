package engine

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/executor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// This file is the engine loop: the one goroutine that owns the step
// generator. Registrations arrive as requests, provider calls the generator
// asks for run on their own goroutines and come back as answers, and the
// chains it issues go to the executor. The generator itself never blocks.

type requestKind int

const (
	reqRegister requestKind = iota
	reqRead
	reqOutputs
)

type request struct {
	kind    requestKind
	goal    resource.Goal
	id      resource.ID
	urn     resource.URN
	outputs resource.PropertyMap
	reply   chan regResult
}

type regResult struct {
	res providers.RegisterResult
	err error
}

// loop runs until stop is closed. Everything it does is quick: it never
// waits on a provider.
func (d *deployment) loop(ctx context.Context) {
	defer close(d.loopDone)
	for {
		select {
		case r := <-d.requests:
			d.handleRequest(ctx, r)
		case a := <-d.answers:
			d.handleAnswer(ctx, a)
		case <-d.stop:
			return
		}
	}
}

func (d *deployment) handleRequest(ctx context.Context, r *request) {
	reg := &stepgen.Registration{Goal: r.goal}
	var acts stepgen.Actions
	var err error
	switch r.kind {
	case reqRegister:
		acts, err = d.gen.Register(reg)
	case reqRead:
		acts, err = d.gen.Read(reg, r.id)
	case reqOutputs:
		var chain stepgen.Chain
		chain, err = d.gen.RegisterOutputs(r.urn, r.outputs)
		if err == nil {
			reg.URN = r.urn
			chain.Steps[0].Reg = reg
			acts.Chains = []stepgen.Chain{chain}
		}
	}
	if err != nil {
		d.noteError(err)
		r.reply <- regResult{err: err}
		return
	}
	d.addWaiter(reg, r.reply)
	d.dispatch(ctx, acts)
}

func (d *deployment) handleAnswer(ctx context.Context, a stepgen.Answer) {
	acts, err := d.gen.Answer(a)
	if err != nil {
		d.noteError(err)
		d.complete(a.Call.Reg, regResult{err: err})
		return
	}
	d.dispatch(ctx, acts)
}

// dispatch starts the provider calls and submits the chains the generator
// asked for.
func (d *deployment) dispatch(ctx context.Context, acts stepgen.Actions) {
	for _, c := range acts.Calls {
		d.calls.Add(1)
		go d.call(ctx, c)
	}
	for _, ch := range acts.Chains {
		d.submit(ctx, ch)
	}
}

func (d *deployment) submit(ctx context.Context, ch stepgen.Chain) {
	if d.order.admit(ctx, ch) {
		d.execute(ctx, ch)
	}
}

// execute hands a chain admitted by d.order to the executor.
func (d *deployment) execute(ctx context.Context, ch stepgen.Chain) {
	steps := make([]executor.Step, len(ch.Steps))
	for i, s := range ch.Steps {
		steps[i] = s
	}
	if err := d.exec.Execute(ctx, executor.Chain{Steps: steps, Needs: ch.Needs}); err != nil {
		for _, s := range ch.Steps {
			if s.Reg != nil {
				d.complete(s.Reg, regResult{err: err})
			}
			d.released(s)
		}
	}
}

// released ends a step's hold on its resource and runs the chains that
// were waiting for it.
func (d *deployment) released(s *stepgen.Step) {
	for _, q := range d.order.release(s.URN()) {
		d.execute(q.ctx, q.chain)
	}
}

// call makes one provider call for the generator on its own goroutine, so
// that calls for different resources overlap.
func (d *deployment) call(ctx context.Context, c *stepgen.Call) {
	defer d.calls.Done()
	ans := stepgen.Answer{Call: c}
	if c.Kind == stepgen.CallAnalyze {
		ans.Err = d.analyze(ctx, c.New)
		d.answer(ans)
		return
	}
	p, err := d.Provider(c.Provider, c.Type)
	if err != nil {
		ans.Err = err
	} else {
		switch c.Kind {
		case stepgen.CallCheck:
			ans.Check, ans.Err = p.Check(ctx, c.Check)
		case stepgen.CallDiff:
			ans.Diff, ans.Err = p.Diff(ctx, c.Diff)
		default:
			ans.Err = fmt.Errorf("unknown provider call %d", c.Kind)
		}
	}
	d.answer(ans)
}

// answer hands a call's result back to the loop (or drops it if the loop
// has ended because the operation was cancelled).
func (d *deployment) answer(ans stepgen.Answer) {
	select {
	case d.answers <- ans:
	case <-d.loopDone:
	}
}

// send hands a request to the loop and waits for its reply. Requests go
// by pointer: a registration's goroutine waits here for the whole of its
// step, and a request (goal included) copied into each frame on the way
// used to push that goroutine's stack past 4 KiB (see BENCHMARKS.md).
func (d *deployment) send(ctx context.Context, r *request) (providers.RegisterResult, error) {
	r.reply = make(chan regResult, 1)
	select {
	case d.requests <- r:
	case <-d.loopDone:
		return providers.RegisterResult{}, errDeploymentOver
	case <-ctx.Done():
		return providers.RegisterResult{}, context.Cause(ctx)
	}
	select {
	case res := <-r.reply:
		if res.err != nil {
			return res.res, &reportedError{err: res.err}
		}
		return res.res, nil
	case <-ctx.Done():
		return providers.RegisterResult{}, &reportedError{err: context.Cause(ctx)}
	}
}

// RegisterResource implements monitor.Deployer.
func (d *deployment) RegisterResource(ctx context.Context, goal resource.Goal) (providers.RegisterResult, error) {
	return d.send(ctx, &request{kind: reqRegister, goal: goal})
}

// ReadResource implements monitor.Deployer.
func (d *deployment) ReadResource(ctx context.Context, goal resource.Goal, id resource.ID) (providers.RegisterResult, error) {
	return d.send(ctx, &request{kind: reqRead, goal: goal, id: id})
}

// RegisterResourceOutputs implements monitor.Deployer.
func (d *deployment) RegisterResourceOutputs(ctx context.Context, urn resource.URN, outputs resource.PropertyMap) error {
	_, err := d.send(ctx, &request{kind: reqOutputs, urn: urn, outputs: outputs})
	return err
}

// Provider resolves a provider reference for steps, calls and the monitor:
// provider resources are served by the registry itself.
func (d *deployment) Provider(ref, typ string) (providers.Provider, error) {
	if resource.IsProviderType(typ) {
		return d.registry, nil
	}
	if ref == "" {
		return nil, fmt.Errorf("no provider for a resource of type %s", typ)
	}
	r, err := providers.ParseReference(ref)
	if err != nil {
		return nil, err
	}
	p, ok := d.registry.Get(r)
	if !ok {
		return nil, fmt.Errorf("provider %s is unknown: it was neither registered in this run nor recorded in the stack's state", ref)
	}
	return p, nil
}
