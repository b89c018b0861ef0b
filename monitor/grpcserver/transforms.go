package grpcserver

import (
	"context"
	"fmt"
	"slices"
	"sync"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/resource"
)

// transforms are the program's transforms, which the engine runs by calling
// back into the program (see callbacks), as Pulumi's engine does:
//
//   - stack transforms (RegisterStackTransform) rewrite every registration
//     that follows;
//   - a resource's own transforms (the request's Transforms) rewrite it
//     and, after it, each of its descendants: a registration runs its own,
//     then its parent's, its grandparent's and so on, then the stack's;
//   - the transforms of a remote component are kept until its provider
//     registers the component itself (same parent, type and name), which
//     then runs them as its own, so that they reach its children;
//   - invoke transforms (RegisterStackInvokeTransform) rewrite every
//     function invoke that follows.
//
// Each transform is handed the registration's inputs and options, and its
// answer replaces them. Dependencies are then taken from the options'
// dependsOn and from the output values among the inputs.
type transforms struct {
	cbs *callbacks

	mu     sync.Mutex
	stack  []*pulumirpc.Callback
	invoke []*pulumirpc.Callback
	// inherited holds, for each registered resource that has any, the
	// resource transforms its children inherit: its own, then its
	// ancestors'.
	inherited map[resource.URN][]*pulumirpc.Callback
	// pending holds the own transforms of remote components, by
	// "parent::type::name", until their provider registers them.
	pending map[string][]*pulumirpc.Callback
}

func newTransforms(cbs *callbacks) *transforms {
	return &transforms{cbs: cbs, inherited: map[resource.URN][]*pulumirpc.Callback{}, pending: map[string][]*pulumirpc.Callback{}}
}

func (t *transforms) addStack(cb *pulumirpc.Callback) {
	t.mu.Lock()
	t.stack = append(t.stack, cb)
	t.mu.Unlock()
}

func (t *transforms) addInvoke(cb *pulumirpc.Callback) {
	t.mu.Lock()
	t.invoke = append(t.invoke, cb)
	t.mu.Unlock()
}

// forRegistration returns the resource's own transforms and every transform
// to run on it, in order.
func (t *transforms) forRegistration(req *pulumirpc.RegisterResourceRequest) (own, all []*pulumirpc.Callback) {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := req.GetParent() + "::" + req.GetType() + "::" + req.GetName()
	if p, ok := t.pending[key]; ok && !req.GetRemote() {
		delete(t.pending, key)
		own = p
	} else {
		own = req.GetTransforms()
		if req.GetRemote() && len(own) > 0 {
			t.pending[key] = own
		}
	}
	inherited := t.inherited[resource.URN(req.GetParent())]
	if len(own)+len(inherited)+len(t.stack) == 0 {
		return own, nil
	}
	all = make([]*pulumirpc.Callback, 0, len(own)+len(inherited)+len(t.stack))
	all = append(append(append(all, own...), inherited...), t.stack...)
	return own, all
}

// registered records the transforms a registered resource's children
// inherit.
func (t *transforms) registered(urn, parent resource.URN, own []*pulumirpc.Callback) {
	t.mu.Lock()
	defer t.mu.Unlock()
	inherited := t.inherited[parent]
	if len(own)+len(inherited) > 0 {
		t.inherited[urn] = append(slices.Clip(own), inherited...)
	}
}

// applyResource runs transforms on a registration, rewriting req. upgrade
// says the resource has transforms of its own: its inputs are then handed
// over as output values that carry their property dependencies, as
// Pulumi's engine hands them.
func (t *transforms) applyResource(ctx context.Context, req *pulumirpc.RegisterResourceRequest, all []*pulumirpc.Callback, upgrade bool) error {
	props, err := wire.UnmarshalProperties(req.GetObject(), wire.KeepAll())
	if err != nil {
		return err
	}
	if upgrade {
		props = withDependencies(props, req.GetPropertyDependencies())
	}
	obj, err := wire.MarshalProperties(props, wire.KeepAll())
	if err != nil {
		return err
	}
	opts := transformOptions(req)
	for _, cb := range all {
		var resp pulumirpc.TransformResponse
		err := t.cbs.call(ctx, cb, &pulumirpc.TransformRequest{
			Type: req.GetType(), Name: req.GetName(), Custom: req.GetCustom(), Parent: req.GetParent(),
			Properties: obj, Options: opts,
		}, &resp)
		if err != nil {
			return fmt.Errorf("a transform of the program failed: %w", err)
		}
		if resp.GetProperties() != nil {
			obj = resp.GetProperties()
		}
		if resp.GetOptions() != nil {
			opts = resp.GetOptions()
		}
	}
	setTransformOptions(req, opts)
	if props, err = wire.UnmarshalProperties(obj, wire.KeepAll()); err != nil {
		return fmt.Errorf("the inputs a transform answered: %w", err)
	}
	req.Object = obj
	keepOld := req.GetPropertyDependencies()
	if upgrade {
		keepOld = nil // carried by the output values
	}
	req.PropertyDependencies, req.Dependencies = dependenciesOf(props, keepOld, req.GetDependencies())
	return nil
}

// withDependencies wraps the inputs that have property dependencies as
// output values carrying them.
func withDependencies(props resource.PropertyMap, deps map[string]*pulumirpc.RegisterResourceRequest_PropertyDependencies) resource.PropertyMap {
	if len(deps) == 0 {
		return props
	}
	out := props.Copy()
	for k, v := range props {
		d := deps[string(k)].GetUrns()
		if len(d) == 0 {
			continue
		}
		o := resource.Output{Element: v, Known: true}
		switch {
		case v.IsOutput():
			o = v.OutputValue()
		case v.IsUnknown():
			o = resource.Output{}
		case v.IsSecret():
			o = resource.Output{Element: v.SecretElement(), Known: !v.SecretElement().ContainsUnknowns(), Secret: true}
		}
		for _, u := range d {
			if !slices.Contains(o.Dependencies, resource.URN(u)) {
				o.Dependencies = append(slices.Clip(o.Dependencies), resource.URN(u))
			}
		}
		out[k] = resource.NewOutput(o)
	}
	return out
}

// dependenciesOf returns the property dependencies of transformed inputs
// (those their output values carry, and those of old for the properties
// still there) and the resource's dependencies: dependsOn and all of
// those.
func dependenciesOf(props resource.PropertyMap, old map[string]*pulumirpc.RegisterResourceRequest_PropertyDependencies, dependsOn []string) (map[string]*pulumirpc.RegisterResourceRequest_PropertyDependencies, []string) {
	all := slices.Clone(dependsOn)
	var out map[string]*pulumirpc.RegisterResourceRequest_PropertyDependencies
	for _, k := range props.StableKeys() {
		urns := slices.Clone(old[string(k)].GetUrns())
		outputDependencies(props[k], &urns)
		if len(urns) == 0 {
			continue
		}
		slices.Sort(urns)
		urns = slices.Compact(urns)
		if out == nil {
			out = map[string]*pulumirpc.RegisterResourceRequest_PropertyDependencies{}
		}
		out[string(k)] = &pulumirpc.RegisterResourceRequest_PropertyDependencies{Urns: urns}
		all = append(all, urns...)
	}
	slices.Sort(all)
	return out, slices.Compact(all)
}

// outputDependencies adds the dependencies of the output values within v.
func outputDependencies(v resource.PropertyValue, into *[]string) {
	switch {
	case v.IsOutput():
		o := v.OutputValue()
		for _, u := range o.Dependencies {
			*into = append(*into, string(u))
		}
		if o.Known {
			outputDependencies(o.Element, into)
		}
	case v.IsSecret():
		outputDependencies(v.SecretElement(), into)
	case v.IsObject():
		for _, e := range v.ObjectValue() {
			outputDependencies(e, into)
		}
	case v.IsArray():
		for _, e := range v.ArrayValue() {
			outputDependencies(e, into)
		}
	}
}

// applyInvoke runs the invoke transforms on an invoke, rewriting req.
func (t *transforms) applyInvoke(ctx context.Context, req *pulumirpc.ResourceInvokeRequest) error {
	t.mu.Lock()
	all := t.invoke
	t.mu.Unlock()
	if len(all) == 0 {
		return nil
	}
	args, opts := req.GetArgs(), &pulumirpc.TransformInvokeOptions{
		Provider: req.GetProvider(), Version: req.GetVersion(),
		PluginDownloadUrl: req.GetPluginDownloadURL(), PluginChecksums: req.GetPluginChecksums(),
	}
	if args == nil {
		args = &structpb.Struct{}
	}
	for _, cb := range all {
		var resp pulumirpc.TransformInvokeResponse
		if err := t.cbs.call(ctx, cb, &pulumirpc.TransformInvokeRequest{Token: req.GetTok(), Args: args, Options: opts}, &resp); err != nil {
			return fmt.Errorf("an invoke transform of the program failed: %w", err)
		}
		if resp.GetArgs() != nil {
			args = resp.GetArgs()
		}
		if resp.GetOptions() != nil {
			opts = resp.GetOptions()
		}
	}
	req.Args, req.Provider, req.Version = args, opts.GetProvider(), opts.GetVersion()
	req.PluginDownloadURL, req.PluginChecksums = opts.GetPluginDownloadUrl(), opts.GetPluginChecksums()
	return nil
}
