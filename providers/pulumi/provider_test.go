package pulumi_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/pulumi"
	"github.com/groundwork-iac/groundwork/resource"
)

// resources is a fake of the deployment's resources.
type resources map[resource.URN]*resource.State

func (r resources) Resource(urn resource.URN) (*resource.State, bool) {
	s, ok := r[urn]
	return s, ok
}

// stacks is a fake of the other stacks of a store, by name.
type stacks map[string]resource.PropertyMap

func (s stacks) StackOutputs(_ context.Context, name string) (resource.PropertyMap, error) {
	outs, ok := s[name]
	if !ok {
		return nil, errors.New("no such stack")
	}
	return outs, nil
}

var other = stacks{
	"prod": {
		"url":   resource.NewString("https://example.com"),
		"token": resource.NewSecret(resource.NewString("s3cr3t")),
		"nested": resource.NewObject(resource.PropertyMap{
			"key": resource.NewSecret(resource.NewString("k")),
		}),
	},
	"empty": {},
}

func urnOf(typ, name string) resource.URN {
	return resource.NewURN("dev", "proj", "", typ, name)
}

func TestStackReference(t *testing.T) {
	p := pulumi.New(pulumi.Config{Stacks: other})
	ctx := context.Background()
	urn := urnOf(pulumi.StackReferenceType, "ref")
	want := resource.PropertyMap{
		"name":              resource.NewString("prod"),
		"outputs":           resource.NewObject(other["prod"]),
		"secretOutputNames": resource.NewArray(resource.NewString("nested"), resource.NewString("token")),
	}

	t.Run("read by ID, as the SDKs do", func(t *testing.T) {
		resp, err := p.Read(ctx, providers.ReadRequest{URN: urn, ID: "prod"})
		if err != nil {
			t.Fatal(err)
		}
		if !resp.Outputs.DeepEquals(want) || resp.ID != "prod" {
			t.Errorf("read = %v %v, want %v", resp.ID, resp.Outputs, want)
		}
		if !resp.Outputs["outputs"].ObjectValue()["token"].IsSecret() {
			t.Error("a secret output of the other stack is no longer secret")
		}
	})
	t.Run("read by the name input", func(t *testing.T) {
		resp, err := p.Read(ctx, providers.ReadRequest{URN: urn, ID: "ignored", Inputs: resource.PropertyMap{"name": resource.NewString("prod")}})
		if err != nil || !resp.Outputs.DeepEquals(want) {
			t.Errorf("read = %v, %v", resp.Outputs, err)
		}
	})
	t.Run("created", func(t *testing.T) {
		inputs := resource.PropertyMap{"name": resource.NewString("prod")}
		chk, err := p.Check(ctx, providers.CheckRequest{URN: urn, News: inputs})
		if err != nil || len(chk.Failures) > 0 {
			t.Fatalf("check: %v %v", chk.Failures, err)
		}
		resp, err := p.Create(ctx, providers.CreateRequest{URN: urn, Inputs: chk.Inputs})
		if err != nil || resp.ID == "" || !resp.Outputs.DeepEquals(want) {
			t.Errorf("create = %v %v, %v", resp.ID, resp.Outputs, err)
		}
		d, err := p.Diff(ctx, providers.DiffRequest{URN: urn, OldInputs: inputs, NewInputs: resource.PropertyMap{"name": resource.NewString("empty")}})
		if err != nil || d.Changes != resource.DiffSome || !cmp.Equal(d.ReplaceKeys, []resource.PropertyKey{"name"}) {
			t.Errorf("diff of a new name = %+v, %v; want a replacement", d, err)
		}
	})
	t.Run("an unknown name in a preview", func(t *testing.T) {
		resp, err := p.Create(ctx, providers.CreateRequest{URN: urn, Preview: true, Inputs: resource.PropertyMap{"name": resource.NewUnknown()}})
		if err != nil || !resp.Outputs["outputs"].IsUnknown() || resp.ID != "" {
			t.Errorf("create in a preview = %v %v, %v", resp.ID, resp.Outputs, err)
		}
	})
	t.Run("bad inputs", func(t *testing.T) {
		for _, in := range []resource.PropertyMap{
			{},
			{"name": resource.NewNumber(1)},
			{"name": resource.NewString("prod"), "extra": resource.NewBool(true)},
		} {
			chk, err := p.Check(ctx, providers.CheckRequest{URN: urn, News: in})
			if err != nil || len(chk.Failures) == 0 {
				t.Errorf("check %v = %v, %v; want failures", in, chk, err)
			}
		}
	})
	t.Run("a stack that cannot be read", func(t *testing.T) {
		_, err := p.Read(ctx, providers.ReadRequest{URN: urn, ID: "nope"})
		if err == nil || err.Error() != `stack reference "nope": no such stack` {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("readStackOutputs", func(t *testing.T) {
		resp, err := p.Invoke(ctx, providers.InvokeRequest{Token: pulumi.ReadStackOutputs, Args: resource.PropertyMap{"name": resource.NewString("prod")}})
		if err != nil || !resp.Return.DeepEquals(want) {
			t.Errorf("invoke = %v, %v", resp.Return, err)
		}
	})
}

func TestGetResource(t *testing.T) {
	urn := urnOf("test:index:Thing", "a")
	state := &resource.State{URN: urn, Type: "test:index:Thing", Custom: true, ID: "id-1",
		Provider: "urn:pulumi:dev::proj::pulumi:providers:test::default::p1",
		Outputs:  resource.PropertyMap{"out": resource.NewSecret(resource.NewString("x"))}}
	p := pulumi.New(pulumi.Config{Resources: resources{urn: state}})
	ctx := context.Background()

	resp, err := p.Invoke(ctx, providers.InvokeRequest{Token: pulumi.GetResource, Args: resource.PropertyMap{"urn": resource.NewString(string(urn))}})
	if err != nil {
		t.Fatal(err)
	}
	want := resource.PropertyMap{
		"urn":      resource.NewString(string(urn)),
		"id":       resource.NewString("id-1"),
		"provider": resource.NewString(state.Provider),
		"state":    resource.NewObject(state.Outputs),
	}
	if !resp.Return.DeepEquals(want) {
		t.Errorf("getResource = %v, want %v", resp.Return, want)
	}

	_, err = p.Invoke(ctx, providers.InvokeRequest{Token: pulumi.GetResource, Args: resource.PropertyMap{"urn": resource.NewString(string(urnOf("test:index:Thing", "b")))}})
	var unknown *pulumi.UnknownResourceError
	if !errors.As(err, &unknown) {
		t.Errorf("getResource of a resource the deployment lacks: %v, want *UnknownResourceError", err)
	}
	if _, err := p.Invoke(ctx, providers.InvokeRequest{Token: "pulumi:pulumi:nope"}); err == nil {
		t.Error("an unknown function succeeded")
	}
}

func TestProviderResources(t *testing.T) {
	n := 0
	p := pulumi.New(pulumi.Config{NewID: func() resource.ID { n++; return resource.ID("id-" + string(rune('0'+n))) }})
	ctx := context.Background()
	urn := urnOf(pulumi.ProviderType, "default")
	cfg := resource.PropertyMap{"anything": resource.NewString("goes")}
	prev, err := p.Create(ctx, providers.CreateRequest{URN: urn, Inputs: cfg, Preview: true})
	if err != nil || prev.ID != providers.UnknownID {
		t.Errorf("create in a preview = %v, %v; want the unknown ID", prev.ID, err)
	}
	created, err := p.Create(ctx, providers.CreateRequest{URN: urn, Inputs: cfg})
	if err != nil || created.ID != "id-1" || !created.Outputs.DeepEquals(cfg) {
		t.Errorf("create = %v %v, %v", created.ID, created.Outputs, err)
	}
	d, err := p.Diff(ctx, providers.DiffRequest{URN: urn, OldInputs: cfg, NewInputs: resource.PropertyMap{}})
	if err != nil || d.Changes != resource.DiffNone {
		t.Errorf("diff = %+v, %v; the package's provider never changes", d, err)
	}
	if _, err := p.Check(ctx, providers.CheckRequest{URN: urnOf("pulumi:pulumi:Nope", "x")}); err == nil {
		t.Error("a type the package lacks was checked")
	}
}

func TestStash(t *testing.T) {
	p := pulumi.New(pulumi.Config{})
	ctx := context.Background()
	urn := urnOf(pulumi.StashType, "s")
	created, err := p.Create(ctx, providers.CreateRequest{URN: urn, Inputs: resource.PropertyMap{"input": resource.NewString("first")}})
	if err != nil || created.ID == "" || !created.Outputs["output"].DeepEquals(resource.NewString("first")) {
		t.Fatalf("create = %v %v, %v", created.ID, created.Outputs, err)
	}
	d, err := p.Diff(ctx, providers.DiffRequest{URN: urn, OldInputs: resource.PropertyMap{"input": resource.NewString("first")},
		NewInputs: resource.PropertyMap{"input": resource.NewString("second")}})
	if err != nil || d.Changes != resource.DiffSome || len(d.ReplaceKeys) > 0 {
		t.Errorf("diff of a new input = %+v, %v; want an update", d, err)
	}
	updated, err := p.Update(ctx, providers.UpdateRequest{URN: urn, ID: created.ID, OldOutputs: created.Outputs,
		NewInputs: resource.PropertyMap{"input": resource.NewString("second")}})
	want := resource.PropertyMap{"input": resource.NewString("second"), "output": resource.NewString("first")}
	if err != nil || !updated.Outputs.DeepEquals(want) {
		t.Errorf("update = %v, %v; want %v (the first value stays stashed)", updated.Outputs, err, want)
	}
}
