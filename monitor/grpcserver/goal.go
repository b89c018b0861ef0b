package grpcserver

import (
	"context"
	"fmt"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/resource"
)

// goalOf converts a registration to a resource.Goal, with every resource
// option the engine supports.
//
// Inputs keep unknowns, secrets and resource references. Output values
// (which an SDK sends when the server supports "outputValues") are kept
// only for remote components, whose provider's Construct takes them;
// elsewhere they become the value they hold, still secret or unknown.
//
// A custom resource that names no provider but whose providers map has an
// entry for its package uses that provider. Aliases are read by
// aliasesOf. Custom timeouts are Go durations ("5m", "1h30m"); an
// unreadable one is an error.
func goalOf(ctx context.Context, req *pulumirpc.RegisterResourceRequest) (resource.Goal, error) {
	opts := plainInputs
	opts.KeepOutputValues = req.GetRemote()
	inputs, err := wire.UnmarshalProperties(req.GetObject(), opts)
	if err != nil {
		return resource.Goal{}, err
	}
	g := resource.Goal{
		Type:                    req.GetType(),
		Name:                    req.GetName(),
		Custom:                  req.GetCustom(),
		Remote:                  req.GetRemote(),
		Inputs:                  inputs,
		Parent:                  resource.URN(req.GetParent()),
		Provider:                req.GetProvider(),
		Version:                 req.GetVersion(),
		Protect:                 req.GetProtect(),
		Dependencies:            wire.URNs(req.GetDependencies()),
		DeleteBeforeReplace:     req.GetDeleteBeforeReplace(),
		IgnoreChanges:           req.GetIgnoreChanges(),
		ReplaceOnChanges:        req.GetReplaceOnChanges(),
		AdditionalSecretOutputs: keys(req.GetAdditionalSecretOutputs()),
		RetainOnDelete:          req.GetRetainOnDelete(),
		DeletedWith:             resource.URN(req.GetDeletedWith()),
		ImportID:                resource.ID(req.GetImportId()),
		Hooks:                   hooksOf(req.GetHooks()),
	}
	if len(req.GetHooks().GetOnError()) > 0 {
		return resource.Goal{}, fmt.Errorf("error hooks (%v) are not supported", req.GetHooks().GetOnError())
	}
	if g.Aliases, err = aliasesOf(ctx, req); err != nil {
		return resource.Goal{}, err
	}
	if g.Custom && g.Provider == "" {
		g.Provider = req.GetProviders()[resource.TypePackage(g.Type)]
	}
	if !g.Custom && !g.Remote {
		// A component has no provider of its own: Pulumi's engine records
		// none, whatever the request (or a transform, which a remote
		// component's own registration by its provider also goes
		// through) names. Its children take theirs from Providers.
		g.Provider = ""
	}
	if g.Remote && len(req.GetProviders()) > 0 {
		g.Providers = req.GetProviders()
	}
	if deps := req.GetPropertyDependencies(); len(deps) > 0 {
		g.PropertyDependencies = make(map[resource.PropertyKey][]resource.URN, len(deps))
		for k, d := range deps {
			g.PropertyDependencies[resource.PropertyKey(k)] = wire.URNs(d.GetUrns())
		}
	}
	if t := req.GetCustomTimeouts(); t != nil {
		if g.CustomTimeouts, err = timeouts(t); err != nil {
			return resource.Goal{}, err
		}
	}
	return g, nil
}

func timeouts(t *pulumirpc.RegisterResourceRequest_CustomTimeouts) (resource.CustomTimeouts, error) {
	var out resource.CustomTimeouts
	for _, f := range []struct {
		name string
		in   string
		out  *time.Duration
	}{{"create", t.GetCreate(), &out.Create}, {"update", t.GetUpdate(), &out.Update}, {"delete", t.GetDelete(), &out.Delete}} {
		if f.in == "" {
			continue
		}
		d, err := time.ParseDuration(f.in)
		if err != nil {
			return out, fmt.Errorf("the custom %s timeout %q is not a duration such as \"5m\"", f.name, f.in)
		}
		*f.out = d
	}
	return out, nil
}
