package deploy

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/groundwork-iac/groundwork/dag"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// ProviderSource resolves the providers a step is applied and a call asked
// with.
//
// Deprecated: use providers.ProviderSource, the same interface, which
// package monitor shares.
type ProviderSource = providers.ProviderSource

// Apply is the one place a step meets its provider: it performs s, calling
// the provider its resource names (resolved through src) as the operation
// requires, and returns how it went. It changes nothing the step holds:
// the state it produces is in the Outcome, a new one stamped with now (nil
// leaves the times unset), or, for a step whose state the generator
// settled when it issued it (an unchanged resource; a custom resource's
// create or update in a preview, whose outputs are its inputs), the
// step's own New. The host hands the Outcome to Generator.Done.
//
// A step that calls no provider (Step.Local) resolves none. A refused step
// fails with its refusal. A provider's partial failure (a resource that
// came to exist with errors) fails with a *stepgen.PartialError and an
// Outcome whose New must still be recorded (Outcome.Partial).
//
// An Outcome's error is about the step's resource: its plain errors say
// what failed and why without naming the resource, which the host names
// once where it reports the failure (the operation's error, the step's
// event). Its typed errors (*stepgen.PartialError, *stepgen.NotFoundError,
// ...) name the resource themselves, since they are also read alone; a
// host adds the resource only to an error that does not name it already.
func Apply(ctx context.Context, s *stepgen.Step, src providers.ProviderSource, now func() time.Time) stepgen.Outcome {
	a := applier{s: s, src: src, now: now}
	if err := s.Refused(); err != nil {
		return stepgen.Outcome{Step: s, Err: err}
	}
	var o stepgen.Outcome
	if !s.Local() {
		// A provider call may take long: a step walker built with
		// dag.Options.DeclaredBlocking counts the visit blocked meanwhile.
		defer dag.Blocking(ctx)()
	}
	switch s.Op {
	case stepgen.OpSame, stepgen.OpReplace, stepgen.OpOutputs, stepgen.OpDiscard:
		o = stepgen.Outcome{New: s.New}
	case stepgen.OpCreate, stepgen.OpCreateReplacement:
		o = a.create(ctx)
	case stepgen.OpUpdate:
		o = a.update(ctx)
	case stepgen.OpDelete, stepgen.OpDeleteReplaced:
		o = a.delete(ctx)
	case stepgen.OpRead, stepgen.OpReadReplacement, stepgen.OpRefresh:
		o = a.read(ctx)
	case stepgen.OpImport:
		o = a.importIt(ctx)
	default:
		o = stepgen.Outcome{Err: fmt.Errorf("unknown step operation %q", s.Op)}
	}
	o.Step = s
	return o
}

// applier applies one step.
type applier struct {
	s   *stepgen.Step
	src providers.ProviderSource
	now func() time.Time
}

func (a applier) provider() (providers.Provider, error) {
	s := a.s
	if a.src == nil {
		return nil, errors.New("no provider source configured")
	}
	st := s.New
	if st == nil {
		st = s.Old
	}
	return a.src.Provider(st.Provider, st.Type)
}

// stamped returns n with its times set: Created too when created.
func (a applier) stamped(n *resource.State, created bool) *resource.State {
	if a.now == nil {
		return n
	}
	t := a.now()
	if created {
		n.Created = t
	}
	n.Modified = t
	return n
}

// produced returns a copy of the step's new state for Apply to fill in.
func (a applier) produced() *resource.State {
	cp := *a.s.New
	return &cp
}

func (a applier) create(ctx context.Context) stepgen.Outcome {
	s := a.s
	if !s.New.Custom {
		n := a.produced()
		n.Outputs = stepgen.ComponentOutputs(s.Old, s.New)
		return stepgen.Outcome{New: a.stamped(n, true)}
	}
	if s.Previewed() {
		return stepgen.Outcome{New: s.New}
	}
	p, err := a.provider()
	if err != nil {
		return stepgen.Outcome{Err: err}
	}
	// Provider resources are created even in a preview: the registry
	// configures the instance (changing nothing outside) so that the
	// resources it manages can be checked and diffed.
	resp, err := p.Create(ctx, providers.CreateRequest{
		URN: s.URN(), Inputs: s.New.Inputs, Timeout: s.New.CustomTimeouts.Create, Preview: s.Preview,
	})
	if err != nil {
		return a.partial(err, "create")
	}
	if resp.ID == "" && !s.Preview {
		return stepgen.Outcome{Err: errors.New("the provider created it but returned an empty ID")}
	}
	n := a.produced()
	n.ID = resp.ID
	n.Outputs = stepgen.SecureOutputs(s.New, resp.Outputs)
	n.InitErrors = nil
	return stepgen.Outcome{New: a.stamped(n, true)}
}

func (a applier) update(ctx context.Context) stepgen.Outcome {
	s := a.s
	if !s.New.Custom {
		n := a.produced()
		n.Outputs = stepgen.ComponentOutputs(s.Old, s.New)
		return stepgen.Outcome{New: a.stamped(n, false)}
	}
	if s.Previewed() {
		return stepgen.Outcome{New: s.New}
	}
	p, err := a.provider()
	if err != nil {
		return stepgen.Outcome{Err: err}
	}
	resp, err := p.Update(ctx, providers.UpdateRequest{
		URN: s.URN(), ID: s.Old.ID,
		OldInputs: s.Old.Inputs, OldOutputs: s.Old.Outputs, NewInputs: s.New.Inputs,
		IgnoreChanges: s.New.IgnoreChanges, Timeout: s.New.CustomTimeouts.Update, Preview: s.Preview,
	})
	if err != nil {
		return a.partial(err, "update")
	}
	n := a.produced()
	n.Outputs = stepgen.SecureOutputs(s.New, resp.Outputs)
	n.InitErrors = nil
	return stepgen.Outcome{New: a.stamped(n, false)}
}

func (a applier) delete(ctx context.Context) stepgen.Outcome {
	s := a.s
	if s.Preview || s.JournalOp() == "" {
		return stepgen.Outcome{New: s.New}
	}
	p, err := a.provider()
	if err != nil {
		return stepgen.Outcome{Err: err}
	}
	// The provider sees the URN the object was recorded under: a resource
	// renamed through an alias and replaced in the same run is deleted
	// under its old URN, as the reference engine does.
	_, err = p.Delete(ctx, providers.DeleteRequest{
		URN: s.Old.URN, ID: s.Old.ID, Inputs: s.Old.Inputs, Outputs: s.Old.Outputs,
		Timeout: s.Old.CustomTimeouts.Delete,
	})
	if err != nil {
		return stepgen.Outcome{Err: fmt.Errorf("delete (id %s) failed: %w", s.Old.ID, err)}
	}
	return stepgen.Outcome{New: s.New}
}

func (a applier) read(ctx context.Context) stepgen.Outcome {
	s := a.s
	if s.UnknownRead() {
		// There is nothing to read until the ID is known: the resource
		// is previewed with no outputs, as by the reference engine.
		n := a.produced()
		n.Outputs = resource.PropertyMap{}
		return stepgen.Outcome{New: n}
	}
	p, err := a.provider()
	if err != nil {
		return stepgen.Outcome{Err: err}
	}
	// A read of an external resource sends the program's inputs as both
	// the inputs and the state, as the reference engine does: they are all
	// the engine knows of it, and dynamic providers find their serialized
	// provider there. A refresh sends what was recorded.
	req := providers.ReadRequest{URN: s.URN(), ID: s.New.ID, Inputs: s.New.Inputs, State: s.New.Inputs}
	if s.Op == stepgen.OpRefresh && s.Old != nil {
		req.ID, req.Inputs, req.State = s.Old.ID, s.Old.Inputs, s.Old.Outputs
	}
	resp, err := p.Read(ctx, req)
	if err != nil {
		return a.partial(err, "read")
	}
	if resp.ID == "" {
		if s.Op == stepgen.OpRefresh {
			return stepgen.Outcome{Gone: true}
		}
		return stepgen.Outcome{Err: &stepgen.NotFoundError{URN: s.URN(), ID: req.ID}}
	}
	n := a.produced()
	n.ID = resp.ID
	n.Outputs = stepgen.SecureOutputs(s.New, resp.Outputs)
	if s.Op == stepgen.OpRefresh && resp.Inputs != nil {
		n.Inputs = resp.Inputs
	}
	o := stepgen.Outcome{New: a.stamped(n, s.Old == nil || s.Op == stepgen.OpReadReplacement)}
	if s.Old != nil {
		if d := s.Old.Outputs.Diff(n.Outputs); d != nil {
			o.Keys = d.ChangedKeys()
		}
	}
	return o
}

// importIt reads the resource to adopt, checks the program's inputs
// against it and refuses any difference. A registration that gives no
// inputs adopts the resource as read.
func (a applier) importIt(ctx context.Context) stepgen.Outcome {
	s := a.s
	p, err := a.provider()
	if err != nil {
		return stepgen.Outcome{Err: err}
	}
	read, err := p.Read(ctx, providers.ReadRequest{URN: s.URN(), ID: s.New.ID})
	if err != nil {
		return stepgen.Outcome{Err: fmt.Errorf("import (id %s) failed: %w", s.New.ID, err)}
	}
	if read.ID == "" {
		return stepgen.Outcome{Err: &stepgen.NotFoundError{URN: s.URN(), ID: s.New.ID}}
	}
	inputs := read.Inputs
	if len(s.New.Inputs) > 0 {
		chk, err := p.Check(ctx, providers.CheckRequest{URN: s.URN(), Olds: read.Inputs, News: s.New.Inputs, RandomSeed: s.ImportSeed()})
		if err != nil {
			return stepgen.Outcome{Err: fmt.Errorf("import: checking the inputs failed: %w", err)}
		}
		if len(chk.Failures) > 0 {
			return stepgen.Outcome{Err: &stepgen.CheckFailedError{URN: s.URN(), Failures: chk.Failures}}
		}
		diff, err := p.Diff(ctx, providers.DiffRequest{URN: s.URN(), ID: read.ID, OldInputs: read.Inputs,
			OldOutputs: read.Outputs, NewInputs: chk.Inputs, IgnoreChanges: s.New.IgnoreChanges})
		if err != nil {
			return stepgen.Outcome{Err: fmt.Errorf("import: diffing the inputs failed: %w", err)}
		}
		if diff.Changes == resource.DiffUnknown {
			diff = stepgen.InputsDiff(read.Inputs, chk.Inputs)
		}
		if diff.Changes == resource.DiffSome {
			keys := diff.ChangedKeys
			if len(keys) == 0 {
				keys = stepgen.ChangedKeys(diff, read.Inputs, chk.Inputs)
			}
			return stepgen.Outcome{Err: &stepgen.ImportMismatchError{URN: s.URN(), ID: read.ID, Keys: keys}}
		}
		inputs = chk.Inputs
	}
	n := a.produced()
	n.ID = read.ID
	n.Inputs = inputs
	n.Outputs = stepgen.SecureOutputs(s.New, read.Outputs)
	return stepgen.Outcome{New: a.stamped(n, true)}
}

// partial turns a provider's partial failure into a state with init errors,
// so that the resource is not lost, and fails with a *stepgen.PartialError;
// any other error fails the step plainly.
func (a applier) partial(err error, verb string) stepgen.Outcome {
	s := a.s
	var ie *providers.InitError
	if !errors.As(err, &ie) || s.New == nil {
		return stepgen.Outcome{Err: fmt.Errorf("%s failed: %w", verb, err)}
	}
	n := a.produced()
	if ie.ID != "" {
		n.ID = ie.ID
	}
	if ie.Outputs != nil {
		n.Outputs = stepgen.SecureOutputs(s.New, ie.Outputs)
	}
	if ie.Inputs != nil {
		n.Inputs = ie.Inputs
	}
	n.InitErrors = append([]string(nil), ie.Reasons...)
	return stepgen.Outcome{New: a.stamped(n, s.Old == nil), Err: &stepgen.PartialError{URN: s.URN(), Op: s.Op, Err: err}}
}

// Ask is the one place a call meets its provider: it makes the Check or
// Diff that c asks for, with the provider its resource names (resolved
// through src), and returns the Answer for Generator.Answer. A Check whose
// Diff is sure to follow (Call.DiffAfterCheck) is followed by that Diff at
// once, answered together; when src is a *Bounds, the two are one bounded
// call, which the grace period bounds as a whole. An analyzer call
// (stepgen.CallAnalyze) is the host's to answer: Ask refuses it.
func Ask(ctx context.Context, c *stepgen.Call, src providers.ProviderSource) stepgen.Answer {
	a := stepgen.Answer{Call: c}
	if c.Kind == stepgen.CallAnalyze {
		a.Err = fmt.Errorf("resource %s: no analyzer to ask", c.Reg.URN)
		return a
	}
	p, err := src.Provider(c.Provider, c.Type)
	if err != nil {
		a.Err = err
		return a
	}
	if bp, ok := p.(*boundedProvider); ok && c.Kind == stepgen.CallCheck && c.DiffAfterCheck && ctx.Done() != nil {
		// A Check and the Diff after it are one bounded call, made
		// with the provider itself: within an operation that can be
		// cancelled, they share one goroutine rather than start one
		// each (see bounded). The goroutine makes the provider calls
		// alone, and hands back a pointer, so that its stack stays
		// as small as a single call's. (Under a context that cannot
		// be cancelled, each call is made on the caller's goroutine
		// anyway.)
		b, err := bounded(ctx, bp.b, callBounds{method: "check"}, bp.p, c, askProvider)
		if err != nil {
			a.Err = err
			return a
		}
		a = *b
	} else {
		askInto(p, ctx, c, &a)
	}
	switch {
	case c.Kind == stepgen.CallCheck && a.Diffed && a.DiffErr == nil:
		nameChangedKeys(&a.Diff, c.Diff.OldInputs, a.Check.Inputs)
	case c.Kind == stepgen.CallDiff && a.Err == nil:
		nameChangedKeys(&a.Diff, c.Diff.OldInputs, c.Diff.NewInputs)
	}
	return a
}

// askProvider makes the Check or Diff (or both) that c asks for of p,
// on a goroutine of its own (see Ask). Its error is always nil: the
// answer holds the calls' errors.
func askProvider(p providers.Provider, ctx context.Context, c *stepgen.Call) (*stepgen.Answer, error) {
	a := &stepgen.Answer{Call: c}
	askInto(p, ctx, c, a)
	return a, nil
}

// askInto makes the Check or Diff (or both) that c asks for of p (see
// Ask), and fills a in with their answers, their changed keys not yet
// named.
func askInto(p providers.Provider, ctx context.Context, c *stepgen.Call, a *stepgen.Answer) {
	switch c.Kind {
	case stepgen.CallCheck:
		a.Check, a.Err = p.Check(ctx, c.Check)
		if !c.DiffAfterCheck || a.Err != nil || len(a.Check.Failures) > 0 {
			return
		}
		req := c.Diff
		if req.NewInputs = a.Check.Inputs; req.NewInputs == nil {
			req.NewInputs = resource.PropertyMap{}
		}
		a.Diff, a.DiffErr = p.Diff(ctx, req)
		a.Diffed = true
	case stepgen.CallDiff:
		a.Diff, a.Err = p.Diff(ctx, c.Diff)
	default:
		a.Err = fmt.Errorf("unknown provider call %d", c.Kind)
	}
}

// nameChangedKeys fills in the changed keys of a Diff that reports changes
// without naming them, on the caller's goroutine rather than the
// generator's, which would otherwise compare the inputs itself.
func nameChangedKeys(d *resource.DiffResult, olds, news resource.PropertyMap) {
	if d.Changes == resource.DiffSome && len(d.ChangedKeys) == 0 {
		d.ChangedKeys = stepgen.ChangedKeys(*d, olds, news)
	}
}
