package program

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"

	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// Props are a registration's inputs in the untyped form. Values may be
// plain Go values (as resource.NewPropertyValue accepts them, structs
// included), resource.PropertyValue, an Output, or a Handle (a reference
// to the resource), also inside slices, maps and structs. The engine
// waits for every Output and Handle, records the dependency, and passes
// their values on.
type Props map[string]any

// Context is a running in-process program's view of the engine. Its
// methods may be called from any goroutine of the program; registrations
// return at once and proceed in the background.
type Context struct {
	ctx  context.Context
	host Host
	mon  *monitor.Monitor
	set  Settings
	root *Resource
	// pending counts the registrations and computed outputs under way.
	pending pendingWork
	// graph guards what registrations and cells wait for, which only a
	// refused wait reads (to describe a cycle). waitingOn holds, for each
	// registration that waits for something before it starts, what it
	// waits for: few do, so their handles do not each carry a slice.
	graph     sync.Mutex
	waitingOn map[*Resource][]waitable

	mu         sync.Mutex
	exported   map[string]any
	errs       []error
	transforms []Transform
	deferred   []func() error
}

// Context returns the operation's context.Context.
func (c *Context) Context() context.Context { return c.ctx }

// Stack returns the stack's name.
func (c *Context) Stack() string { return c.set.Stack }

// Project returns the project's name.
func (c *Context) Project() string { return c.set.Project }

// Preview reports whether this run is a preview.
func (c *Context) Preview() bool { return c.set.Preview }

// Root returns the stack's root resource, the default parent of every
// resource.
func (c *Context) Root() *Resource { return c.root }

// run registers the root stack resource, runs the program, waits for all
// its registrations and outputs, and registers the stack outputs (the
// deployment records them when the operation ends). Nothing it waits for
// can outlast the operation's context.
func (c *Context) run(program func(*Context) error) error {
	c.root = &Resource{ctx: c, typ: resource.RootStackType, name: c.Project() + "-" + c.Stack()}
	c.launch(c.root, nil, nil)
	progErr := c.root.await(c.ctx)
	if progErr == nil {
		progErr = c.call(program)
	}
	waitErr := c.pending.wait(c.ctx)
	if waitErr != nil {
		waitErr = fmt.Errorf("the operation ended before the program's registrations did: %w", waitErr)
	}
	switch {
	case c.root.err != nil:
		c.fail(c.root.err)
	case waitErr != nil:
	case !c.set.KeepOutputs:
		c.fail(c.mon.RegisterResourceOutputs(c.ctx, c.root.urn, c.resolveExports()))
	}
	c.mu.Lock()
	errs := []error{progErr, waitErr}
	for _, err := range c.errs {
		// An error the program returned is not listed twice.
		if progErr == nil || !errors.Is(progErr, err) {
			errs = append(errs, err)
		}
	}
	c.mu.Unlock()
	return errors.Join(errs...)
}

// call runs the program function on a goroutine of its own, turning a
// panic into an error, and waits for it or for the operation's context.
func (c *Context) call(program func(*Context) error) error {
	done := make(chan error, 1)
	go func() {
		var err error
		defer func() {
			if v := recover(); v != nil {
				err = newPanicError("the program", v)
			}
			done <- err
		}()
		if perr := program(c); perr != nil {
			err = fmt.Errorf("the program failed: %w", perr)
		}
	}()
	select {
	case err := <-done:
		return err
	case <-c.ctx.Done():
		return &UnreturnedError{Cause: context.Cause(c.ctx)}
	}
}

// UnreturnedError reports a program still running when the operation's
// context ended; a cancelled operation says so in its
// engine.CancelledError.
type UnreturnedError struct {
	// Cause is why the operation's context ended.
	Cause error
}

func (e *UnreturnedError) Error() string {
	return "the program did not return before the operation ended: " + e.Cause.Error()
}

// Unwrap returns the cause.
func (e *UnreturnedError) Unwrap() error { return e.Cause }

// fail records a registration error the deployment has not reported
// itself.
func (c *Context) fail(err error) {
	if err == nil || isReported(err) {
		return
	}
	c.mu.Lock()
	c.errs = append(c.errs, err)
	c.mu.Unlock()
}

// isReported reports whether err is one the deployment has reported: its
// own failure (see monitor.Reported) or a dependency's.
func isReported(err error) bool {
	var dep *DependencyError
	return monitor.Reported(err) || errors.As(err, &dep)
}

// Register declares a custom resource managed by its package's provider,
// with untyped inputs. NewResource declares one with typed inputs and
// outputs.
func (c *Context) Register(typ, name string, props Props, opts ...ResourceOption) *Resource {
	return c.start(typ, name, true, props, opts)
}

// Component declares a component resource: a logical group whose children
// name it as their Parent. It calls no provider.
func (c *Context) Component(typ, name string, opts ...ResourceOption) *Resource {
	return c.start(typ, name, false, nil, opts)
}

// Provider declares an explicit provider of a package, configured with
// props; pass it to other registrations with the Provider option.
func (c *Context) Provider(pkg, name string, props Props, opts ...ResourceOption) *Resource {
	return c.start(providers.ProviderType(pkg), name, true, props, opts)
}

// Read reads an existing resource by ID without managing it: it is recorded
// as external and never deleted. Reading a resource the stack managed under
// the same name lets go of it (with its ID) without deleting it, or (with
// another ID) replaces it by the one read, deleting the managed one.
func (c *Context) Read(typ, name string, id resource.ID, props Props, opts ...ResourceOption) *Resource {
	r := c.newResource(typ, name, true)
	r.readID = &id
	c.launch(r, props, opts)
	return r
}

// RegisterOutputs records a component's outputs: r is the component (a
// *Resource or a typed resource), outputs its output properties.
func (c *Context) RegisterOutputs(r Handle, outputs Props) {
	res := handleOf(r)
	if res == nil {
		c.fail(errors.New("RegisterOutputs: the component handle is nil"))
		return
	}
	if !c.pending.add() {
		c.fail(fmt.Errorf("RegisterOutputs of %s: the program has returned", res.describe()))
		return
	}
	if err := c.scanProps(res, outputs, nil); err != nil {
		c.fail(err)
		c.pending.done()
		return
	}
	go func() {
		defer c.pending.done()
		if err := res.await(c.ctx); err != nil {
			return
		}
		in, _, err := c.resolvePropsFor(outputs, res)
		if err == nil {
			err = c.mon.RegisterResourceOutputs(c.ctx, res.urn, in)
		}
		c.fail(err)
	}()
}

// Export sets a stack output. The value may be anything Props accepts,
// Outputs included. The outputs are recorded when the operation ends: an
// output whose value comes from a resource that failed is left out, and
// after any failure the outputs recorded before are kept under those the
// program set.
func (c *Context) Export(name string, value any) {
	c.mu.Lock()
	c.exported[name] = value
	c.mu.Unlock()
}

// Invoke calls a provider function and waits for its result. Arguments
// must be known (in a preview, an unknown argument is an error).
func (c *Context) Invoke(token string, args Props, opts ...ResourceOption) (resource.PropertyMap, error) {
	o := collect(opts)
	if err := o.check(nil); err != nil {
		return nil, fmt.Errorf("invoke %s: %w", token, err)
	}
	in, _, err := c.resolveCallArgs(args)
	if err != nil {
		return nil, fmt.Errorf("invoke %s: %w", token, err)
	}
	req := monitor.InvokeRequest{Token: token, Args: in, Version: o.version}
	if o.provider != nil {
		if req.Provider, err = o.provider.reference(c.ctx); err != nil {
			return nil, err
		}
	}
	resp, err := c.mon.Invoke(c.ctx, req)
	if err != nil {
		return nil, err
	}
	if len(resp.Failures) > 0 {
		return nil, fmt.Errorf("invoke %s failed: %v", token, resp.Failures)
	}
	return resp.Return, nil
}

// Call calls a method of a component resource through its provider and
// waits for the result. self is the component; the provider finds it as a
// resource reference in the argument "__self__".
func (c *Context) Call(token string, self Handle, args Props, opts ...ResourceOption) (resource.PropertyMap, error) {
	o := collect(opts)
	if err := o.check(nil); err != nil {
		return nil, fmt.Errorf("call %s: %w", token, err)
	}
	in, deps, err := c.resolveCallArgs(args)
	if err != nil {
		return nil, fmt.Errorf("call %s: %w", token, err)
	}
	if self != nil {
		r := handleOf(self)
		if r == nil {
			return nil, fmt.Errorf("call %s: the self handle is nil", token)
		}
		if err := r.Wait(); err != nil {
			return nil, err
		}
		in["__self__"] = resource.NewResourceReference(resource.ResourceReference{URN: r.urn, ID: r.id})
	}
	req := monitor.CallRequest{Token: token, Args: in, ArgDependencies: deps, Version: o.version}
	if o.provider != nil {
		if req.Provider, err = o.provider.reference(c.ctx); err != nil {
			return nil, err
		}
	}
	resp, err := c.mon.Call(c.ctx, req)
	if err != nil {
		return nil, err
	}
	if len(resp.Failures) > 0 {
		return nil, fmt.Errorf("call %s failed: %v", token, resp.Failures)
	}
	return resp.Return, nil
}

// resolveCallArgs resolves the arguments of an invoke or a call, refusing
// to wait for their outputs inside a callback.
func (c *Context) resolveCallArgs(args Props) (resource.PropertyMap, map[resource.PropertyKey][]resource.URN, error) {
	var refused error
	err := c.scanEach(nil, args, func(w waitable) {
		if refused == nil {
			refused = c.refuseWait(w, w.describe())
		}
	})
	if err == nil {
		err = refused
	}
	if err != nil {
		return nil, nil, err
	}
	return c.resolvePropsFor(args, nil)
}

// resolveExports resolves the stack outputs one by one. An output whose
// value cannot be resolved (it comes from a resource that failed, or is
// not a value) is left out and its error recorded; the others are kept,
// so that one failure does not cost the stack the outputs that did
// resolve.
func (c *Context) resolveExports() resource.PropertyMap {
	c.mu.Lock()
	ex := maps.Clone(c.exported)
	c.mu.Unlock()
	out := make(resource.PropertyMap, len(ex))
	for k, v := range ex {
		if p := c.scan(v, func(waitable) {}); p != nil {
			c.fail(fmt.Errorf("stack output %q %s", k+p.path, p.reason))
			continue
		}
		var from []*Resource
		pv, err := c.resolveValue(v, nil, &from)
		if err != nil {
			c.fail(fmt.Errorf("stack output %q: %w", k, err))
			continue
		}
		out[resource.PropertyKey(k)] = pv
	}
	return out
}

// Transform rewrites a registration's inputs and options (its
// resource.Goal) before it reaches the step generator. Add one to a
// running program with Context.RegisterTransform; the engine's Transforms
// option applies some to every registration of an operation.
type Transform = monitor.Transform

// RegisterTransform adds a transform applied to every registration the
// program makes after this call. A panic in it is an error of the
// registration.
func (c *Context) RegisterTransform(t Transform) {
	if t == nil {
		c.fail(errors.New("RegisterTransform: the transform is nil"))
		return
	}
	c.mu.Lock()
	c.transforms = append(c.transforms, t)
	c.mu.Unlock()
}

// importGoal registers one resource of a standalone import, with goal as
// it is (parented to the stack's root when it names no parent).
func (c *Context) importGoal(goal *resource.Goal) {
	r := c.newResource(goal.Type, goal.Name, true)
	if !c.pending.add() {
		r.finish(providers.RegisterResult{}, errors.New("the import has ended"))
		return
	}
	r.counted = true
	if goal.Parent == "" && c.root != nil {
		goal.Parent = c.root.urn
	}
	c.mon.RegisterResourceAsync(c.ctx, goal, r.finish)
}
