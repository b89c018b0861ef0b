package drive

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/blang/semver"
	pengine "github.com/pulumi/pulumi/pkg/v3/engine"
	"github.com/pulumi/pulumi/pkg/v3/engine/lifecycletest/framework"
	"github.com/pulumi/pulumi/pkg/v3/resource/deploy"
	"github.com/pulumi/pulumi/pkg/v3/resource/deploy/deploytest"
	"github.com/pulumi/pulumi/sdk/v3/go/common/diag"
	presource "github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"

	"github.com/groundwork-iac/groundwork/conformance/spec"
	"github.com/groundwork-iac/groundwork/conformance/world"
)

// Pulumi runs p through Pulumi's engine: each operation as its lifecycle
// tests run one (framework.TestOp, which journals every step, checks
// every intermediate snapshot's integrity and compares the journal with
// the snapshot manager), the program over loopback gRPC through
// deploytest's language runtime, the world's provider loaded in process.
// tb receives the framework's own assertion failures (setting up the
// journal), which are the harness's, not the engine's.
func Pulumi(tb framework.TB, p *spec.Program) *Trace {
	w := world.New()
	parallelism := schedule(p, w)
	loader := deploytest.NewProviderLoader(spec.Package, semver.MustParse("1.0.0"),
		func() (plugin.Provider, error) { return pulumiProvider(w), nil })
	plan := &framework.TestPlan{Project: spec.Project, Stack: spec.Stack}
	trace := &Trace{Engine: "pulumi"}
	var snap *deploy.Snapshot
	for i := 0; i <= len(p.Versions); i++ {
		op, name, failures := pengine.Update, fmt.Sprintf("up %d", i+1), []spec.Failure(nil)
		if i == len(p.Versions) {
			if !p.Destroy {
				break
			}
			op, name, failures = pengine.Destroy, "destroy", p.DestroyFailures
		} else {
			failures = p.Versions[i].Failures
		}
		w.Begin(i, failures)
		version := i
		// The program's calls end with the operation: a deployment that
		// stopped on a failure answers no more registrations, and a
		// program left waiting would hold its connection for ever (a long
		// campaign then runs out of file descriptors).
		programCtx, stopProgram := context.WithCancel(context.Background())
		programF := deploytest.NewLanguageRuntimeF(func(_ plugin.RunInfo, mon *deploytest.ResourceMonitor) error {
			if version == len(p.Versions) {
				return nil
			}
			return runVersion(programCtx, mon.Client(), p, version)
		})
		opts := framework.TestUpdateOptions{
			T: tb, SkipDisplayTests: true,
			HostF:         deploytest.NewPluginHostF(nil, nil, programF, loader),
			UpdateOptions: pengine.UpdateOptions{Parallel: int32(parallelism)},
		}
		run := Run{Name: name, Before: pulumiRecords(snap)}
		var opErr error
		failed := map[string]bool{}
		validate := func(_ workspace.Project, _ deploy.Target, _ pengine.JournalEntries, events []pengine.Event, err error) error {
			opErr = err
			for _, urn := range pulumiFailures(events) {
				failed[urn] = true
			}
			return err
		}
		next, err := framework.TestOp(op).RunStep(plan.GetProject(), plan.GetTarget(tb, snap), opts, false, nil, validate, "")
		stopProgram()
		if opErr != nil {
			run.Err = opErr.Error()
		}
		run.Failed = slices.Sorted(maps.Keys(failed))
		run.Ledger = w.Ledger(i)
		run.Live = w.Live()
		run.Calls = w.Calls(i)
		if next == nil {
			run.Invalid = fmt.Sprintf("the state does not verify: %v", errors.Join(err))
			trace.Runs = append(trace.Runs, run)
			break
		}
		snap = next
		run.State = pulumiRecords(snap)
		trace.Runs = append(trace.Runs, run)
	}
	return trace
}

// pulumiFailures lists the URNs of failed steps, and of errors reported
// about a resource.
func pulumiFailures(events []pengine.Event) []string {
	var urns []string
	for _, e := range events {
		switch e.Type {
		case pengine.ResourceOperationFailed:
			urns = append(urns, string(e.Payload().(pengine.ResourceOperationFailedPayload).Metadata.URN))
		case pengine.DiagEvent:
			d := e.Payload().(pengine.DiagEventPayload)
			if d.Severity == diag.Error && d.URN != "" {
				urns = append(urns, string(d.URN))
			}
		}
	}
	return urns
}

// pulumiRecords normalizes a Pulumi snapshot.
func pulumiRecords(snap *deploy.Snapshot) []Record {
	if snap == nil {
		return nil
	}
	out := make([]Record, 0, len(snap.Resources))
	for _, s := range snap.Resources {
		r := Record{
			URN: string(s.URN), Type: string(s.Type), Custom: s.Custom, Delete: s.Delete, ID: string(s.ID),
			Inputs: pulumiProps(s.Inputs), Outputs: pulumiProps(s.Outputs), Parent: string(s.Parent),
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

func pulumiProps(m presource.PropertyMap) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if v.IsComputed() {
			out[string(k)] = world.Unknown
			continue
		}
		out[string(k)] = value(v.Mappable())
	}
	return out
}

// pulumiProvider adapts the world to Pulumi's provider interface.
func pulumiProvider(w *world.World) plugin.Provider {
	return &deploytest.Provider{
		CheckF: func(_ context.Context, req plugin.CheckRequest) (plugin.CheckResponse, error) {
			w.Checked(string(req.URN))
			return plugin.CheckResponse{Properties: req.News}, nil
		},
		DiffF: func(_ context.Context, req plugin.DiffRequest) (plugin.DiffResult, error) {
			w.Diffed(string(req.URN), string(req.ID), req.NewInputs.ContainsUnknowns())
			changed, replace := world.Diff(pulumiStrings(req.OldInputs), pulumiStrings(req.NewInputs))
			if len(changed) == 0 {
				return plugin.DiffResult{Changes: plugin.DiffNone}, nil
			}
			res := plugin.DiffResult{Changes: plugin.DiffSome}
			for _, k := range changed {
				res.ChangedKeys = append(res.ChangedKeys, presource.PropertyKey(k))
			}
			for _, k := range replace {
				res.ReplaceKeys = append(res.ReplaceKeys, presource.PropertyKey(k))
			}
			return res, nil
		},
		CreateF: func(_ context.Context, req plugin.CreateRequest) (plugin.CreateResponse, error) {
			if req.Preview {
				return plugin.CreateResponse{Properties: req.Properties}, nil
			}
			id, outs, err := w.Create(string(req.URN), pulumiStrings(req.Properties))
			if err != nil {
				return plugin.CreateResponse{}, err
			}
			return plugin.CreateResponse{ID: presource.ID(id), Properties: pulumiMap(outs), Status: presource.StatusOK}, nil
		},
		UpdateF: func(_ context.Context, req plugin.UpdateRequest) (plugin.UpdateResponse, error) {
			if req.Preview {
				return plugin.UpdateResponse{Properties: req.NewInputs}, nil
			}
			outs, err := w.Update(string(req.URN), string(req.ID), pulumiStrings(req.NewInputs))
			if err != nil {
				return plugin.UpdateResponse{}, err
			}
			return plugin.UpdateResponse{Properties: pulumiMap(outs), Status: presource.StatusOK}, nil
		},
		DeleteF: func(_ context.Context, req plugin.DeleteRequest) (plugin.DeleteResponse, error) {
			if err := w.Delete(string(req.URN), string(req.ID)); err != nil {
				return plugin.DeleteResponse{}, err
			}
			return plugin.DeleteResponse{Status: presource.StatusOK}, nil
		},
		ReadF: func(_ context.Context, req plugin.ReadRequest) (plugin.ReadResponse, error) {
			obj, ok := w.Read(string(req.ID))
			if !ok {
				return plugin.ReadResponse{Status: presource.StatusOK}, nil
			}
			return plugin.ReadResponse{ReadResult: plugin.ReadResult{
				ID: req.ID, Inputs: pulumiMap(obj.Inputs), Outputs: pulumiMap(obj.Outputs),
			}, Status: presource.StatusOK}, nil
		},
	}
}

func pulumiStrings(m presource.PropertyMap) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		switch {
		case v.IsComputed() || v.IsOutput() && !v.OutputValue().Known:
			out[string(k)] = world.Unknown
		case v.IsString():
			out[string(k)] = v.StringValue()
		default:
			out[string(k)] = value(v.Mappable())
		}
	}
	return out
}

func pulumiMap(m map[string]string) presource.PropertyMap {
	out := make(presource.PropertyMap, len(m))
	for k, v := range m {
		out[presource.PropertyKey(k)] = presource.NewProperty(v)
	}
	return out
}
