package monitor_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// TestExplicitProvider: an explicit provider reference is validated and
// passed on as given; no default provider is registered.
func TestExplicitProvider(t *testing.T) {
	ref := providers.NewReference(urnOf("pulumi:providers:pkg", "mine"), "p1").String()
	tests := []struct {
		name    string
		ref     string
		wantErr bool
	}{
		{name: "valid", ref: ref},
		{name: "unknown ID of a preview", ref: providers.NewReference(urnOf("pulumi:providers:pkg", "mine"), providers.UnknownID).String()},
		{name: "no ID", ref: string(urnOf("pulumi:providers:pkg", "mine")), wantErr: true},
		{name: "not a provider", ref: providers.NewReference(urnOf(thing, "x"), "p1").String(), wantErr: true},
		{name: "not a URN", ref: "nonsense::p1", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &deployer{}
			m := monitor.New(monitor.Config{Deployer: d})
			g := thingGoal("a")
			g.Provider = tt.ref
			_, err := m.RegisterResource(context.Background(), g)
			if tt.wantErr {
				if !errors.As(err, new(*providers.ReferenceError)) {
					t.Errorf("err = %v, want a ReferenceError", err)
				}
				if len(d.goals()) != 0 {
					t.Errorf("the deployer saw %v, want nothing", d.goals())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]resource.Goal{g}, d.goals()); diff != "" {
				t.Errorf("registrations (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRegistrationsWithoutProvider: components and provider resources are
// passed on without a provider.
func TestRegistrationsWithoutProvider(t *testing.T) {
	d := &deployer{}
	m := monitor.New(monitor.Config{Deployer: d})
	goals := []resource.Goal{
		{Type: "pkg:index:Group", Name: "component"},
		{Type: "pulumi:providers:pkg", Name: "mine", Custom: true},
		{Type: resource.RootStackType, Name: "proj-dev"},
	}
	for _, g := range goals {
		if _, err := m.RegisterResource(context.Background(), g); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(goals, d.goals()); diff != "" {
		t.Errorf("registrations (-want +got):\n%s", diff)
	}
}

// TestTransforms: transforms rewrite each registration in order before
// anything else happens to it; an error fails the registration.
func TestTransforms(t *testing.T) {
	appendTag := func(tag string) monitor.Transform {
		return func(_ context.Context, g *resource.Goal) error {
			prev := g.Inputs["tags"].StringValue()
			g.Inputs = g.Inputs.Copy()
			g.Inputs["tags"] = resource.NewString(prev + tag)
			return nil
		}
	}
	// protectAll also moves the resource to an explicit provider, before
	// default providers are resolved.
	explicit := providers.NewReference(urnOf("pulumi:providers:pkg", "mine"), "p1").String()
	protectAll := func(_ context.Context, g *resource.Goal) error {
		g.Protect, g.Provider = true, explicit
		return nil
	}
	d := &deployer{}
	m := monitor.New(monitor.Config{Deployer: d, Transforms: []monitor.Transform{appendTag("a"), appendTag("b"), protectAll}})
	g := thingGoal("x")
	g.Inputs = resource.PropertyMap{"tags": resource.NewString(">")}
	if _, err := m.RegisterResource(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	want := []resource.Goal{{
		Type: thing, Name: "x", Custom: true, Protect: true, Provider: explicit,
		Inputs: resource.PropertyMap{"tags": resource.NewString(">ab")},
	}}
	if diff := cmp.Diff(want, d.goals()); diff != "" {
		t.Errorf("registrations (-want +got):\n%s", diff)
	}
	if got := g.Inputs["tags"].StringValue(); got != ">" {
		t.Errorf("the caller's goal was changed: tags %q", got)
	}

	refusal := errors.New("names must be lower case")
	calledAfter := false
	d = &deployer{}
	m = monitor.New(monitor.Config{Deployer: d, Transforms: []monitor.Transform{
		func(context.Context, *resource.Goal) error { return refusal },
		func(context.Context, *resource.Goal) error { calledAfter = true; return nil },
	}})
	if _, err := m.RegisterResource(context.Background(), thingGoal("X")); !errors.Is(err, refusal) {
		t.Errorf("err = %v, want the transform's error", err)
	}
	if calledAfter || len(d.goals()) != 0 {
		t.Errorf("after a failed transform: later transform called %v, deployer saw %v", calledAfter, d.goals())
	}
}

// TestReadResource: a read is of a custom resource, with its provider
// resolved like a registration's.
func TestReadResource(t *testing.T) {
	d := &deployer{}
	m := monitor.New(monitor.Config{Deployer: d})
	res, err := m.ReadResource(context.Background(), resource.Goal{Type: thing, Name: "ext", Version: "1.0.0"}, "vol-1")
	if err != nil {
		t.Fatal(err)
	}
	if res.ID != "vol-1" || res.URN != urnOf(thing, "ext") {
		t.Errorf("result = %+v", res)
	}
	want := []readCall{{Goal: resource.Goal{Type: thing, Name: "ext", Version: "1.0.0", Custom: true, Provider: defaultRef("pkg", "1.0.0")}, ID: "vol-1"}}
	if diff := cmp.Diff(want, d.reads); diff != "" {
		t.Errorf("reads (-want +got):\n%s", diff)
	}
	if _, err := m.ReadResource(context.Background(), resource.Goal{Type: thing, Name: "bad", Provider: "nonsense"}, "x"); err == nil {
		t.Error("a read with a bad provider reference succeeded")
	}
}

// TestPreviewProviderReference: a default provider that a preview has not
// created has no ID; its reference carries the unknown ID.
func TestPreviewProviderReference(t *testing.T) {
	d := &deployer{noID: true}
	m := monitor.New(monitor.Config{Deployer: d, Preview: true})
	if _, err := m.RegisterResource(context.Background(), thingGoal("a")); err != nil {
		t.Fatal(err)
	}
	want := providers.NewReference(urnOf("pulumi:providers:pkg", "default"), providers.UnknownID).String()
	for _, g := range d.goals() {
		if g.Type == thing && g.Provider != want {
			t.Errorf("provider = %q, want %q", g.Provider, want)
		}
	}
}

// TestRegisterResourceOutputs passes outputs through to the deployer.
func TestRegisterResourceOutputs(t *testing.T) {
	d := &deployer{}
	m := monitor.New(monitor.Config{Deployer: d})
	outs := resource.PropertyMap{"url": resource.NewString("u")}
	if err := m.RegisterResourceOutputs(context.Background(), urnOf("pkg:index:Group", "g"), outs); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[resource.URN]resource.PropertyMap{urnOf("pkg:index:Group", "g"): outs}, d.outputs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
}

// TestNoProviderErrorMessage says which package and what to do.
func TestNoProviderErrorMessage(t *testing.T) {
	msg := (&monitor.NoProviderError{Type: thing, Package: "pkg"}).Error()
	for _, want := range []string{thing, `"pkg"`, "explicit provider"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not contain %q", msg, want)
		}
	}
}
