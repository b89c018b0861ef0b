package format

import (
	"fmt"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// Helpers shared by the tests: small stacks built from a provider and some
// custom resources, and go-cmp options for snapshots.

const testPassphrase = "correct horse battery staple"

func testURN(typ, name string) resource.URN { return resource.NewURN("dev", "proj", "", typ, name) }

func newProvider(name, id string) *resource.State {
	return &resource.State{Type: "pulumi:providers:aws", URN: testURN("pulumi:providers:aws", name), Custom: true, ID: resource.ID(id)}
}

func providerRef(p *resource.State) string { return string(p.URN) + "::" + string(p.ID) }

// newBucket is a custom resource managed by prov, depending on deps.
func newBucket(name string, prov *resource.State, deps ...resource.URN) *resource.State {
	return &resource.State{
		Type: "aws:s3/bucket:Bucket", URN: testURN("aws:s3/bucket:Bucket", name), Custom: true,
		ID: resource.ID(name + "-id"), Provider: providerRef(prov), Dependencies: deps,
		Inputs:  resource.PropertyMap{"name": resource.NewString(name)},
		Outputs: resource.PropertyMap{"name": resource.NewString(name), "arn": resource.NewString("arn:" + name)},
	}
}

// snapshotOpts compare snapshots by content: empty and nil slices and maps
// are the same, manifests and secrets states are ignored.
var snapshotOpts = cmp.Options{
	cmpopts.EquateEmpty(),
	cmpopts.IgnoreFields(state.Snapshot{}, "Manifest", "Secrets"),
}

// benchResource is a custom resource of typical size: about ten inputs and
// a dozen outputs, one of them secret, with a nested object and an array.
func benchResource(i int, prov *resource.State) *resource.State {
	n := fmt.Sprintf("res-%06d", i)
	tags := resource.NewObject(resource.PropertyMap{
		"team": resource.NewString("platform"), "env": resource.NewString("prod"), "index": resource.NewNumber(float64(i)),
	})
	inputs := resource.PropertyMap{
		"name": resource.NewString(n), "region": resource.NewString("eu-west-1"), "size": resource.NewNumber(20),
		"enabled": resource.NewBool(true), "tags": tags,
		"ports":  resource.NewArray(resource.NewNumber(80), resource.NewNumber(443)),
		"policy": resource.NewString(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject"}]}`),
		"owner":  resource.NewString("someone@example.com"),
	}
	outputs := inputs.Copy()
	outputs["id"] = resource.NewString(n + "-id")
	outputs["arn"] = resource.NewString("arn:aws:s3:::" + n)
	outputs["createdAt"] = resource.NewString("2025-01-01T00:00:00Z")
	outputs["password"] = resource.NewSecret(resource.NewString("hunter2-" + n))
	return &resource.State{
		Type: "aws:s3/bucket:Bucket", URN: testURN("aws:s3/bucket:Bucket", n), Custom: true,
		ID: resource.ID(n + "-id"), Provider: providerRef(prov), Inputs: inputs, Outputs: outputs,
		Dependencies: []resource.URN{prov.URN},
	}
}

func benchStack(n int) *state.Snapshot {
	prov := newProvider("default", "p1")
	s := &state.Snapshot{Resources: []*resource.State{prov}}
	for i := range n {
		s.Resources = append(s.Resources, benchResource(i, prov))
	}
	return s
}
