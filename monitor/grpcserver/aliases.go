package grpcserver

import (
	"context"
	"fmt"
	"strings"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/metadata"

	"github.com/groundwork-iac/groundwork/resource"
)

// aliasesOf reads a registration's aliases as Pulumi's engine reads them:
// the legacy alias URNs, then the alias specs (or full URNs). The server
// tells SDKs it supports alias specs, so they send each alias as the
// program wrote it and leave the aliases a child inherits from a renamed
// parent to the engine (the generator derives them).
//
// Node.js SDKs that predate properly formed specs encoded a spec's parent
// the other way round: no parent (or an empty parent URN) meant "no
// parent", and NoParent meant "the resource's parent". A request from
// Node.js that does not say its specs are properly formed (AliasSpecs) is
// read that way, as the reference engine reads it.
//
// An alias URN, or an alias's parent URN, that is not a URN is an error.
func aliasesOf(ctx context.Context, req *pulumirpc.RegisterResourceRequest) ([]resource.Alias, error) {
	n := len(req.GetAliasURNs()) + len(req.GetAliases())
	if n == 0 {
		return nil, nil
	}
	out := make([]resource.Alias, 0, n)
	for _, u := range req.GetAliasURNs() {
		urn, err := resource.ParseURN(u)
		if err != nil {
			return nil, fmt.Errorf("alias URN %q: %w", u, err)
		}
		out = append(out, resource.Alias{URN: urn})
	}
	legacyNode := !req.GetAliasSpecs() && fromNodeJS(ctx)
	for _, a := range req.GetAliases() {
		spec := a.GetSpec()
		if spec == nil {
			urn, err := resource.ParseURN(a.GetUrn())
			if err != nil {
				return nil, fmt.Errorf("alias URN %q: %w", a.GetUrn(), err)
			}
			out = append(out, resource.Alias{URN: urn})
			continue
		}
		alias := resource.Alias{Name: spec.GetName(), Type: spec.GetType(), Stack: spec.GetStack(), Project: spec.GetProject()}
		switch p := spec.GetParent().(type) {
		case *pulumirpc.Alias_Spec_ParentUrn:
			// Some SDKs send an empty parent URN for "the resource's
			// parent"; legacy Node.js meant "no parent" by it.
			if p.ParentUrn == "" {
				alias.NoParent = legacyNode
				break
			}
			urn, err := resource.ParseURN(p.ParentUrn)
			if err != nil {
				return nil, fmt.Errorf("alias parent URN %q: %w", p.ParentUrn, err)
			}
			alias.Parent = urn
		case *pulumirpc.Alias_Spec_NoParent:
			alias.NoParent = p.NoParent && !legacyNode
		default:
			alias.NoParent = legacyNode
		}
		out = append(out, alias)
	}
	return out, nil
}

// fromNodeJS reports whether a request comes from the Node.js SDK: its
// "pulumi-runtime" header says so or, without one, its user agent is
// grpc-node's.
func fromNodeJS(ctx context.Context) bool {
	md, ok := metadata.FromIncomingContext(ctx)
	if !ok {
		return false
	}
	if rt, ok := md["pulumi-runtime"]; ok {
		return len(rt) == 1 && rt[0] == "nodejs"
	}
	ua := md["user-agent"]
	return len(ua) == 1 && strings.HasPrefix(ua[0], "grpc-node-js/")
}
