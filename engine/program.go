package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// Props are a registration's inputs. Values may be plain Go values (as
// resource.NewPropertyValue accepts them), resource.PropertyValue, an
// Output of another resource, or a *Resource (a reference to it). The
// engine waits for every Output and *Resource, records the dependency, and
// passes their values on.
type Props map[string]any

// Context is a running in-process program's view of the engine. Its
// methods may be called from any goroutine of the program; registrations
// return at once and proceed in the background.
type Context struct {
	ctx  context.Context
	d    *deployment
	root *Resource
	wg   sync.WaitGroup

	mu         sync.Mutex
	exported   map[string]any
	errs       []error
	transforms []Transform
	deferred   []func() error
}

func newContext(ctx context.Context, d *deployment) *Context {
	return &Context{ctx: ctx, d: d, exported: map[string]any{}}
}

// Context returns the operation's context.Context.
func (c *Context) Context() context.Context { return c.ctx }

// Stack returns the stack's name.
func (c *Context) Stack() string { return c.d.e.cfg.Stack }

// Project returns the project's name.
func (c *Context) Project() string { return c.d.e.cfg.Project }

// Preview reports whether this run is a preview.
func (c *Context) Preview() bool { return c.d.preview }

// Root returns the stack's root resource, the default parent of every
// resource.
func (c *Context) Root() *Resource { return c.root }

// run registers the root stack resource, runs the program, waits for all
// its registrations and registers the stack outputs (the deployment
// records them when the operation ends).
func (c *Context) run(program Program) error {
	c.root = &Resource{ctx: c, typ: resource.RootStackType, name: c.Project() + "-" + c.Stack(), done: make(chan struct{})}
	c.launch(c.root, nil, nil)
	c.root.await(c.ctx)
	progErr := c.call(program)
	c.wg.Wait()
	switch {
	case c.root.err != nil:
		c.fail(c.root.err)
	case c.d.op != OpImport: // an import's program is not the user's: the outputs stay
		c.fail(c.d.mon.RegisterResourceOutputs(c.ctx, c.root.urn, c.resolveExports()))
	}
	c.mu.Lock()
	errs := append([]error{progErr}, c.errs...)
	c.mu.Unlock()
	return errors.Join(errs...)
}

// call runs the program function, turning a panic into an error.
func (c *Context) call(program Program) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the program panicked: %v", r)
		}
	}()
	if err := program(c); err != nil {
		return fmt.Errorf("the program failed: %w", err)
	}
	return nil
}

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
// own failure or a dependency's. It is apart from fail, which every
// registration calls, because the targets of errors.As escape to the heap.
func isReported(err error) bool {
	var reported *reportedError
	var dep *DependencyError
	return errors.As(err, &reported) || errors.As(err, &dep)
}

// Register declares a custom resource managed by its package's provider.
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
	r := &Resource{ctx: c, typ: typ, name: name, custom: true, readID: id, done: make(chan struct{})}
	c.launch(r, props, opts)
	return r
}

// RegisterOutputs records a component's outputs.
func (c *Context) RegisterOutputs(r *Resource, outputs Props) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		if err := r.await(c.ctx); err != nil {
			return
		}
		in, _, err := c.resolveProps(outputs)
		if err == nil {
			err = c.d.mon.RegisterResourceOutputs(c.ctx, r.urn, in)
		}
		c.fail(err)
	}()
}

// Export sets a stack output. The value may be anything Props accepts. The
// outputs are recorded when the operation ends: an output whose value
// comes from a resource that failed is left out, and after any failure the
// outputs recorded before are kept under those the program set.
func (c *Context) Export(name string, value any) {
	c.mu.Lock()
	c.exported[name] = value
	c.mu.Unlock()
}

// Invoke calls a provider function and waits for its result. Arguments
// must be known (in a preview, an unknown argument is an error).
func (c *Context) Invoke(token string, args Props, opts ...ResourceOption) (resource.PropertyMap, error) {
	o := collect(opts)
	in, _, err := c.resolveProps(args)
	if err != nil {
		return nil, err
	}
	req := monitor.InvokeRequest{Token: token, Args: in, Version: o.version}
	if o.provider != nil {
		if req.Provider, err = o.provider.reference(c.ctx); err != nil {
			return nil, err
		}
	}
	resp, err := c.d.mon.Invoke(c.ctx, req)
	if err != nil {
		return nil, err
	}
	if len(resp.Failures) > 0 {
		return nil, fmt.Errorf("invoke %s failed: %v", token, resp.Failures)
	}
	return resp.Return, nil
}

// resolveExports resolves the stack outputs one by one. An output whose
// value cannot be resolved (it comes from a resource that failed) is left
// out and its error recorded; the others are kept, so that one failure
// does not cost the stack the outputs that did resolve.
func (c *Context) resolveExports() resource.PropertyMap {
	c.mu.Lock()
	ex := maps.Clone(c.exported)
	c.mu.Unlock()
	out := make(resource.PropertyMap, len(ex))
	for k, v := range ex {
		var urns []resource.URN
		pv, err := c.resolveValue(v, nil, &urns)
		if err != nil {
			c.fail(fmt.Errorf("stack output %q: %w", k, err))
			continue
		}
		out[resource.PropertyKey(k)] = pv
	}
	return out
}

// noOptions are the options of every registration that passes none. Like
// every resourceOptions once collect has returned it, it is only read.
var noOptions resourceOptions

// collect applies opts to fresh options; a registration without options
// shares noOptions, saving an allocation per resource.
func collect(opts []ResourceOption) *resourceOptions {
	if len(opts) == 0 {
		return &noOptions
	}
	o := &resourceOptions{}
	for _, opt := range opts {
		if opt != nil {
			opt(o)
		}
	}
	return o
}

// start launches a registration in the background and returns its handle.
func (c *Context) start(typ, name string, custom bool, props Props, opts []ResourceOption) *Resource {
	r := &Resource{ctx: c, typ: typ, name: name, custom: custom, done: make(chan struct{})}
	c.launch(r, props, opts)
	return r
}

// launch starts r's registration. When everything it depends on has
// finished already (the common case), its goal is built at once and handed
// to the monitor on the caller's goroutine. Otherwise it waits without a
// goroutine: each unfinished dependency calls it back when it finishes,
// and the last one starts a goroutine that builds the goal (transforms are
// the program's code, which must not run on the engine's own goroutines).
// Either way nothing waits for the step itself: the monitor calls r.finish
// when it has completed.
func (c *Context) launch(r *Resource, props Props, opts []ResourceOption) {
	o := collect(opts)
	c.wg.Add(1)
	if r.readID != "" {
		go c.register(r, props, o)
		return
	}
	waiting := c.unfinished(r, props, o)
	if len(waiting) == 0 {
		c.register(r, props, o)
		return
	}
	// One count per dependency, and one for launch itself, so that the
	// registration cannot start before every callback is in place.
	var left atomic.Int32
	left.Store(int32(len(waiting)) + 1)
	start := func() {
		if left.Add(-1) == 0 {
			go c.register(r, props, o)
		}
	}
	for _, w := range waiting {
		w.onFinish(start)
	}
	start()
}

// register builds r's goal, waiting for what it depends on, and hands it to
// the monitor.
func (c *Context) register(r *Resource, props Props, o *resourceOptions) {
	goal, err := c.buildGoal(r, props, o)
	if err != nil {
		r.finish(providers.RegisterResult{}, err)
		return
	}
	if r.readID != "" {
		r.finish(c.d.mon.ReadResource(c.ctx, *goal, r.readID))
		return
	}
	c.d.mon.RegisterResourceAsync(c.ctx, goal, r.finish)
}

// unfinished returns the resources r's registration depends on that are
// still being registered.
func (c *Context) unfinished(r *Resource, props Props, o *resourceOptions) []*Resource {
	var out []*Resource
	add := func(d *Resource) {
		if !finished(d) {
			out = append(out, d)
		}
	}
	parent := o.parent
	if parent == nil && r != c.root {
		parent = c.root
	}
	add(parent)
	add(o.deletedWith)
	add(o.provider)
	for _, d := range o.dependsOn {
		add(d)
	}
	for _, v := range props {
		unfinishedIn(v, &out)
	}
	return out
}

// unfinishedIn adds the resources of the Outputs and *Resources an input
// value holds whose registration is still under way.
func unfinishedIn(v any, out *[]*Resource) {
	switch x := v.(type) {
	case Output:
		if !finished(x.res) {
			*out = append(*out, x.res)
		}
	case *Resource:
		if !finished(x) {
			*out = append(*out, x)
		}
	case map[string]any:
		for _, e := range x {
			unfinishedIn(e, out)
		}
	case Props:
		unfinishedIn(map[string]any(x), out)
	case []any:
		for _, e := range x {
			unfinishedIn(e, out)
		}
	}
}

// finished reports whether r is nil or its registration has finished.
func finished(r *Resource) bool {
	if r == nil {
		return true
	}
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// buildGoal builds a registration's goal from its options and inputs,
// waiting for any dependency that has not finished (launch calls it once
// all have, so it normally waits for nothing).
func (c *Context) buildGoal(r *Resource, props Props, o *resourceOptions) (*resource.Goal, error) {
	goal := &resource.Goal{
		Type: r.typ, Name: r.name, Custom: r.custom, Protect: o.protect,
		DeleteBeforeReplace: o.deleteBeforeReplace, RetainOnDelete: o.retainOnDelete,
		IgnoreChanges: o.ignoreChanges, ReplaceOnChanges: o.replaceOnChanges,
		AdditionalSecretOutputs: o.secretOutputs, Aliases: o.aliases, CustomTimeouts: o.timeouts,
		ImportID: o.importID, Version: o.version, Remote: o.remote,
	}
	hooks, err := c.d.hooks.bind(o.hooks)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", r.typ, r.name, err)
	}
	goal.Hooks = hooks
	parent := o.parent
	if parent == nil && c.root != nil && r != c.root {
		parent = c.root
	}
	if parent != nil {
		if err := parent.awaitDep(c.ctx, r); err != nil {
			return nil, err
		}
		goal.Parent = parent.urn
	}
	for _, d := range o.dependsOn {
		if err := d.awaitDep(c.ctx, r); err != nil {
			return nil, err
		}
		goal.Dependencies = append(goal.Dependencies, d.urn)
	}
	if o.deletedWith != nil {
		if err := o.deletedWith.awaitDep(c.ctx, r); err != nil {
			return nil, err
		}
		goal.DeletedWith = o.deletedWith.urn
	}
	if o.provider != nil {
		ref, err := o.provider.referenceFor(c.ctx, r)
		if err != nil {
			return nil, err
		}
		goal.Provider = ref
	}
	in, propDeps, err := c.resolvePropsFor(props, r)
	if err != nil {
		return nil, err
	}
	goal.Inputs = in
	if len(propDeps) > 0 {
		goal.PropertyDependencies = propDeps
		for _, us := range propDeps {
			goal.Dependencies = append(goal.Dependencies, us...)
		}
	}
	if len(goal.Dependencies) > 1 {
		slices.Sort(goal.Dependencies)
		goal.Dependencies = slices.Compact(goal.Dependencies)
	}

	c.mu.Lock()
	transforms := c.transforms
	c.mu.Unlock()
	for _, t := range transforms {
		if err := t(c.ctx, goal); err != nil {
			return nil, fmt.Errorf("transforming %s %q: %w", r.typ, r.name, err)
		}
	}
	return goal, nil
}

// RegisterTransform adds a transform applied to every registration the
// program makes after this call.
func (c *Context) RegisterTransform(t Transform) {
	c.mu.Lock()
	c.transforms = append(c.transforms, t)
	c.mu.Unlock()
}

// importSpec registers one resource of a standalone import.
func (c *Context) importSpec(spec ImportSpec) {
	r := &Resource{ctx: c, typ: spec.Type, name: spec.Name, custom: true, done: make(chan struct{})}
	c.wg.Add(1)
	goal := &resource.Goal{Type: spec.Type, Name: spec.Name, Custom: true, ImportID: spec.ID,
		Parent: spec.Parent, Provider: spec.Provider, Version: spec.Version, Inputs: spec.Inputs}
	if goal.Parent == "" && c.root != nil {
		goal.Parent = c.root.urn
	}
	c.d.mon.RegisterResourceAsync(c.ctx, goal, r.finish)
}

// Call calls a method of a component resource through its provider and
// waits for the result. self is the component; the provider finds it as a
// resource reference in the argument "__self__".
func (c *Context) Call(token string, self *Resource, args Props, opts ...ResourceOption) (resource.PropertyMap, error) {
	o := collect(opts)
	if args == nil {
		args = Props{}
	}
	in, deps, err := c.resolveProps(args)
	if err != nil {
		return nil, err
	}
	if self != nil {
		if err := self.Wait(); err != nil {
			return nil, err
		}
		in["__self__"] = resource.NewResourceReference(resource.ResourceReference{URN: self.urn, ID: self.id})
	}
	req := monitor.CallRequest{Token: token, Args: in, ArgDependencies: deps, Version: o.version}
	if o.provider != nil {
		if req.Provider, err = o.provider.reference(c.ctx); err != nil {
			return nil, err
		}
	}
	resp, err := c.d.mon.Call(c.ctx, req)
	if err != nil {
		return nil, err
	}
	if len(resp.Failures) > 0 {
		return nil, fmt.Errorf("call %s failed: %v", token, resp.Failures)
	}
	return resp.Return, nil
}
