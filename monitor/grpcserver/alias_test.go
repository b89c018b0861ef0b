package grpcserver_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/monitor/grpcserver"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// wireRes is one registration a test program sends over the wire, as an
// SDK would. parent names an earlier registration ("" for the stack).
type wireRes struct {
	typ, name, parent string
	custom            bool
	aliases           []*pulumirpc.Alias
	// legacy sends the aliases without the AliasSpecs flag.
	legacy bool
}

// wireProgram serves the deployment's monitor over gRPC and registers rs
// through it in order, with the given request metadata (key, value pairs).
func wireProgram(rs []wireRes, md ...string) engine.Program {
	return func(c *engine.Context) error {
		root, err := c.Root().URN()
		if err != nil {
			return err
		}
		srv, err := grpcserver.Start(c.Context(), grpcserver.Config{Monitor: c.Monitor()})
		if err != nil {
			return err
		}
		defer srv.Stop()
		conn, err := grpc.NewClient(srv.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return fmt.Errorf("dialing the monitor: %w", err)
		}
		defer conn.Close()
		mon := pulumirpc.NewResourceMonitorClient(conn)
		ctx := metadata.AppendToOutgoingContext(c.Context(), md...)
		urns := map[string]string{"": string(root)}
		for _, r := range rs {
			resp, err := mon.RegisterResource(ctx, &pulumirpc.RegisterResourceRequest{
				Type: r.typ, Name: r.name, Parent: urns[r.parent], Custom: r.custom,
				Aliases: r.aliases, AliasSpecs: !r.legacy,
			})
			if err != nil {
				return fmt.Errorf("registering %s: %w", r.name, err)
			}
			urns[r.name] = resp.GetUrn()
		}
		return nil
	}
}

// store is a provider whose objects live in a map, logging every write.
type store struct {
	mu     sync.Mutex
	next   int
	live   map[resource.ID]bool
	writes []string
}

func (s *store) provider() *providers.Func {
	return &providers.Func{
		CheckF: func(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
			return providers.CheckResponse{Inputs: req.News}, nil
		},
		CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.next++
			id := resource.ID(fmt.Sprintf("id-%d", s.next))
			s.live[id] = true
			s.writes = append(s.writes, "create "+req.URN.Name())
			return providers.CreateResponse{ID: id, Outputs: req.Inputs}, nil
		},
		DeleteF: func(_ context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			delete(s.live, req.ID)
			s.writes = append(s.writes, "delete "+req.URN.Name())
			return providers.DeleteResponse{}, nil
		},
	}
}

func (s *store) log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.writes)
}

func spec(s *pulumirpc.Alias_Spec) *pulumirpc.Alias {
	return &pulumirpc.Alias{Alias: &pulumirpc.Alias_Spec_{Spec: s}}
}

// TestWireAliasSpecsAndInheritedAliases: over the wire, an SDK sends alias
// specs as the program wrote them (the server says it supports
// "aliasSpecs") and the children of a renamed, retyped or re-parented
// component find their old records through the aliases they inherit, as
// with Pulumi's engine: nothing is created or deleted but what the new
// program adds.
func TestWireAliasSpecsAndInheritedAliases(t *testing.T) {
	const group, team, thing = "my:index:Group", "my:index:Team", "test:index:Thing"
	v1 := []wireRes{
		{typ: group, name: "app"},
		{typ: thing, name: "app-fn", parent: "app", custom: true},
		{typ: thing, name: "db", parent: "app", custom: true},
		{typ: thing, name: "solo", custom: true},
	}
	tests := []struct {
		name   string
		v2     []wireRes
		md     []string
		writes []string
	}{
		{"parent renamed", []wireRes{
			{typ: group, name: "web", aliases: []*pulumirpc.Alias{spec(&pulumirpc.Alias_Spec{Name: "app"})}},
			{typ: thing, name: "web-fn", parent: "web", custom: true},
			{typ: thing, name: "db", parent: "web", custom: true},
			{typ: thing, name: "solo", custom: true},
		}, nil, nil},
		{"parent retyped, empty parent URN meaning the resource's parent", []wireRes{
			{typ: team, name: "app", aliases: []*pulumirpc.Alias{spec(&pulumirpc.Alias_Spec{Type: group,
				Parent: &pulumirpc.Alias_Spec_ParentUrn{ParentUrn: ""}})}},
			{typ: thing, name: "app-fn", parent: "app", custom: true},
			{typ: thing, name: "db", parent: "app", custom: true},
			{typ: thing, name: "solo", custom: true},
		}, nil, nil},
		{"parent re-parented", []wireRes{
			{typ: group, name: "outer"},
			{typ: group, name: "app", parent: "outer", aliases: []*pulumirpc.Alias{spec(&pulumirpc.Alias_Spec{
				Parent: &pulumirpc.Alias_Spec_NoParent{NoParent: true}})}},
			{typ: thing, name: "app-fn", parent: "app", custom: true},
			{typ: thing, name: "db", parent: "app", custom: true},
			{typ: thing, name: "solo", parent: "outer", custom: true, aliases: []*pulumirpc.Alias{spec(&pulumirpc.Alias_Spec{
				Parent: &pulumirpc.Alias_Spec_NoParent{NoParent: true}})}},
		}, nil, nil},
		{"legacy Node.js spec without a parent means no parent", []wireRes{
			{typ: group, name: "app"},
			{typ: thing, name: "app-fn", parent: "app", custom: true},
			{typ: thing, name: "db", parent: "app", custom: true},
			{typ: thing, name: "solo", parent: "app", custom: true, legacy: true,
				aliases: []*pulumirpc.Alias{spec(&pulumirpc.Alias_Spec{Name: "solo"})}},
		}, []string{"pulumi-runtime", "nodejs"}, nil},
		{"a spec without a parent from another SDK means the resource's parent", []wireRes{
			{typ: group, name: "app"},
			{typ: thing, name: "app-fn", parent: "app", custom: true},
			{typ: thing, name: "db", parent: "app", custom: true},
			{typ: thing, name: "solo", parent: "app", custom: true, legacy: true,
				aliases: []*pulumirpc.Alias{spec(&pulumirpc.Alias_Spec{Name: "solo"})}},
		}, nil, []string{"create solo", "delete solo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &store{live: map[resource.ID]bool{}}
			env := enginetest.New(t)
			env.Provider("test", "", s.provider())
			if _, err := env.Up(wireProgram(v1)); err != nil {
				t.Fatal(err)
			}
			ids := customIDs(env)
			before := len(s.log())
			res, err := env.Up(wireProgram(tt.v2, tt.md...))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.writes, s.log()[before:], cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
			if tt.writes != nil {
				return
			}
			for _, op := range enginetest.Ops(res, group, team, thing) {
				if !strings.HasPrefix(op, "same ") && op != "create outer" {
					t.Errorf("step %q, want only sames", op)
				}
			}
			if diff := cmp.Diff(ids, customIDs(env)); diff != "" {
				t.Errorf("recorded IDs (-before +after):\n%s", diff)
			}
			var urns []string
			for _, r := range env.Snapshot().Resources {
				urns = append(urns, string(r.URN))
			}
			if want := len(tt.v2) + 2; len(urns) != want { // with the stack and the provider
				t.Errorf("state holds %d resources, want %d: %v", len(urns), want, urns)
			}
		})
	}
}

// customIDs lists the IDs of the custom resources the stack records,
// sorted: a rename keeps them.
func customIDs(env *enginetest.Env) []resource.ID {
	var ids []resource.ID
	for _, r := range env.Snapshot().Resources {
		if r.Custom && !resource.IsProviderType(r.Type) {
			ids = append(ids, r.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// TestWireAliasWithBadURNIsRefused: an alias URN or alias parent URN that
// is not a URN is refused as an invalid argument, as Pulumi's engine
// refuses it.
func TestWireAliasWithBadURNIsRefused(t *testing.T) {
	for _, a := range []*pulumirpc.Alias{
		{Alias: &pulumirpc.Alias_Urn{Urn: "not-a-urn"}},
		spec(&pulumirpc.Alias_Spec{Parent: &pulumirpc.Alias_Spec_ParentUrn{ParentUrn: "nope"}}),
	} {
		fm := &fakeMonitor{}
		_, c := start(t, grpcserver.Config{Monitor: fm})
		_, err := c.mon.RegisterResource(ctxT(t), &pulumirpc.RegisterResourceRequest{
			Type: "pkg:index:Thing", Name: "x", Custom: true, Aliases: []*pulumirpc.Alias{a}, AliasSpecs: true,
		})
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("alias %v: err = %v, want InvalidArgument", a, err)
		}
		if len(fm.goals) != 0 {
			t.Errorf("alias %v reached the monitor", a)
		}
	}
}
