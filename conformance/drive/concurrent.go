package drive

import (
	"context"
	"errors"
	"fmt"
	"sync"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/groundwork-iac/groundwork/conformance/spec"
	"github.com/groundwork-iac/groundwork/resource"
)

// runConcurrently is runVersion as an SDK program runs: each resource is
// registered as soon as every resource it refers to (its parent, what it
// depends on, what its inputs come from) has been answered, so that
// independent registrations race each other and the engine's decisions.
// A resource whose reference failed is not registered, and the program
// fails with the first error.
func runConcurrently(ctx context.Context, mon pulumirpc.ResourceMonitorClient, p *spec.Program, i int, stack string) error {
	v := &p.Versions[i]
	var before map[string]resource.URN
	if i > 0 {
		before = p.URNs(i - 1)
	}
	var mu sync.Mutex
	urns := map[string]string{}
	outs := map[string]string{}
	done := make(map[string]chan struct{}, len(v.Resources))
	failed := map[string]bool{}
	for _, r := range v.Resources {
		done[r.Name] = make(chan struct{})
	}
	errs := make([]error, len(v.Resources))
	var wg sync.WaitGroup
	for j := range v.Resources {
		r := &v.Resources[j]
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[r.Name])
			for _, ref := range references(r) {
				select {
				case <-done[ref]:
				case <-ctx.Done():
					errs[j] = ctx.Err()
					return
				}
			}
			mu.Lock()
			for _, ref := range references(r) {
				if failed[ref] {
					failed[r.Name] = true
					mu.Unlock()
					return
				}
			}
			req, err := request(r, stack, urns, outs, before)
			mu.Unlock()
			var resp *pulumirpc.RegisterResourceResponse
			if err == nil {
				resp, err = mon.RegisterResource(ctx, req)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed[r.Name] = true
				errs[j] = fmt.Errorf("registering %s: %w", r.Name, err)
				return
			}
			urns[r.Name] = resp.GetUrn()
			if out := resp.GetObject().GetFields()[spec.OutKey]; out != nil {
				outs[r.Name] = out.GetStringValue()
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for j := range v.Resources {
		r := &v.Resources[j]
		if !r.IsComponent() {
			continue
		}
		if _, err := mon.RegisterResourceOutputs(ctx, &pulumirpc.RegisterResourceOutputsRequest{
			Urn: urns[r.Name], Outputs: &structpb.Struct{},
		}); err != nil {
			return fmt.Errorf("registering the outputs of %s: %w", r.Name, err)
		}
	}
	return exportOutputs(ctx, mon, v, stack, outs)
}

// references names the resources of its version r waits for.
func references(r *spec.Resource) []string {
	var out []string
	if r.Parent != "" {
		out = append(out, r.Parent)
	}
	out = append(out, r.DependsOn...)
	for _, pr := range r.Props {
		if pr.From != "" {
			out = append(out, pr.From)
		}
	}
	return out
}

// exportOutputs registers the stack's outputs: the exports of v.
func exportOutputs(ctx context.Context, mon pulumirpc.ResourceMonitorClient, v *spec.Version, stack string, outs map[string]string) error {
	exports := map[string]*structpb.Value{}
	for _, name := range v.Exports {
		exports[name] = structpb.NewStringValue(outs[name])
	}
	_, err := mon.RegisterResourceOutputs(ctx, &pulumirpc.RegisterResourceOutputsRequest{
		Urn: stack, Outputs: &structpb.Struct{Fields: exports},
	})
	if err != nil {
		return fmt.Errorf("registering the stack outputs: %w", err)
	}
	return nil
}
