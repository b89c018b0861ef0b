package drive

import (
	"context"
	"fmt"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/groundwork-iac/groundwork/conformance/spec"
	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/resource"
)

// runVersion is the program of version i of p, as a Pulumi SDK would run
// it, over the ResourceMonitor protocol: it registers the stack, then each
// resource in order, waiting for each registration's answer before the
// next (so that both engines see the same requests in the same order and
// a failure stops the program at the same point), then the stack outputs.
// Both engines run this same function; only the monitor differs.
func runVersion(ctx context.Context, mon pulumirpc.ResourceMonitorClient, p *spec.Program, i int) error {
	return runProgram(ctx, mon, p, i, false)
}

// runProgram is runVersion, in a preview when preview is set: an output
// a registration's answer lacks is then unknown, as the SDKs take it.
func runProgram(ctx context.Context, mon pulumirpc.ResourceMonitorClient, p *spec.Program, i int, preview bool) error {
	stack, err := mon.RegisterResource(ctx, &pulumirpc.RegisterResourceRequest{
		Type: resource.RootStackType, Name: spec.Project + "-" + spec.Stack,
		Object: &structpb.Struct{}, AcceptSecrets: true, AcceptResources: true,
	})
	if err != nil {
		return fmt.Errorf("registering the stack: %w", err)
	}
	if p.Schedule != nil && p.Schedule.Concurrent {
		return runConcurrently(ctx, mon, p, i, stack.GetUrn())
	}
	v := &p.Versions[i]
	var before map[string]resource.URN
	if i > 0 {
		before = p.URNs(i - 1)
	}
	urns := map[string]string{}
	outs := map[string]string{}
	for j := range v.Resources {
		r := &v.Resources[j]
		req, err := request(r, stack.GetUrn(), urns, outs, before)
		if err != nil {
			return err
		}
		resp, err := mon.RegisterResource(ctx, req)
		if err != nil {
			return fmt.Errorf("registering %s: %w", r.Name, err)
		}
		urns[r.Name] = resp.GetUrn()
		if out := resp.GetObject().GetFields()[spec.OutKey]; out != nil {
			outs[r.Name] = out.GetStringValue()
		} else if preview {
			outs[r.Name] = wire.UnknownStringValue
		}
	}
	for j := range v.Resources {
		r := &v.Resources[j]
		if !r.IsComponent() {
			continue
		}
		_, err := mon.RegisterResourceOutputs(ctx, &pulumirpc.RegisterResourceOutputsRequest{
			Urn: urns[r.Name], Outputs: &structpb.Struct{},
		})
		if err != nil {
			return fmt.Errorf("registering the outputs of %s: %w", r.Name, err)
		}
	}
	exports := map[string]*structpb.Value{}
	for _, name := range v.Exports {
		exports[name] = structpb.NewStringValue(outs[name])
	}
	_, err = mon.RegisterResourceOutputs(ctx, &pulumirpc.RegisterResourceOutputsRequest{
		Urn: stack.GetUrn(), Outputs: &structpb.Struct{Fields: exports},
	})
	if err != nil {
		return fmt.Errorf("registering the stack outputs: %w", err)
	}
	return nil
}

// request builds the registration of r, as the SDKs build it: every
// dependency (explicit and through properties) in Dependencies, the
// property dependencies of every property apart (empty for a literal),
// options given explicitly, aliases as specs.
func request(r *spec.Resource, stack string, urns, outs map[string]string, before map[string]resource.URN) (*pulumirpc.RegisterResourceRequest, error) {
	fields := map[string]*structpb.Value{}
	propDeps := map[string]*pulumirpc.RegisterResourceRequest_PropertyDependencies{}
	var deps []string
	seen := map[string]bool{}
	addDep := func(urn string) {
		if !seen[urn] {
			seen[urn] = true
			deps = append(deps, urn)
		}
	}
	for _, d := range r.DependsOn {
		addDep(urns[d])
	}
	for _, pr := range r.Props {
		if pr.From == "" {
			fields[pr.Key] = structpb.NewStringValue(pr.Value)
			propDeps[pr.Key] = &pulumirpc.RegisterResourceRequest_PropertyDependencies{}
			continue
		}
		fields[pr.Key] = structpb.NewStringValue(outs[pr.From])
		propDeps[pr.Key] = &pulumirpc.RegisterResourceRequest_PropertyDependencies{Urns: []string{urns[pr.From]}}
		addDep(urns[pr.From])
	}
	parent := stack
	if r.Parent != "" {
		parent = urns[r.Parent]
	}
	var aliases []*pulumirpc.Alias
	for _, a := range r.Aliases {
		s := &pulumirpc.Alias_Spec{Name: a.Name, Type: a.Type}
		if a.Parent != nil {
			if *a.Parent == "" {
				s.Parent = &pulumirpc.Alias_Spec_ParentUrn{ParentUrn: stack}
			} else {
				old, ok := before[*a.Parent]
				if !ok {
					return nil, fmt.Errorf("%s: alias parent %q is not in the version before", r.Name, *a.Parent)
				}
				s.Parent = &pulumirpc.Alias_Spec_ParentUrn{ParentUrn: string(old)}
			}
		}
		aliases = append(aliases, &pulumirpc.Alias{Alias: &pulumirpc.Alias_Spec_{Spec: s}})
	}
	protect, retain := r.Protect, r.RetainOnDelete
	return &pulumirpc.RegisterResourceRequest{
		Type:                       r.TypeOrDefault(),
		Name:                       r.Name,
		Parent:                     parent,
		Custom:                     !r.IsComponent(),
		Object:                     &structpb.Struct{Fields: fields},
		Protect:                    &protect,
		RetainOnDelete:             &retain,
		Dependencies:               deps,
		PropertyDependencies:       propDeps,
		DeleteBeforeReplace:        r.DeleteBeforeReplace,
		DeleteBeforeReplaceDefined: true,
		ReplaceOnChanges:           r.ReplaceOnChanges,
		Aliases:                    aliases,
		AliasSpecs:                 true,
		AcceptSecrets:              true,
		AcceptResources:            true,
		SupportsPartialValues:      true,
		SupportsResultReporting:    false,
	}, nil
}
