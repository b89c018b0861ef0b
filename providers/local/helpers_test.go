package local_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/local"
	"github.com/groundwork-iac/groundwork/resource"
)

func str(s string) resource.PropertyValue { return resource.NewString(s) }

func fileURN(name string) resource.URN {
	return resource.NewURN("test", "local", "", local.FileType, name)
}

func dirURN(name string) resource.URN {
	return resource.NewURN("test", "local", "", local.DirectoryType, name)
}

// live is a resource a test created, with what the engine would record.
type live struct {
	urn             resource.URN
	id              resource.ID
	inputs, outputs resource.PropertyMap
}

func check(t *testing.T, p providers.Provider, urn resource.URN, news resource.PropertyMap) resource.PropertyMap {
	t.Helper()
	resp, err := p.Check(t.Context(), providers.CheckRequest{URN: urn, News: news})
	if err != nil || len(resp.Failures) > 0 {
		t.Fatalf("Check(%v) = %v, %v", news, resp.Failures, err)
	}
	return resp.Inputs
}

func create(t *testing.T, p providers.Provider, urn resource.URN, news resource.PropertyMap) live {
	t.Helper()
	inputs := check(t, p, urn, news)
	resp, err := p.Create(t.Context(), providers.CreateRequest{URN: urn, Inputs: inputs})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return live{urn: urn, id: resp.ID, inputs: inputs, outputs: resp.Outputs}
}

func diff(t *testing.T, p providers.Provider, r live, news resource.PropertyMap) resource.DiffResult {
	t.Helper()
	checked := check(t, p, r.urn, news)
	d, err := p.Diff(t.Context(), providers.DiffRequest{URN: r.urn, ID: r.id, OldInputs: r.inputs, OldOutputs: r.outputs, NewInputs: checked})
	if err != nil {
		t.Fatalf("Diff: %v", err)
	}
	return d
}

func update(t *testing.T, p providers.Provider, r live, news resource.PropertyMap) live {
	t.Helper()
	checked := check(t, p, r.urn, news)
	resp, err := p.Update(t.Context(), providers.UpdateRequest{URN: r.urn, ID: r.id, OldInputs: r.inputs, OldOutputs: r.outputs, NewInputs: checked})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	return live{urn: r.urn, id: r.id, inputs: checked, outputs: resp.Outputs}
}

func read(t *testing.T, p providers.Provider, r live) providers.ReadResponse {
	t.Helper()
	resp, err := p.Read(t.Context(), providers.ReadRequest{URN: r.urn, ID: r.id, Inputs: r.inputs, State: r.outputs})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return resp
}

// kinds flattens a detailed diff to its kinds, for comparison.
func kinds(d resource.DiffResult) map[string]string {
	out := map[string]string{}
	for path, pd := range d.DetailedDiff {
		out[path] = pd.Kind.String()
	}
	return out
}

func wantDiff(t *testing.T, d resource.DiffResult, changes resource.DiffChanges, want map[string]string) {
	t.Helper()
	if d.Changes != changes {
		t.Errorf("Changes = %v, want %v", d.Changes, changes)
	}
	if diff := cmp.Diff(want, kinds(d)); diff != "" {
		t.Errorf("detailed diff (-want +got):\n%s", diff)
	}
}

// failures returns what Check objects to, as "property: reason" strings
// reduced to their properties.
func failedProps(t *testing.T, p providers.Provider, urn resource.URN, news resource.PropertyMap) []string {
	t.Helper()
	resp, err := p.Check(t.Context(), providers.CheckRequest{URN: urn, News: news})
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	var props []string
	for _, f := range resp.Failures {
		props = append(props, f.Property)
	}
	return props
}
