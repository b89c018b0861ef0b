package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/groundwork-iac/groundwork/executor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/builtin"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// This file is the engine loop: the one goroutine that owns the step
// generator. Registrations arrive as requests, provider calls the generator
// asks for run on their own goroutines and come back as answers, and the
// chains it issues go to the executor. The generator itself never blocks.
//
// Requests and answers reach the loop through an inbox rather than a
// channel: whoever posts one never waits for the loop, and the loop takes
// everything waiting at each wake-up. A registration is answered through a
// callback when its step has completed, so nothing has to sit parked for
// the length of a step (see BENCHMARKS.md).

type requestKind int

const (
	reqRegister requestKind = iota
	reqRead
	reqOutputs
)

type request struct {
	kind    requestKind
	goal    *resource.Goal
	id      resource.ID
	urn     resource.URN
	outputs resource.PropertyMap
	// done receives the outcome, exactly once, from whichever goroutine
	// completes the registration.
	done func(regResult)
}

type regResult struct {
	res providers.RegisterResult
	err error
	// step is set when err is the outcome of the registration's step: it
	// failed, or was skipped because a resource it needs did not succeed.
	step *stepOutcome
}

// inbox holds the requests and answers the loop has yet to handle.
type inbox struct {
	mu       sync.Mutex
	requests []*request
	answers  []*stepgen.Answer
	closed   bool
	// wake holds a token while the inbox has something the loop has not
	// taken yet.
	wake chan struct{}
}

func newInbox() *inbox { return &inbox{wake: make(chan struct{}, 1)} }

// postRequest queues r for the loop; false if the loop has ended.
func (b *inbox) postRequest(r *request) bool {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return false
	}
	b.requests = append(b.requests, r)
	b.mu.Unlock()
	b.signal()
	return true
}

// postAnswer queues a provider call's answer; it is dropped once the loop
// has ended (the operation was cancelled and nothing waits for it).
func (b *inbox) postAnswer(a *stepgen.Answer) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.answers = append(b.answers, a)
	b.mu.Unlock()
	b.signal()
}

func (b *inbox) signal() {
	select {
	case b.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// take swaps out everything queued for the empty slices given.
func (b *inbox) take(reqs []*request, ans []*stepgen.Answer) ([]*request, []*stepgen.Answer) {
	b.mu.Lock()
	reqs, b.requests = b.requests, reqs
	ans, b.answers = b.answers, ans
	b.mu.Unlock()
	return reqs, ans
}

// close refuses everything posted from now on and returns the requests
// still queued, for the caller to answer.
func (b *inbox) close() []*request {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	reqs := b.requests
	b.requests, b.answers = nil, nil
	return reqs
}

// loop runs until stop is closed. Everything it does is quick: it never
// waits on a provider.
func (d *deployment) loop(ctx context.Context) {
	defer close(d.loopDone)
	var reqs []*request
	var ans []*stepgen.Answer
	for {
		select {
		case <-d.inbox.wake:
		case <-d.stop:
			for _, r := range d.inbox.close() {
				r.done(regResult{err: errDeploymentOver})
			}
			return
		}
		reqs, ans = d.inbox.take(reqs, ans)
		for _, a := range ans {
			d.handleAnswer(ctx, a)
		}
		for _, r := range reqs {
			d.handleRequest(ctx, r)
		}
		clear(ans) // drop the references: the slices are reused
		clear(reqs)
		reqs, ans = reqs[:0], ans[:0]
	}
}

func (d *deployment) handleRequest(ctx context.Context, r *request) {
	reg := &stepgen.Registration{}
	var acts stepgen.Actions
	var err error
	switch r.kind {
	case reqRegister:
		reg.Goal = r.goal
		acts, err = d.gen.Register(reg)
	case reqRead:
		reg.Goal = r.goal
		acts, err = d.gen.Read(reg, r.id)
	case reqOutputs:
		if isStack(r.urn) {
			d.holdStackOutputs(r)
			return
		}
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
		r.done(regResult{err: err})
		return
	}
	d.addWaiter(reg, r.done)
	d.dispatch(ctx, acts)
}

func (d *deployment) handleAnswer(ctx context.Context, a *stepgen.Answer) {
	acts, err := d.gen.Answer(*a)
	if err != nil {
		d.noteError(err)
		d.complete(a.Call.Reg, regResult{err: err})
		return
	}
	d.dispatch(ctx, acts)
}

// dispatch starts the provider calls and submits the chains the generator
// asked for; quick chains go to the quick lane.
func (d *deployment) dispatch(ctx context.Context, acts stepgen.Actions) {
	for _, c := range acts.Calls {
		d.callers.start(ctx, c)
	}
	for _, ch := range acts.Chains {
		if !d.quick(ch) {
			d.submit(ctx, ch)
			continue
		}
		if run, _ := d.order.admit(ctx, ch, false); run {
			d.lane.push(ctx, ch)
		}
	}
}

func (d *deployment) submit(ctx context.Context, ch stepgen.Chain) {
	quick := d.quick(ch)
	if run, held := d.order.admit(ctx, ch, quick); run {
		d.execute(ctx, ch, quick, held)
	}
}

// quick reports whether a chain runs without a goroutine of its own: its
// steps call no provider, journal no begin (which waits for a sync) and
// run no resource hooks — an unchanged resource, a component, every
// custom resource of a preview.
func (d *deployment) quick(ch stepgen.Chain) bool {
	for _, s := range ch.Steps {
		if !s.Local() || (d.journal != nil && s.JournalOp() != "") || d.runsHooks(s) {
			return false
		}
	}
	return true
}

// execute hands a chain admitted by d.order to the executor; held says
// its steps hold their resources in d.order (see resourceOrder.admit).
func (d *deployment) execute(ctx context.Context, ch stepgen.Chain, quick, held bool) {
	steps := d.runSteps(ch.Steps, held)
	if err := d.exec.Execute(ctx, executor.Chain{Steps: steps, Needs: ch.Needs, Quick: quick}); err != nil {
		for _, es := range steps {
			rs := es.(*runStep)
			if rs.Reg != nil {
				d.complete(rs.Reg, regResult{err: err})
			}
			d.released(rs)
		}
	}
}

// runSteps wraps a chain's steps for the executor, in one allocation for
// the common chain of one step.
func (d *deployment) runSteps(steps []*stepgen.Step, held bool) []executor.Step {
	if len(steps) == 1 {
		one := &struct {
			rs   runStep
			list [1]executor.Step
		}{rs: runStep{Step: steps[0], held: held, d: d}}
		one.list[0] = &one.rs
		return one.list[:]
	}
	rs := make([]runStep, len(steps))
	out := make([]executor.Step, len(steps))
	for i, s := range steps {
		rs[i] = runStep{Step: s, held: held, d: d}
		out[i] = &rs[i]
	}
	return out
}

// released ends a step's hold on its resource and runs the chains that
// were waiting for it.
func (d *deployment) released(rs *runStep) {
	if !rs.held {
		return
	}
	for _, q := range d.order.release(rs.URN()) {
		d.execute(q.ctx, q.chain, d.quick(q.chain), true)
	}
}

// call makes one provider call for the generator, on a goroutine of the
// deployment's callers, so that calls for different resources overlap.
//
// The answer lives on the heap, and the calls are made by ask and
// diffAfterCheck below it, so that this goroutine's frames, down through
// the registry's guards into the provider, fit in the stack a goroutine
// starts with: one that grows must be copied, and its larger stack freed
// again when it ends (BENCHMARKS.md).
func (d *deployment) call(ctx context.Context, c *stepgen.Call) {
	ans := &stepgen.Answer{Call: c}
	d.ask(ctx, c, ans)
	d.inbox.postAnswer(ans)
}

// ask makes the provider call c asks for and fills in ans.
func (d *deployment) ask(ctx context.Context, c *stepgen.Call, ans *stepgen.Answer) {
	if c.Kind == stepgen.CallAnalyze {
		ans.Err = d.analyze(ctx, c.New)
		return
	}
	p, err := d.Provider(c.Provider, c.Type)
	if err != nil {
		ans.Err = err
		return
	}
	switch c.Kind {
	case stepgen.CallCheck:
		check(ctx, p, c, ans)
		if c.DiffAfterCheck && ans.Err == nil && len(ans.Check.Failures) == 0 {
			diffAfterCheck(ctx, p, c, ans)
		}
	case stepgen.CallDiff:
		diff(ctx, p, c, ans)
	default:
		ans.Err = fmt.Errorf("unknown provider call %d", c.Kind)
	}
}

//go:noinline
func check(ctx context.Context, p providers.Provider, c *stepgen.Call, ans *stepgen.Answer) {
	ans.Check, ans.Err = p.Check(ctx, c.Check)
}

//go:noinline
func diff(ctx context.Context, p providers.Provider, c *stepgen.Call, ans *stepgen.Answer) {
	ans.Diff, ans.Err = p.Diff(ctx, c.Diff)
	if ans.Err == nil {
		nameChangedKeys(&ans.Diff, c.Diff.OldInputs, c.Diff.NewInputs)
	}
}

// nameChangedKeys fills in the changed keys of a Diff answer that reports
// changes without naming them, here rather than on the engine loop, which
// would otherwise compare the inputs itself (stepgen.ChangedKeys).
func nameChangedKeys(d *resource.DiffResult, olds, news resource.PropertyMap) {
	if d.Changes == resource.DiffSome && len(d.ChangedKeys) == 0 {
		d.ChangedKeys = stepgen.ChangedKeys(*d, olds, news)
	}
}

// diffAfterCheck answers the generator's next question, the Diff that
// follows a successful Check, now rather than after a round trip through
// the loop.
//
//go:noinline
func diffAfterCheck(ctx context.Context, p providers.Provider, c *stepgen.Call, ans *stepgen.Answer) {
	req := c.Diff
	if req.NewInputs = ans.Check.Inputs; req.NewInputs == nil {
		req.NewInputs = resource.PropertyMap{}
	}
	ans.Diff, ans.DiffErr = p.Diff(ctx, req)
	ans.Diffed = true
	if ans.DiffErr == nil {
		nameChangedKeys(&ans.Diff, req.OldInputs, req.NewInputs)
	}
}

// post hands a request to the loop; done is called with its outcome, once,
// possibly before post returns. Errors the deployment has already counted
// reach done wrapped in a *reportedError.
func (d *deployment) post(r *request, done func(providers.RegisterResult, error)) {
	r.done = func(res regResult) {
		if res.err != nil {
			done(res.res, &reportedError{err: res.err, step: res.step})
			return
		}
		done(res.res, nil)
	}
	if !d.inbox.postRequest(r) {
		done(providers.RegisterResult{}, errDeploymentOver)
	}
}

// send hands a request to the loop and waits for its outcome.
func (d *deployment) send(ctx context.Context, r *request) (providers.RegisterResult, error) {
	type outcome struct {
		res providers.RegisterResult
		err error
	}
	ch := make(chan outcome, 1)
	d.post(r, func(res providers.RegisterResult, err error) { ch <- outcome{res, err} })
	select {
	case o := <-ch:
		return o.res, o.err
	case <-ctx.Done():
		return providers.RegisterResult{}, &reportedError{err: context.Cause(ctx)}
	}
}

// RegisterResource implements monitor.Deployer.
func (d *deployment) RegisterResource(ctx context.Context, goal resource.Goal) (providers.RegisterResult, error) {
	return d.send(ctx, &request{kind: reqRegister, goal: &goal})
}

// RegisterResourceAsync implements monitor.AsyncDeployer: the deployment
// takes goal over, and done is called once the resource's step has
// completed (or the registration failed).
func (d *deployment) RegisterResourceAsync(_ context.Context, goal *resource.Goal, done func(providers.RegisterResult, error)) {
	d.post(&request{kind: reqRegister, goal: goal}, done)
}

// ReadResource implements monitor.Deployer.
func (d *deployment) ReadResource(ctx context.Context, goal resource.Goal, id resource.ID) (providers.RegisterResult, error) {
	return d.send(ctx, &request{kind: reqRead, goal: &goal, id: id})
}

// RegisterResourceOutputs implements monitor.Deployer.
func (d *deployment) RegisterResourceOutputs(ctx context.Context, urn resource.URN, outputs resource.PropertyMap) error {
	_, err := d.send(ctx, &request{kind: reqOutputs, urn: urn, outputs: outputs})
	return err
}

// Provider resolves a provider reference for steps, calls and the monitor:
// provider resources are served by the registry itself, and the built-in
// "pulumi" package (its provider resources and the references to them) by
// the deployment's own provider.
func (d *deployment) Provider(ref, typ string) (providers.Provider, error) {
	if resource.IsProviderType(typ) {
		if typ == builtin.ProviderType {
			return d.builtin, nil
		}
		return d.registry, nil
	}
	if ref == "" {
		return nil, fmt.Errorf("no provider for a resource of type %s", typ)
	}
	r, err := d.parseReference(ref)
	if err != nil {
		return nil, err
	}
	p, ok := d.registry.Get(r)
	if !ok {
		if r.URN.Type() == builtin.ProviderType {
			return d.builtin, nil
		}
		return nil, fmt.Errorf("provider %s is unknown: it was neither registered in this run nor recorded in the stack's state", ref)
	}
	return p, nil
}

// ChooseVersion implements monitor.VersionChooser: the registry knows
// which version of a package's provider serves a token (a built-in
// provider serves the types it declares, a plugin of its package the
// others); the built-in "pulumi" package has one provider.
func (d *deployment) ChooseVersion(ctx context.Context, pkg, version, token string) (string, error) {
	if pkg == builtin.Package {
		return version, nil
	}
	return d.registry.ChooseVersion(ctx, pkg, version, token)
}

// parseReference parses a provider reference, remembering the result: every
// provider call and step resolves one, and nearly all name the same few.
func (d *deployment) parseReference(ref string) (providers.Reference, error) {
	if r, ok := d.refs.Load(ref); ok {
		return r.(providers.Reference), nil
	}
	r, err := providers.ParseReference(ref)
	if err != nil {
		return providers.Reference{}, err
	}
	d.refs.Store(ref, r)
	return r, nil
}
