package providers

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"

	"github.com/groundwork-iac/groundwork/resource"
)

// Parameterize parameterizes the plugin pluginPkg (at a version compatible
// with pluginVersion) with req, and records the package it produces: from
// then on the registry serves that package (at the version the plugin
// reported) by starting pluginPkg and replaying req on each new instance.
// Provider resources of the produced package are checked, configured and
// looked up like any other, and their checked inputs record the
// parameterization (under ParameterizationKey) so that a later run can
// restore it from state without the program.
//
// req is either the args form (as a user typed it) or the value form (a
// value recorded earlier); exactly one must be set. Parameterizing the same
// package and version again from the same plugin is a no-op; producing a
// package that another plugin already serves at that version is an error.
func (r *Registry) Parameterize(ctx context.Context, pluginPkg, pluginVersion string, req ParameterizeRequest) (ParameterizeResponse, error) {
	fail := func(format string, args ...any) (ParameterizeResponse, error) {
		return ParameterizeResponse{}, fmt.Errorf("parameterize provider %s: %s", pluginPkg, fmt.Sprintf(format, args...))
	}
	if (req.Args == nil) == (req.Value == nil) {
		return fail("set exactly one of the request's Args and Value")
	}
	if r.isClosed() {
		return ParameterizeResponse{}, fmt.Errorf("parameterize provider %s: %w", pluginPkg, ErrRegistryClosed)
	}
	plugin, err := r.resolve(ctx, pluginPkg, pluginVersion)
	if err != nil {
		return ParameterizeResponse{}, err
	}
	if plugin.param != nil {
		return fail("package %s is itself produced by parameterization; parameterize its plugin %s instead", plugin.info, plugin.info.Plugin)
	}
	p, err := plugin.build(ctx, plugin.info.String())
	if err != nil {
		return ParameterizeResponse{}, err
	}
	resp, err := Parameterize(ctx, p, req)
	if err == nil && resp.Name == "" {
		err = errors.New("it reported no package name")
	}
	var v Version
	if err == nil {
		v, err = ParseVersion(resp.Version)
	}
	if err != nil {
		return ParameterizeResponse{}, errors.Join(fmt.Errorf("parameterize provider %s: %w", plugin.info, err), Close(ctx, p))
	}
	replay := cloneParameterizeRequest(req)
	e := &factoryEntry{
		info:    FactoryInfo{Package: resp.Name, Version: v.String(), Plugin: plugin.info.Package, PluginVersion: plugin.info.Version},
		version: v,
		factory: plugin.factory,
		param:   &replay,
	}
	if existing := r.exact(resp.Name, v); existing != nil {
		if existing.info.Plugin != e.info.Plugin {
			err = fmt.Errorf("parameterize provider %s: it produced package %s, which %s already serves; use a different package name", plugin.info, e.info.Package+"@"+e.info.Version, existing.info)
		}
		return resp, errors.Join(err, Close(ctx, p))
	}
	if err := r.addEntry(e); err != nil {
		return ParameterizeResponse{}, errors.Join(err, Close(ctx, p))
	}
	// The probe instance is parameterized and unconfigured: exactly what
	// the registry checks configuration with.
	if !r.adoptChecker(e.info, p) {
		return resp, Close(ctx, p)
	}
	return resp, nil
}

// exact returns the entry of pkg at exactly version v, or nil.
func (r *Registry) exact(pkg string, v Version) *factoryEntry {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.factories[pkg] {
		if e.version.Compare(v) == 0 {
			return e
		}
	}
	return nil
}

func cloneParameterizeRequest(req ParameterizeRequest) ParameterizeRequest {
	out := ParameterizeRequest{Args: slices.Clone(req.Args)}
	if req.Value != nil {
		v := *req.Value
		v.Value = slices.Clone(v.Value)
		out.Value = &v
	}
	return out
}

// parameterization is what a provider resource's inputs record about the
// parameterization of its package, under ParameterizationKey:
//
//	{plugin: "tf", pluginVersion: "0.5.0", name: "aws", version: "1.0.0",
//	 args: ["hashicorp/aws"]}          (args form), or
//	{..., value: "<base64>"}          (value form)
type parameterization struct {
	plugin, pluginVersion string
	name, version         string
	req                   ParameterizeRequest
}

func encodeParameterization(e *factoryEntry) resource.PropertyValue {
	m := resource.PropertyMap{
		"plugin":        resource.NewString(e.info.Plugin),
		"pluginVersion": resource.NewString(e.info.PluginVersion),
		"name":          resource.NewString(e.info.Package),
		"version":       resource.NewString(e.info.Version),
	}
	if e.param.Value != nil {
		m["value"] = resource.NewString(base64.StdEncoding.EncodeToString(e.param.Value.Value))
	} else {
		args := make([]resource.PropertyValue, len(e.param.Args))
		for i, a := range e.param.Args {
			args[i] = resource.NewString(a)
		}
		m["args"] = resource.NewArray(args...)
	}
	return resource.NewObject(m)
}

func decodeParameterization(v resource.PropertyValue) (*parameterization, error) {
	bad := func(reason string) (*parameterization, error) {
		return nil, fmt.Errorf("input %q is malformed: %s (it is written by the registry; restore it from an earlier state or remove it and parameterize the package again)", ParameterizationKey, reason)
	}
	m := v.ObjectValue()
	if !v.IsObject() {
		return bad("want an object, found " + v.Kind().String())
	}
	str := func(k resource.PropertyKey) string { return m[k].StringValue() }
	p := &parameterization{plugin: str("plugin"), pluginVersion: str("pluginVersion"), name: str("name"), version: str("version")}
	if p.plugin == "" || p.name == "" || p.version == "" {
		return bad(`"plugin", "name" and "version" must be non-empty strings`)
	}
	switch args, value := m["args"], m["value"]; {
	case value.IsString():
		b, err := base64.StdEncoding.DecodeString(value.StringValue())
		if err != nil {
			return bad(`"value" is not base64: ` + err.Error())
		}
		p.req.Value = &ParameterizeValue{Name: p.name, Version: p.version, Value: b}
	case args.IsArray():
		p.req.Args = []string{}
		for _, a := range args.ArrayValue() {
			if !a.IsString() {
				return bad(`"args" must hold strings`)
			}
			p.req.Args = append(p.req.Args, a.StringValue())
		}
	default:
		return bad(`want "args" (an array of strings) or "value" (a base64 string)`)
	}
	return p, nil
}

// restoreParameterization makes sure the package a provider resource's
// recorded parameterization produced is served, parameterizing its plugin
// if this registry has not yet done so.
func (r *Registry) restoreParameterization(ctx context.Context, p *parameterization) error {
	v, err := ParseVersion(p.version)
	if err != nil {
		return fmt.Errorf("restore parameterized package %s: %w", p.name, err)
	}
	if r.exact(p.name, v) != nil {
		return nil
	}
	resp, err := r.Parameterize(ctx, p.plugin, p.pluginVersion, p.req)
	if err != nil {
		return err
	}
	if got, err := ParseVersion(resp.Version); resp.Name != p.name || err != nil || got.Compare(v) != 0 {
		return fmt.Errorf("restore parameterized package %s@%s: plugin %s produced %s@%s instead; the recorded parameterization no longer matches the plugin", p.name, p.version, p.plugin, resp.Name, resp.Version)
	}
	return nil
}
