package migrationtest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/blang/semver"
	pengine "github.com/pulumi/pulumi/pkg/v3/engine"
	lt "github.com/pulumi/pulumi/pkg/v3/engine/lifecycletest/framework"
	"github.com/pulumi/pulumi/pkg/v3/resource/deploy"
	"github.com/pulumi/pulumi/pkg/v3/resource/deploy/deploytest"
	"github.com/pulumi/pulumi/pkg/v3/resource/stack"
	"github.com/pulumi/pulumi/pkg/v3/secrets"
	"github.com/pulumi/pulumi/pkg/v3/secrets/b64"
	"github.com/pulumi/pulumi/pkg/v3/secrets/passphrase"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	pproviders "github.com/pulumi/pulumi/sdk/v3/go/common/providers"
	presource "github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// This file drives Pulumi's engine: the scenario's program and provider
// in its terms, an update run as its lifecycle tests run one, and its own
// serialization of a stack, as `pulumi stack export` and `pulumi stack
// import` use it.

// pulumiProvider is the scenario's provider for Pulumi's engine.
func pulumiProvider(w *writes) *deploytest.Provider {
	return &deploytest.Provider{
		DiffF: func(_ context.Context, req plugin.DiffRequest) (plugin.DiffResult, error) {
			if req.OldInputs.DeepEquals(req.NewInputs) {
				return plugin.DiffResult{Changes: plugin.DiffNone}, nil
			}
			return plugin.DiffResult{Changes: plugin.DiffSome}, nil
		},
		CreateF: func(_ context.Context, req plugin.CreateRequest) (plugin.CreateResponse, error) {
			w.add("create", string(req.URN))
			return plugin.CreateResponse{ID: presource.ID(req.URN.Name() + "-id"), Properties: req.Properties, Status: presource.StatusOK}, nil
		},
		UpdateF: func(_ context.Context, req plugin.UpdateRequest) (plugin.UpdateResponse, error) {
			w.add("update", string(req.URN))
			return plugin.UpdateResponse{Properties: req.NewInputs, Status: presource.StatusOK}, nil
		},
		DeleteF: func(_ context.Context, req plugin.DeleteRequest) (plugin.DeleteResponse, error) {
			w.add("delete", string(req.URN))
			return plugin.DeleteResponse{}, nil
		},
	}
}

// pulumiProgram registers the scenario through Pulumi's resource monitor,
// as an SDK program would: the stack, an explicit provider, a resource
// managed by it with a secret input, one that depends on it through an
// input, and the stack's outputs.
func pulumiProgram(_ plugin.RunInfo, mon *deploytest.ResourceMonitor) error {
	root, err := mon.RegisterResource("pulumi:pulumi:Stack", project+"-"+stackName, false)
	if err != nil {
		return err
	}
	prov, err := mon.RegisterResource(pproviders.MakeProviderType("test"), "explicit", true, deploytest.ResourceOptions{
		Parent: root.URN, Inputs: presource.PropertyMap{"region": presource.NewProperty("eu")},
	})
	if err != nil {
		return err
	}
	db, err := mon.RegisterResource(thing, "db", true, deploytest.ResourceOptions{
		Parent: root.URN, Provider: string(prov.URN) + "::" + string(prov.ID),
		Inputs: presource.PropertyMap{
			"size":     presource.NewProperty(1.0),
			"password": presource.MakeSecret(presource.NewProperty(dbPassword)),
		},
	})
	if err != nil {
		return err
	}
	if _, err := mon.RegisterResource(thing, "app", true, deploytest.ResourceOptions{
		Parent: root.URN,
		Inputs: presource.PropertyMap{
			"name": presource.NewProperty("app"),
			"db":   presource.NewProperty(string(db.ID)),
		},
		Dependencies: []presource.URN{db.URN},
		PropertyDeps: map[presource.PropertyKey][]presource.URN{"db": {db.URN}},
	}); err != nil {
		return err
	}
	// The stack's outputs go over the wire as an SDK sends them, secrets
	// kept (deploytest's RegisterResourceOutputs would unwrap them).
	outs, err := plugin.MarshalProperties(presource.PropertyMap{
		"dbId":  presource.NewProperty(string(db.ID)),
		"token": presource.MakeSecret(presource.NewProperty(stackToken)),
	}, plugin.MarshalOptions{KeepSecrets: true})
	if err != nil {
		return err
	}
	_, err = mon.Client().RegisterResourceOutputs(context.Background(), &pulumirpc.RegisterResourceOutputsRequest{
		Urn: string(root.URN), Outputs: outs,
	})
	return err
}

// pulumiUpdate runs an update of the scenario on base with Pulumi's
// engine and returns the stack it leaves and the kinds of the steps it
// took, by URN.
func pulumiUpdate(t *testing.T, base *deploy.Snapshot, w *writes) (*deploy.Snapshot, map[string]string) {
	t.Helper()
	loader := deploytest.NewProviderLoader("test", semver.MustParse("1.0.0"),
		func() (plugin.Provider, error) { return pulumiProvider(w), nil })
	plan := &lt.TestPlan{
		Project: project, Stack: stackName,
		Options: lt.TestUpdateOptions{
			T: t, SkipDisplayTests: true,
			HostF: deploytest.NewPluginHostF(nil, nil, deploytest.NewLanguageRuntimeF(pulumiProgram), loader),
		},
	}
	steps := map[string]string{}
	validate := func(_ workspace.Project, _ deploy.Target, entries pengine.JournalEntries, _ []pengine.Event, err error) error {
		for _, e := range entries {
			if e.Kind == pengine.TestJournalEntrySuccess {
				steps[string(e.Step.URN())] = string(e.Step.Op())
			}
		}
		return err
	}
	snap, err := lt.TestOp(pengine.Update).RunStep(plan.GetProject(), plan.GetTarget(t, base), plan.Options, false, plan.BackendClient, validate, "")
	if err != nil {
		t.Fatalf("Pulumi's update: %v", err)
	}
	return snap, steps
}

// pulumiExport writes snap as `pulumi stack export` does, its secrets
// sealed by Pulumi's passphrase secrets manager.
func pulumiExport(t *testing.T, snap *deploy.Snapshot) []byte {
	t.Helper()
	_, mgr, err := passphrase.NewPassphraseSecretsManager(pulumiPassphrase)
	if err != nil {
		t.Fatal(err)
	}
	snap.SecretsManager = mgr
	ud, err := stack.SerializeUntypedDeployment(context.Background(), snap, nil)
	if err != nil {
		t.Fatalf("serializing the deployment: %v", err)
	}
	data, err := json.MarshalIndent(ud, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// pulumiImport reads an exported deployment as `pulumi stack import`
// does, opening its secrets with the passphrase.
func pulumiImport(t *testing.T, data []byte) *deploy.Snapshot {
	t.Helper()
	var ud apitype.UntypedDeployment
	if err := json.Unmarshal(data, &ud); err != nil {
		t.Fatal(err)
	}
	snap, err := stack.DeserializeUntypedDeployment(context.Background(), &ud, passphraseProvider{pulumiPassphrase})
	if err != nil {
		t.Fatalf("Pulumi cannot read the deployment: %v", err)
	}
	if err := snap.VerifyIntegrity(); err != nil {
		t.Fatalf("the deployment fails Pulumi's integrity check: %v", err)
	}
	// The secrets are open in memory now; like `pulumi stack import`, the
	// stack goes on under its own manager (here the lifecycle tests').
	snap.SecretsManager = b64.NewBase64SecretsManager()
	return snap
}

// passphraseProvider opens the passphrase secrets manager a deployment
// names with a known passphrase.
type passphraseProvider struct{ phrase string }

func (p passphraseProvider) OfType(ty string, state json.RawMessage) (secrets.Manager, error) {
	if ty != "passphrase" {
		return nil, fmt.Errorf("the deployment's secrets manager is %q, not passphrase", ty)
	}
	var st struct {
		Salt string `json:"salt"`
	}
	if err := json.Unmarshal(state, &st); err != nil {
		return nil, err
	}
	return passphrase.GetPassphraseSecretsManager(p.phrase, st.Salt)
}

// pulumiInput returns an input of a resource of a Pulumi snapshot.
func pulumiInput(t *testing.T, snap *deploy.Snapshot, name, key string) presource.PropertyValue {
	t.Helper()
	for _, r := range snap.Resources {
		if r.URN.Name() == name && !r.Delete {
			return r.Inputs[presource.PropertyKey(key)]
		}
	}
	t.Fatalf("no resource %s in Pulumi's snapshot", name)
	return presource.PropertyValue{}
}

// pulumiRecords returns the records of a Pulumi snapshot as its
// deployment writes them, secrets shown, without the times a step stamps
// and the empty property dependencies Pulumi's engine records for each
// input of a registration (the same as none).
func pulumiRecords(t *testing.T, snap *deploy.Snapshot) []apitype.ResourceV3 {
	t.Helper()
	dep, err := stack.SerializeDeployment(context.Background(), snap, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := range dep.Resources {
		r := &dep.Resources[i]
		r.Created, r.Modified = nil, nil
		for k, urns := range r.PropertyDependencies {
			if len(urns) == 0 {
				delete(r.PropertyDependencies, k)
			}
		}
	}
	return dep.Resources
}
