package program

import (
	"context"

	"github.com/groundwork-iac/groundwork/resource"
)

// Hook is a resource hook: a function the engine runs around the steps of
// the resources it is bound to (with the ResourceHooks option), as Pulumi's
// resource hooks run:
//
//   - before and after a create (a replacement's create included), an
//     update, and a delete (a replaced copy's, and the forgetting of a
//     resource retained on delete, included);
//   - a before hook runs after the step's start is journaled and before its
//     provider is called; if it fails, the step fails and the provider is
//     not called;
//   - an after hook runs once the step has succeeded; if it fails, the
//     failure is reported as a warning and the step stands. The after hooks
//     of a component's create or update run when its outputs are
//     registered (Context.RegisterOutputs), since that is when it is done;
//   - in a preview, only hooks with OnPreview run (and must change
//     nothing).
//
// A hook is known by its name, which the state records with each resource
// it is bound to: a resource deleted after the program stopped declaring
// it runs the hooks recorded with it, which the operation must know by
// then — bound to another resource, registered with Context.RegisterHook,
// or passed with the engine's Hooks option (the only way for a destroy,
// which runs no program). A hook's registration may reach the engine after
// the registration that names it, or after the program has finished (SDKs
// register hooks asynchronously): a step whose hooks the operation does
// not know waits up to ten seconds for them (not in a destroy), and then
// fails before its provider is called. Two different hooks may not share
// a name in one operation.
type Hook struct {
	Name string
	// Run is called with what the step knows of the resource; see
	// resource.HookArgs. It runs on the step's goroutine, possibly at the
	// same time as hooks of other resources. A panic is a failure.
	Run func(ctx context.Context, args resource.HookArgs) error
	// OnPreview runs the hook in previews too.
	OnPreview bool
}

// Call runs the hook's function as the engine runs it around a step: a
// panic in it is its failure (a *PanicError), and a wait for an output
// inside it is refused, as in every function the engine calls for the
// program.
func (h *Hook) Call(ctx context.Context, args resource.HookArgs) error {
	return runCallback("the hook", func() error { return h.Run(ctx, args) })
}

// ResourceHooks binds hooks of one kind to the resource: they run, in
// order, around the resource's steps of that kind (see Hook).
func ResourceHooks(kind resource.HookKind, hooks ...*Hook) ResourceOption {
	return func(o *resourceOptions) {
		if o.hooks == nil {
			o.hooks = map[resource.HookKind][]*Hook{}
		}
		o.hooks[kind] = append(o.hooks[kind], hooks...)
	}
}

// RegisterHook makes a hook known to the operation by name (see Hook). A
// runner of an out-of-process program registers the program's hooks with
// it.
func (c *Context) RegisterHook(h *Hook) error { return c.host.RegisterHook(h) }

// bindHooks registers the hooks a resource option binds and returns their
// names, for the resource's goal.
func (c *Context) bindHooks(hooks map[resource.HookKind][]*Hook) (resource.Hooks, error) {
	if len(hooks) == 0 {
		return nil, nil
	}
	out := resource.Hooks{}
	for kind, hs := range hooks {
		for _, h := range hs {
			if err := c.host.RegisterHook(h); err != nil {
				return nil, err
			}
			out[kind] = append(out[kind], h.Name)
		}
	}
	return out, nil
}
