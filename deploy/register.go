package deploy

import (
	"context"

	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// The Host is the monitor's Deployer: each registration, read and
// component outputs the program sends becomes a request for the loop
// (loop.go), answered when the generator replies to it — once the
// resource's step has ended and its outcome is journaled — or at once
// when the generator refuses it.

type requestKind int

const (
	reqRegister requestKind = iota
	reqRead
	reqOutputs
)

type request struct {
	// reg is the registration the generator is given, kept in the
	// request so that one allocation carries both: its Goal for a
	// registration or a read, its URN for outputs. Its Waiter is the
	// request.
	reg stepgen.Registration
	// other is what a read or outputs request carries besides; nil for
	// a registration, the request a program makes most.
	other *otherRequest
	// answer receives the outcome, exactly once (done), and is nil from
	// then on.
	answer func(providers.RegisterResult, error)
}

// otherRequest is what a read or outputs request carries that a
// registration does not.
type otherRequest struct {
	kind    requestKind
	id      resource.ID          // a read's
	outputs resource.PropertyMap // an outputs request's
}

// kind returns what r asks for.
func (r *request) kind() requestKind {
	if r.other == nil {
		return reqRegister
	}
	return r.other.kind
}

// done answers r with res. Errors the host has already counted reach
// answer as a *monitor.ReportedError.
func (r *request) done(res regResult) {
	// The generator keeps r.reg, and so r, for the rest of the run: let
	// go of what the answer holds.
	answer := r.answer
	r.answer, r.other = nil, nil
	if res.err == nil {
		answer(res.res, nil)
		return
	}
	re := &monitor.ReportedError{Err: res.err}
	if res.step != nil {
		re.URN, re.Skipped = res.step.urn, res.step.skipped
	}
	answer(res.res, re)
}

type regResult struct {
	res providers.RegisterResult
	err error
	// step is set when err is the outcome of the registration's step: it
	// failed, or was skipped because a resource it needs did not succeed.
	step *stepOutcome
}

// stepOutcome is how the step of a registration that failed ended.
type stepOutcome struct {
	urn     resource.URN
	skipped bool // never ran, because a resource it needs did not succeed
}

// handleRequest gives a request to the generator, on the loop.
func (h *Host) handleRequest(ctx context.Context, r *request) {
	reg := &r.reg
	reg.Waiter = r
	var acts stepgen.Actions
	var err error
	switch r.kind() {
	case reqRegister:
		acts, err = h.gen.Register(reg)
	case reqRead:
		acts, err = h.gen.Read(reg, r.other.id)
	case reqOutputs:
		if isStack(reg.URN) {
			h.holdStackOutputs(r)
			return
		}
		acts, err = h.gen.RegisterOutputs(reg, r.other.outputs)
	}
	if err != nil {
		h.refused(ctx, reg, err)
		r.done(regResult{err: err})
		// acts hold the reply to reg, which has no waiter, and what
		// the failure let go on elsewhere (a delete-before-replace that
		// waited for reg's decision).
		h.dispatch(ctx, acts)
		return
	}
	h.dispatch(ctx, acts)
}

// post hands a request to the loop; done is called with its outcome, once,
// possibly before post returns (request.done).
func (h *Host) post(r *request, done func(providers.RegisterResult, error)) {
	r.answer = done
	if !h.inbox.post(r) {
		done(providers.RegisterResult{}, errDeploymentOver)
	}
}

// send hands a request to the loop and waits for its outcome.
func (h *Host) send(ctx context.Context, r *request) (providers.RegisterResult, error) {
	type outcome struct {
		res providers.RegisterResult
		err error
	}
	ch := make(chan outcome, 1)
	h.post(r, func(res providers.RegisterResult, err error) { ch <- outcome{res, err} })
	select {
	case o := <-ch:
		return o.res, o.err
	case <-ctx.Done():
		return providers.RegisterResult{}, &monitor.ReportedError{Err: context.Cause(ctx)}
	}
}

// RegisterResourceAsync implements monitor.Deployer: the host
// takes goal over, and done is called once the resource's step has
// completed (or the registration failed).
func (h *Host) RegisterResourceAsync(_ context.Context, goal *resource.Goal, done func(providers.RegisterResult, error)) {
	h.post(&request{reg: stepgen.Registration{Goal: goal}}, done)
}

// ReadResource implements monitor.Deployer.
func (h *Host) ReadResource(ctx context.Context, goal resource.Goal, id resource.ID) (providers.RegisterResult, error) {
	return h.send(ctx, &request{reg: stepgen.Registration{Goal: &goal}, other: &otherRequest{kind: reqRead, id: id}})
}

// RegisterResourceOutputs implements monitor.Deployer.
func (h *Host) RegisterResourceOutputs(ctx context.Context, urn resource.URN, outputs resource.PropertyMap) error {
	_, err := h.send(ctx, &request{reg: stepgen.Registration{URN: urn}, other: &otherRequest{kind: reqOutputs, outputs: outputs}})
	return err
}

var _ monitor.Deployer = (*Host)(nil)
