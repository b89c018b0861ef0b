package program

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// A registration's life: launch checks its arguments at once (a bad one
// fails it on the spot), then waits, without a goroutine, for everything it
// depends on; register builds its goal (running the program's transforms)
// and hands it to the monitor, which calls finish when the step has
// completed. Every path ends in exactly one finish, which gives back the
// registration's count of pending work, so the operation never waits for
// a registration that cannot end.

// noOptions are the options of every registration that passes none. Like
// every resourceOptions once collect has returned it, it is only read.
var noOptions resourceOptions

// collect applies opts to fresh options. A registration without options
// shares noOptions rather than allocating options of its own.
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

func (c *Context) newResource(typ, name string, custom bool) *Resource {
	return &Resource{ctx: c, typ: typ, name: name, custom: custom}
}

// start launches a registration in the background and returns its handle.
func (c *Context) start(typ, name string, custom bool, args any, opts []ResourceOption) *Resource {
	r := c.newResource(typ, name, custom)
	c.launch(r, args, opts)
	return r
}

// launch starts r's registration. When everything it depends on has
// finished already (the common case), its goal is built at once and handed
// to the monitor on the caller's goroutine. Otherwise it waits without a
// goroutine: each unfinished dependency calls it back when it finishes,
// and the last one starts a goroutine that builds the goal (transforms are
// the program's code, which must not run on the engine's own goroutines).
// Reads always get a goroutine, since the monitor answers them by
// blocking.
func (c *Context) launch(r *Resource, args any, opts []ResourceOption) {
	if !c.pending.add() {
		r.finish(providers.RegisterResult{}, fmt.Errorf("%s was registered after the program returned; register resources before the program function returns", r.describe()))
		return
	}
	r.counted = true
	o := collect(opts)
	props, waiting, err := c.prepare(r, args, o)
	if err != nil {
		r.finish(providers.RegisterResult{}, err)
		return
	}
	if len(waiting) == 0 {
		if r.readID != nil {
			go c.register(r, props, o)
		} else {
			c.register(r, props, o)
		}
		return
	}
	c.graph.Lock()
	if c.waitingOn == nil {
		c.waitingOn = map[*Resource][]waitable{}
	}
	c.waitingOn[r] = waiting
	c.graph.Unlock()
	// One count per dependency, and one for launch itself, so that the
	// registration cannot start before every callback is in place.
	var left atomic.Int32
	left.Store(int32(len(waiting)) + 1)
	start := func() {
		if left.Add(-1) == 0 {
			c.graph.Lock()
			delete(c.waitingOn, r)
			c.graph.Unlock()
			go c.register(r, props, o)
		}
	}
	for _, w := range waiting {
		w.onFinish(start)
	}
	start()
}

// prepare checks a registration's arguments and returns its inputs as
// Props and what it waits for.
func (c *Context) prepare(r *Resource, args any, o *resourceOptions) (Props, []waitable, error) {
	bad := func(arg, reason string, a ...any) error {
		return &ArgumentError{Type: r.typ, Name: r.name, Argument: arg, Reason: fmt.Sprintf(reason, a...)}
	}
	switch {
	case r.name == "":
		return nil, nil, bad("the name", "is empty")
	case !utf8.ValidString(r.name):
		return nil, nil, bad("the name", "is not valid UTF-8 (it would be recorded altered, and the resource replaced on every update)")
	case !utf8.ValidString(r.typ):
		return nil, nil, bad("the type", "is not valid UTF-8 (it would be recorded altered, and the resource replaced on every update)")
	case strings.Contains(r.name, "::"):
		return nil, nil, bad("the name", `must not contain "::"`)
	case r.typ == "":
		return nil, nil, bad("the type", "is empty")
	case strings.Contains(r.typ, "::"):
		return nil, nil, bad("the type", `must not contain "::"`)
	case r.readID != nil && *r.readID == "":
		return nil, nil, bad("the ID", "is empty")
	}
	if r.custom {
		if err := resource.CheckType(r.typ); err != nil {
			return nil, nil, bad("the type", `is not a custom resource type ("package:module:Type"): %v`, err)
		}
	}
	if err := o.check(r); err != nil {
		return nil, nil, err
	}
	if err := o.checkOwner(c, r); err != nil {
		return nil, nil, err
	}
	if o.provider != nil && !resource.IsProviderType(o.provider.typ) {
		return nil, nil, bad("option Provider", "names %s, which is not a provider; register providers with Context.Provider", o.provider.describe())
	}
	props, err := inputsOf(args)
	if err != nil {
		return nil, nil, bad("the inputs", "%v", err)
	}
	var waiting []waitable
	add := func(d *Resource) {
		if d != nil && !d.finished() {
			waiting = append(waiting, d)
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
	if err := c.scanProps(r, props, &waiting); err != nil {
		return nil, nil, err
	}
	return props, waiting, nil
}

// register builds r's goal and hands it to the monitor. A panic on the way
// (in a transform, say) fails the registration.
func (c *Context) register(r *Resource, props Props, o *resourceOptions) {
	err := func() (err error) {
		defer func() {
			if v := recover(); v != nil {
				err = newPanicError("the registration of "+r.describe(), v)
			}
		}()
		goal, err := c.buildGoal(r, props, o)
		if err != nil {
			return err
		}
		if r.readID != nil {
			r.finish(c.mon.ReadResource(c.ctx, *goal, *r.readID))
			return nil
		}
		c.mon.RegisterResourceAsync(c.ctx, goal, r.finish)
		return nil
	}()
	if err != nil {
		r.finish(providers.RegisterResult{}, err)
	}
}

// buildGoal builds a registration's goal from its options and inputs,
// waiting for any dependency that has not finished (launch calls it once
// all have, so it normally waits for nothing), and runs the program's
// transforms on it.
func (c *Context) buildGoal(r *Resource, props Props, o *resourceOptions) (*resource.Goal, error) {
	goal := &resource.Goal{
		Type: r.typ, Name: r.name, Custom: r.custom, Protect: o.protect,
		DeleteBeforeReplace: o.deleteBeforeReplace, RetainOnDelete: o.retainOnDelete,
		IgnoreChanges: o.ignoreChanges, ReplaceOnChanges: o.replaceOnChanges,
		AdditionalSecretOutputs: o.secretOutputs, Aliases: o.aliases, CustomTimeouts: o.timeouts,
		ImportID: o.importID, Version: o.version, Remote: o.remote,
	}
	hooks, err := c.bindHooks(o.hooks)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.describe(), err)
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
	return goal, c.transform(r, goal)
}

// transform runs the program's transforms on r's goal, as callbacks.
func (c *Context) transform(r *Resource, goal *resource.Goal) error {
	c.mu.Lock()
	transforms := c.transforms
	c.mu.Unlock()
	if len(transforms) == 0 {
		return nil
	}
	c.graph.Lock()
	r.transforming = true
	c.graph.Unlock()
	defer func() {
		c.graph.Lock()
		r.transforming = false
		c.graph.Unlock()
	}()
	for i, t := range transforms {
		if err := runCallback("the transform", func() error { return t(c.ctx, goal) }); err != nil {
			return fmt.Errorf("transform %d of %d, transforming %s: %w", i+1, len(transforms), r.describe(), err)
		}
	}
	return nil
}
