package program

import (
	"context"
	"errors"
	"fmt"

	"github.com/groundwork-iac/groundwork/dag"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// hooked reports whether the resource s acts on has hooks bound.
func hooked(s *stepgen.Step) bool {
	return (s.New != nil && len(s.New.Hooks) > 0) || (s.Old != nil && len(s.Old.Hooks) > 0)
}

// stepHooks says which hooks run around a step: the kinds before and after
// it ("" for none) and the state that binds them.
type stepHooks struct {
	before, after resource.HookKind
	bound         *resource.State
}

// hooksOf returns the hooks that run around s. A component's after hooks
// wait for its outputs (see componentDone).
func (r *HookRunner) hooksOf(s *stepgen.Step) stepHooks {
	switch s.Op {
	case stepgen.OpCreate, stepgen.OpCreateReplacement:
		h := stepHooks{before: resource.HookBeforeCreate, after: resource.HookAfterCreate, bound: s.New}
		if !s.New.Custom {
			h.after = ""
		}
		return h
	case stepgen.OpUpdate:
		h := stepHooks{before: resource.HookBeforeUpdate, after: resource.HookAfterUpdate, bound: s.New}
		if !s.New.Custom {
			h.after = ""
		}
		return h
	case stepgen.OpDelete, stepgen.OpDeleteReplaced:
		return stepHooks{before: resource.HookBeforeDelete, after: resource.HookAfterDelete, bound: s.Old}
	case stepgen.OpDiscard:
		// A resource the program read and no longer reads is deleted
		// as far as the program is concerned.
		if !r.set.Refresh {
			return stepHooks{before: resource.HookBeforeDelete, after: resource.HookAfterDelete, bound: s.Old}
		}
	}
	return stepHooks{}
}

// Apply applies a step of a resource that has hooks bound: the
// before hooks (whose failure fails the step before its provider is
// called), the step, then the after hooks (whose failure is a warning).
func (r *HookRunner) Apply(ctx context.Context, s *stepgen.Step) stepgen.Outcome {
	if s.Op == stepgen.OpOutputs {
		o := r.set.Apply(ctx, s)
		if o.Err == nil {
			r.componentOutputs(ctx, s)
		}
		return o
	}
	h := r.hooksOf(s)
	if h.bound == nil {
		return r.set.Apply(ctx, s)
	}
	// Every hook must be known before anything runs.
	before, err := r.awaitHooks(ctx, h.bound.URN, h.bound.Hooks[h.before])
	if err != nil {
		return stepgen.Outcome{Step: s, Err: err}
	}
	after, err := r.awaitHooks(ctx, h.bound.URN, h.bound.Hooks[h.after])
	if err != nil {
		return stepgen.Outcome{Step: s, Err: err}
	}
	for _, hook := range before {
		if err := r.runHook(ctx, hook, hookArgs(h.before, s, s.New)); err != nil {
			return stepgen.Outcome{Step: s, Err: &HookError{URN: h.bound.URN, Kind: h.before, Name: hook.Name, Err: err}}
		}
	}
	o := r.set.Apply(ctx, s)
	if o.Err != nil {
		return o
	}
	if (s.Op == stepgen.OpCreate || s.Op == stepgen.OpCreateReplacement || s.Op == stepgen.OpUpdate) && !s.New.Custom {
		r.componentDone(s)
	}
	r.runAfter(ctx, after, hookArgs(h.after, s, o.New))
	return o
}

// componentDone notes that a component with after hooks was created or
// updated, for when its outputs are registered.
func (r *HookRunner) componentDone(s *stepgen.Step) {
	kind := resource.HookAfterCreate
	if s.Op == stepgen.OpUpdate {
		kind = resource.HookAfterUpdate
	}
	if len(s.New.Hooks[kind]) == 0 {
		return
	}
	r.mu.Lock()
	if r.after == nil {
		r.after = map[resource.URN]pendingAfter{}
	}
	r.after[s.New.URN] = pendingAfter{kind: kind, old: s.Old}
	r.mu.Unlock()
}

// componentOutputs runs the after hooks of a component created or updated
// in this operation, now that its outputs are registered.
func (r *HookRunner) componentOutputs(ctx context.Context, s *stepgen.Step) {
	r.mu.Lock()
	p, ok := r.after[s.New.URN]
	delete(r.after, s.New.URN)
	r.mu.Unlock()
	if !ok {
		return
	}
	args := resource.HookArgs{Kind: p.kind, URN: s.New.URN, ID: s.New.ID, Name: s.New.URN.Name(), Type: s.New.Type,
		NewInputs: s.New.Inputs, NewOutputs: s.New.Outputs}
	if p.old != nil {
		args.OldInputs, args.OldOutputs = p.old.Inputs, p.old.Outputs
	}
	after, err := r.awaitHooks(ctx, s.New.URN, s.New.Hooks[p.kind])
	if err != nil {
		r.set.Log(SeverityWarning, s.New.URN, err.Error())
		return
	}
	r.runAfter(ctx, after, args)
}

// runAfter runs after hooks; a failure is reported as a warning.
func (r *HookRunner) runAfter(ctx context.Context, hooks []*Hook, args resource.HookArgs) {
	for _, hook := range hooks {
		if err := r.runHook(ctx, hook, args); err != nil {
			r.set.Log(SeverityWarning, args.URN, fmt.Sprintf("the %s hook %q failed: %v", args.Kind, hook.Name, err))
		}
	}
}

// runHook runs one hook, unless this is a preview it does not run in. A
// panic is its failure (a *PanicError), and it may not wait for outputs,
// as no code of the program's the engine calls may.
func (r *HookRunner) runHook(ctx context.Context, h *Hook, args resource.HookArgs) error {
	if r.set.Preview && !h.OnPreview {
		return nil
	}
	// A hook may take long, or wait for the program: the step walker
	// counts the step blocked meanwhile (as deploy.Apply does a provider call).
	defer dag.Blocking(ctx)()
	return h.Call(ctx, args)
}

// hookArgs is what the hooks of kind are told about s, whose new state is
// n (before the step: the one it asks for; after it: the one it produced),
// as Pulumi's engine tells them: a create gives its new inputs (and, after,
// its ID and outputs); an update its new and old inputs and old outputs
// (and, after, its new outputs); a delete its old inputs and outputs.
func hookArgs(kind resource.HookKind, s *stepgen.Step, n *resource.State) resource.HookArgs {
	a := resource.HookArgs{Kind: kind, URN: s.URN(), Name: s.URN().Name(), Type: s.URN().Type()}
	switch kind {
	case resource.HookBeforeCreate:
		a.ID, a.NewInputs = n.ID, n.Inputs
	case resource.HookAfterCreate:
		a.ID, a.NewInputs, a.NewOutputs = n.ID, n.Inputs, n.Outputs
	case resource.HookBeforeUpdate:
		a.ID, a.NewInputs, a.OldInputs, a.OldOutputs = s.Old.ID, n.Inputs, s.Old.Inputs, s.Old.Outputs
	case resource.HookAfterUpdate:
		a.ID, a.NewInputs, a.OldInputs = n.ID, n.Inputs, s.Old.Inputs
		a.NewOutputs, a.OldOutputs = n.Outputs, s.Old.Outputs
	case resource.HookBeforeDelete, resource.HookAfterDelete:
		a.ID, a.OldInputs, a.OldOutputs = s.Old.ID, s.Old.Inputs, s.Old.Outputs
	}
	return a
}

// awaitHooks returns the hooks named, bound to the resource urn. A program
// may still be registering them (see hookWait): unless this is a destroy,
// which runs no program, a hook not known yet is waited for, and the wait
// is told as a debug message.
func (r *HookRunner) awaitHooks(ctx context.Context, urn resource.URN, names []string) ([]*Hook, error) {
	wait := hookWait
	if r.set.NoWait {
		wait = 0
	}
	// It may wait for the program: the step walker counts the step
	// blocked meanwhile.
	defer dag.Blocking(ctx)()
	return r.await(ctx, urn, names, wait, func(missing string) {
		r.set.Log(SeverityDebug, urn, fmt.Sprintf("waiting for the program to register the hook %q", missing))
	})
}

// KnowsDeleteHooks checks, before anything is deleted, that the operation
// knows every hook bound to the resources it is about to delete (waiting
// for those a program is still registering), so that a destroy without
// them deletes nothing rather than some.
func (r *HookRunner) KnowsDeleteHooks(ctx context.Context, antichains [][]*stepgen.Step) error {
	var errs []error
	for _, steps := range antichains {
		for _, s := range steps {
			if !hooked(s) {
				continue
			}
			h := r.hooksOf(s)
			if h.bound == nil {
				continue
			}
			for _, kind := range []resource.HookKind{h.before, h.after} {
				if _, err := r.awaitHooks(ctx, h.bound.URN, h.bound.Hooks[kind]); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	return errors.Join(errs...)
}
