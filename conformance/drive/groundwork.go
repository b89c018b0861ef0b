package drive

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/groundwork-iac/groundwork/conformance/spec"
	"github.com/groundwork-iac/groundwork/conformance/world"
	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/monitor/grpcserver"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// Groundwork runs p through groundwork's public API: an Engine over a
// memory store, the world's provider as a providers.Func registered in
// the registry, and each version's program served to the same wire
// program Pulumi runs, over the deployment's Monitor (monitor/grpcserver).
func Groundwork(ctx context.Context, p *spec.Program) *Trace {
	w := world.New()
	parallelism := schedule(p, w)
	store := memstore.New()
	var mu sync.Mutex
	failed := map[string]bool{}
	eng, err := engine.New(engine.Config{
		Project: spec.Project, Stack: spec.Stack, Store: store,
		Providers: groundworkProviders(w),
		OnEvent: func(ev engine.Event) {
			mu.Lock()
			defer mu.Unlock()
			switch e := ev.(type) {
			case engine.StepFailedEvent:
				if !e.Skipped {
					failed[string(e.URN)] = true
				}
			case engine.DiagnosticEvent:
				if e.Severity == engine.SeverityError && e.URN != "" {
					failed[string(e.URN)] = true
				}
			}
		},
	})
	trace := &Trace{Engine: "groundwork"}
	if err != nil {
		trace.Runs = append(trace.Runs, Run{Name: "up 1", Invalid: err.Error()})
		return trace
	}
	before, err := store.Load(ctx, state.StackID{Project: spec.Project, Stack: spec.Stack})
	for i := 0; i <= len(p.Versions) && err == nil; i++ {
		run := Run{Name: fmt.Sprintf("up %d", i+1), Before: groundworkRecords(before)}
		mu.Lock()
		clear(failed)
		mu.Unlock()
		var opErr error
		switch {
		case i < len(p.Versions):
			w.Begin(i, p.Versions[i].Failures)
			version := i
			_, opErr = eng.Up(ctx, func(c *engine.Context) error { return serve(c, p, version) }, engine.Parallelism(parallelism))
		case p.Destroy:
			run.Name = "destroy"
			w.Begin(i, p.DestroyFailures)
			_, opErr = eng.Destroy(ctx, engine.Parallelism(parallelism))
		default:
			return trace
		}
		if opErr != nil {
			run.Err = opErr.Error()
		}
		mu.Lock()
		run.Failed = slices.Sorted(maps.Keys(failed))
		mu.Unlock()
		run.Ledger, run.Live, run.Calls = w.Ledger(i), w.Live(), w.Calls(i)
		before, err = store.Load(ctx, state.StackID{Project: spec.Project, Stack: spec.Stack})
		if err == nil {
			err = before.VerifyIntegrity()
		}
		if err != nil {
			run.Invalid = fmt.Sprintf("the state does not load: %v", err)
		} else {
			run.State = groundworkRecords(before)
		}
		trace.Runs = append(trace.Runs, run)
	}
	return trace
}

// serve runs version i of p against c's Monitor over gRPC, as a Pulumi SDK
// program would run against the engine.
func serve(c *engine.Context, p *spec.Program, i int) error {
	root, err := c.Root().URN()
	if err != nil {
		return err
	}
	srv, err := grpcserver.Start(c.Context(), grpcserver.Config{
		Monitor: &stackMonitor{Monitor: c.Monitor(), root: root, export: c.Export},
	})
	if err != nil {
		return err
	}
	defer srv.Stop()
	conn, err := grpc.NewClient(srv.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	return runProgram(c.Context(), pulumirpc.NewResourceMonitorClient(conn), p, i, c.Preview())
}

// stackMonitor answers the program's registration of the stack with the
// Context's root, and turns the stack's outputs into exports, as
// groundwork's language host does for SDK programs.
type stackMonitor struct {
	grpcserver.Monitor
	root   resource.URN
	export func(string, any)
}

func (m *stackMonitor) RegisterResource(ctx context.Context, goal resource.Goal) (providers.RegisterResult, error) {
	if goal.Type == resource.RootStackType && goal.Parent == "" {
		return providers.RegisterResult{URN: m.root, Outputs: resource.PropertyMap{}}, nil
	}
	return m.Monitor.RegisterResource(ctx, goal)
}

func (m *stackMonitor) RegisterResourceOutputs(ctx context.Context, urn resource.URN, outputs resource.PropertyMap) error {
	if urn != m.root {
		return m.Monitor.RegisterResourceOutputs(ctx, urn, outputs)
	}
	for k, v := range outputs {
		m.export(string(k), v)
	}
	return nil
}

// groundworkRecords normalizes a groundwork snapshot.
func groundworkRecords(snap *state.Snapshot) []Record {
	if snap == nil {
		return nil
	}
	out := make([]Record, 0, len(snap.Resources))
	for _, s := range snap.Resources {
		r := Record{
			URN: string(s.URN), Type: s.Type, Custom: s.Custom, Delete: s.Delete, ID: string(s.ID),
			Inputs: groundworkProps(s.Inputs), Outputs: groundworkProps(s.Outputs), Parent: string(s.Parent),
			Protect: s.Protect, RetainOnDelete: s.RetainOnDelete, PendingReplacement: s.PendingReplacement,
			External: s.External, Provider: providerURN(s.Provider), DeletedWith: string(s.DeletedWith),
			InitErrors: len(s.InitErrors),
		}
		for _, d := range s.Dependencies {
			r.Dependencies = append(r.Dependencies, string(d))
		}
		r.Dependencies = sortedSet(r.Dependencies)
		pd := map[string][]string{}
		for k, urns := range s.PropertyDependencies {
			for _, u := range urns {
				pd[string(k)] = append(pd[string(k)], string(u))
			}
		}
		r.PropertyDependencies = sortedDeps(pd)
		for _, a := range s.Aliases {
			r.Aliases = append(r.Aliases, string(a))
		}
		if isProviderType(r.Type) {
			r.ID = ""
		}
		out = append(out, r)
	}
	sortRecords(out)
	return out
}

func groundworkProps(m resource.PropertyMap) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if v.IsUnknown() {
			out[string(k)] = world.Unknown
			continue
		}
		out[string(k)] = value(v.Mappable())
	}
	return out
}

// groundworkProviders returns the registries of an engine that deploys to
// w: the test package's provider, at version 1.0.0.
func groundworkProviders(w *world.World) func() *providers.Registry {
	return func() *providers.Registry {
		r := providers.NewRegistry()
		_ = r.RegisterFactory(spec.Package, "1.0.0", func(context.Context) (providers.Provider, error) {
			return groundworkProvider(w), nil
		})
		return r
	}
}

// groundworkProvider adapts the world to groundwork's provider interface.
func groundworkProvider(w *world.World) providers.Provider {
	return &providers.Func{
		CheckF: func(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
			w.Checked(string(req.URN))
			return providers.CheckResponse{Inputs: req.News}, nil
		},
		DiffF: func(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
			w.Diffed(string(req.URN), string(req.ID), req.NewInputs.ContainsUnknowns())
			changed, replace := world.Diff(groundworkStrings(req.OldInputs), groundworkStrings(req.NewInputs))
			if len(changed) == 0 {
				return providers.DiffResponse{Changes: resource.DiffNone}, nil
			}
			res := providers.DiffResponse{Changes: resource.DiffSome}
			for _, k := range changed {
				res.ChangedKeys = append(res.ChangedKeys, resource.PropertyKey(k))
			}
			for _, k := range replace {
				res.ReplaceKeys = append(res.ReplaceKeys, resource.PropertyKey(k))
			}
			return res, nil
		},
		CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			if req.Preview {
				return providers.CreateResponse{Outputs: req.Inputs}, nil
			}
			id, outs, err := w.Create(string(req.URN), groundworkStrings(req.Inputs))
			if err != nil {
				return providers.CreateResponse{}, err
			}
			return providers.CreateResponse{ID: resource.ID(id), Outputs: resource.NewPropertyMapFromStrings(outs)}, nil
		},
		UpdateF: func(_ context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
			if req.Preview {
				return providers.UpdateResponse{Outputs: req.NewInputs}, nil
			}
			outs, err := w.Update(string(req.URN), string(req.ID), groundworkStrings(req.NewInputs))
			if err != nil {
				return providers.UpdateResponse{}, err
			}
			return providers.UpdateResponse{Outputs: resource.NewPropertyMapFromStrings(outs)}, nil
		},
		DeleteF: func(_ context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
			return providers.DeleteResponse{}, w.Delete(string(req.URN), string(req.ID))
		},
		ReadF: func(_ context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
			obj, ok := w.Read(string(req.ID))
			if !ok {
				return providers.ReadResponse{}, nil
			}
			return providers.ReadResponse{
				ID: req.ID, Inputs: resource.NewPropertyMapFromStrings(obj.Inputs),
				Outputs: resource.NewPropertyMapFromStrings(obj.Outputs),
			}, nil
		},
	}
}

func groundworkStrings(m resource.PropertyMap) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		switch {
		case v.ContainsUnknowns():
			out[string(k)] = world.Unknown
		case v.IsString():
			out[string(k)] = v.StringValue()
		default:
			out[string(k)] = value(v.Mappable())
		}
	}
	return out
}
