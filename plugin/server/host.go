package server

import (
	"context"
	"fmt"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// monitorHost is the providers.Host a served Construct or Call hands the
// provider: it registers children with the engine's resource monitor at
// the address the request named.
type monitorHost struct {
	addr   string
	conn   *grpc.ClientConn
	client pulumirpc.ResourceMonitorClient
}

var _ providers.Host = (*monitorHost)(nil)

func dialMonitor(addr string) (*monitorHost, error) {
	if addr == "" {
		return nil, fmt.Errorf("the request names no resource monitor to register children with")
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessageSize), grpc.MaxCallSendMsgSize(maxMessageSize)))
	if err != nil {
		return nil, fmt.Errorf("connect to the resource monitor at %s: %w", addr, err)
	}
	return &monitorHost{addr: addr, conn: conn, client: pulumirpc.NewResourceMonitorClient(conn)}, nil
}

// MonitorAddress returns the monitor's address, so that a provider that
// is itself a gRPC client can pass it on.
func (h *monitorHost) MonitorAddress() string { return h.addr }

func (h *monitorHost) close() { h.conn.Close() }

func timeoutString(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

// RegisterResource registers a child and waits for its step.
func (h *monitorHost) RegisterResource(ctx context.Context, g resource.Goal) (providers.RegisterResult, error) {
	obj, err := wire.MarshalProperties(g.Inputs, wire.Options{KeepUnknowns: true, KeepSecrets: true, KeepResources: true})
	if err != nil {
		return providers.RegisterResult{}, fmt.Errorf("register %s %s: %w", g.Type, g.Name, err)
	}
	req := &pulumirpc.RegisterResourceRequest{
		Type: g.Type, Name: g.Name, Parent: string(g.Parent), Custom: g.Custom, Remote: g.Remote, Object: obj,
		Protect: &g.Protect, Dependencies: wire.URNStrings(g.Dependencies), Provider: g.Provider, Version: g.Version,
		PropertyDependencies: map[string]*pulumirpc.RegisterResourceRequest_PropertyDependencies{},
		DeleteBeforeReplace:  g.DeleteBeforeReplace, DeleteBeforeReplaceDefined: true,
		IgnoreChanges: g.IgnoreChanges, ReplaceOnChanges: g.ReplaceOnChanges,
		AdditionalSecretOutputs: wire.KeyStrings(g.AdditionalSecretOutputs),
		RetainOnDelete:          &g.RetainOnDelete, DeletedWith: string(g.DeletedWith), ImportId: string(g.ImportID),
		AcceptSecrets: true, AcceptResources: true, SupportsPartialValues: true, AliasSpecs: true,
		Aliases: wire.AliasesToRPC(g.Aliases),
	}
	for k, urns := range g.PropertyDependencies {
		req.PropertyDependencies[string(k)] = &pulumirpc.RegisterResourceRequest_PropertyDependencies{Urns: wire.URNStrings(urns)}
	}
	if t := g.CustomTimeouts; !t.IsZero() {
		req.CustomTimeouts = &pulumirpc.RegisterResourceRequest_CustomTimeouts{
			Create: timeoutString(t.Create), Update: timeoutString(t.Update), Delete: timeoutString(t.Delete),
		}
	}
	resp, err := h.client.RegisterResource(ctx, req)
	if err != nil {
		return providers.RegisterResult{}, fmt.Errorf("register %s %s with the resource monitor: %w", g.Type, g.Name, err)
	}
	outs, err := wire.UnmarshalProperties(resp.GetObject(), wire.KeepAll())
	if err != nil {
		return providers.RegisterResult{}, fmt.Errorf("register %s %s: reading the monitor's answer: %w", g.Type, g.Name, err)
	}
	return providers.RegisterResult{URN: resource.URN(resp.GetUrn()), ID: resource.ID(resp.GetId()), Outputs: outs, Stable: resp.GetStable()}, nil
}

// RegisterResourceOutputs records a component's outputs.
func (h *monitorHost) RegisterResourceOutputs(ctx context.Context, urn resource.URN, outputs resource.PropertyMap) error {
	outs, err := wire.MarshalProperties(outputs, wire.Options{KeepUnknowns: true, KeepSecrets: true, KeepResources: true})
	if err != nil {
		return fmt.Errorf("register outputs of %s: %w", urn, err)
	}
	if _, err := h.client.RegisterResourceOutputs(ctx, &pulumirpc.RegisterResourceOutputsRequest{Urn: string(urn), Outputs: outs}); err != nil {
		return fmt.Errorf("register outputs of %s with the resource monitor: %w", urn, err)
	}
	return nil
}
