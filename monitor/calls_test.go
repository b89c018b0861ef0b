package monitor_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// TestInvoke: functions take only known, non-secret arguments, and go to
// the default provider of the token's package unless a provider is named.
func TestInvoke(t *testing.T) {
	var got []providers.InvokeRequest
	prov := &providers.Func{InvokeF: func(_ context.Context, req providers.InvokeRequest) (providers.InvokeResponse, error) {
		got = append(got, req)
		if req.Args["fail"].BoolValue() {
			return providers.InvokeResponse{}, errors.New("provider failed")
		}
		return providers.InvokeResponse{Return: resource.PropertyMap{"ok": resource.NewBool(true)}}, nil
	}}
	ctx := context.Background()

	t.Run("default provider", func(t *testing.T) {
		d, src := &deployer{}, &source{p: prov}
		m := monitor.New(monitor.Config{Deployer: d, Providers: src})
		got = nil
		args := resource.PropertyMap{"name": resource.NewString("n")}
		resp, err := m.Invoke(ctx, monitor.InvokeRequest{Token: "pkg:index:getThing", Args: args, Version: "1.2.3"})
		if err != nil {
			t.Fatal(err)
		}
		if !resp.Return["ok"].BoolValue() {
			t.Errorf("response = %v", resp)
		}
		if diff := cmp.Diff([]providers.InvokeRequest{{Token: "pkg:index:getThing", Args: args}}, got); diff != "" {
			t.Errorf("invoke requests (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([][2]string{{defaultRef("pkg", "1.2.3"), "pkg:index:getThing"}}, src.asked); diff != "" {
			t.Errorf("providers asked for (-want +got):\n%s", diff)
		}
		if provs := d.providerGoals(); len(provs) != 1 || provs[0].Name != "default_1_2_3" {
			t.Errorf("provider registrations = %v, want the default provider of pkg 1.2.3", provs)
		}
	})
	t.Run("explicit provider", func(t *testing.T) {
		d, src := &deployer{}, &source{p: prov}
		m := monitor.New(monitor.Config{Deployer: d, Providers: src})
		ref := providers.NewReference(urnOf("pulumi:providers:pkg", "mine"), "p1").String()
		if _, err := m.Invoke(ctx, monitor.InvokeRequest{Token: "pkg:index:getThing", Provider: ref}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([][2]string{{ref, "pkg:index:getThing"}}, src.asked); diff != "" {
			t.Errorf("providers asked for (-want +got):\n%s", diff)
		}
		if len(d.goals()) != 0 {
			t.Errorf("registrations = %v, want none", d.goals())
		}
	})
	t.Run("refused arguments", func(t *testing.T) {
		for name, args := range map[string]resource.PropertyMap{
			"unknown":        {"a": resource.NewUnknown()},
			"nested unknown": {"a": resource.NewObject(resource.PropertyMap{"b": resource.NewUnknown()})},
			"secret":         {"a": resource.NewSecret(resource.NewString("s"))},
			"nested secret":  {"a": resource.NewArray(resource.NewSecret(resource.NewString("s")))},
		} {
			d, src := &deployer{}, &source{p: prov}
			m := monitor.New(monitor.Config{Deployer: d, Providers: src})
			if _, err := m.Invoke(ctx, monitor.InvokeRequest{Token: "pkg:index:getThing", Args: args}); err == nil {
				t.Errorf("%s: invoke accepted the arguments", name)
			}
			if len(src.asked) != 0 || len(d.goals()) != 0 {
				t.Errorf("%s: a provider was resolved for refused arguments", name)
			}
		}
	})
	t.Run("provider failure", func(t *testing.T) {
		m := monitor.New(monitor.Config{Deployer: &deployer{}, Providers: &source{p: prov}})
		_, err := m.Invoke(ctx, monitor.InvokeRequest{Token: "pkg:index:getThing", Args: resource.PropertyMap{"fail": resource.NewBool(true)}})
		if err == nil {
			t.Error("invoke succeeded")
		}
	})
	t.Run("provider without functions", func(t *testing.T) {
		m := monitor.New(monitor.Config{Deployer: &deployer{}, Providers: &source{p: &providers.Func{}}})
		if _, err := m.Invoke(ctx, monitor.InvokeRequest{Token: "pkg:index:getThing"}); !errors.Is(err, providers.ErrNotImplemented) {
			t.Errorf("err = %v, want ErrNotImplemented", err)
		}
	})
}

// TestCall: a component method goes to the provider with the Monitor as
// its Host, so that it can register resources.
func TestCall(t *testing.T) {
	d := &deployer{}
	var m *monitor.Monitor
	var got providers.CallRequest
	prov := &providers.Func{CallF: func(ctx context.Context, req providers.CallRequest) (providers.CallResponse, error) {
		got = req
		if _, err := req.Host.RegisterResource(ctx, thingGoal("made-by-call")); err != nil {
			return providers.CallResponse{}, err
		}
		return providers.CallResponse{Return: resource.PropertyMap{"n": resource.NewNumber(1)}}, nil
	}}
	src := &source{p: prov}
	// The stack's configuration goes with the call.
	config := map[string]resource.PropertyValue{"proj:greeting": resource.NewString("hi"), "proj:key": resource.NewSecret(resource.NewString("k"))}
	m = monitor.New(monitor.Config{Deployer: d, Providers: src, Preview: true, Config: config})
	req := monitor.CallRequest{
		Token:           "pkg:index:Group/method",
		Args:            resource.PropertyMap{"x": resource.NewString("y")},
		ArgDependencies: map[resource.PropertyKey][]resource.URN{"x": {urnOf(thing, "dep")}},
	}
	resp, err := m.Call(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Return["n"].NumberValue() != 1 {
		t.Errorf("response = %v", resp)
	}
	if got.Host != providers.Host(m) || !got.Preview {
		t.Errorf("call host %v preview %v, want the monitor and a preview", got.Host, got.Preview)
	}
	want := providers.CallRequest{Token: req.Token, Args: req.Args, ArgDependencies: req.ArgDependencies, Host: m, Preview: true, Config: config}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(providers.CallRequest{}, "Host")); diff != "" {
		t.Errorf("call request (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][2]string{{defaultRef("pkg", ""), req.Token}}, src.asked); diff != "" {
		t.Errorf("providers asked for (-want +got):\n%s", diff)
	}
	var names []string
	for _, g := range d.goals() {
		names = append(names, g.Name)
	}
	if diff := cmp.Diff([]string{"default", "made-by-call"}, names); diff != "" {
		t.Errorf("registrations (-want +got):\n%s", diff)
	}

	m = monitor.New(monitor.Config{Deployer: &deployer{}, Providers: &source{p: &providers.Func{}}})
	if _, err := m.Call(context.Background(), req); !errors.Is(err, providers.ErrNotImplemented) {
		t.Errorf("a provider without methods: err = %v, want ErrNotImplemented", err)
	}
}

// TestConstruct: a remote component is sent to its provider's Construct,
// which registers the component's children back through the Monitor; the
// component itself does not reach the Deployer from the Monitor.
func TestConstruct(t *testing.T) {
	d := &deployer{}
	var got providers.ConstructRequest
	prov := &providers.Func{ConstructF: func(ctx context.Context, req providers.ConstructRequest) (providers.ConstructResponse, error) {
		got = req
		urn := resource.NewURN("dev", "proj", "", req.Type, req.Name)
		child := thingGoal(req.Name + "-child")
		child.Parent, child.Version = urn, req.Options.Version
		if _, err := req.Host.RegisterResource(ctx, child); err != nil {
			return providers.ConstructResponse{}, err
		}
		if err := req.Host.RegisterResourceOutputs(ctx, urn, resource.PropertyMap{"url": resource.NewString("u")}); err != nil {
			return providers.ConstructResponse{}, err
		}
		return providers.ConstructResponse{URN: urn, Outputs: resource.PropertyMap{"url": resource.NewString("u")}}, nil
	}}
	src := &source{p: prov}
	// The stack's configuration goes with the component.
	config := map[string]resource.PropertyValue{"proj:greeting": resource.NewString("hi"), "proj:key": resource.NewSecret(resource.NewString("k"))}
	m := monitor.New(monitor.Config{Deployer: d, Providers: src, Config: config})
	goal := resource.Goal{
		Type: "pkg:index:Site", Name: "site", Remote: true, Version: "2.0.0",
		Parent:               urnOf("pkg:index:Group", "g"),
		Inputs:               resource.PropertyMap{"domain": resource.NewString("example.com")},
		PropertyDependencies: map[resource.PropertyKey][]resource.URN{"domain": {urnOf(thing, "dns")}},
		Protect:              true,
	}
	res, err := m.RegisterResource(context.Background(), goal)
	if err != nil {
		t.Fatal(err)
	}
	siteURN := urnOf("pkg:index:Site", "site")
	if diff := cmp.Diff(providers.RegisterResult{URN: siteURN, Outputs: resource.PropertyMap{"url": resource.NewString("u")}}, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	want := providers.ConstructRequest{
		Type: goal.Type, Name: goal.Name, Parent: goal.Parent, Inputs: goal.Inputs,
		InputDependencies: goal.PropertyDependencies, Options: goal, Config: config,
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(providers.ConstructRequest{}, "Host")); diff != "" {
		t.Errorf("construct request (-want +got):\n%s", diff)
	}
	if got.Host != providers.Host(m) {
		t.Errorf("construct host = %v, want the monitor", got.Host)
	}
	if diff := cmp.Diff([][2]string{{defaultRef("pkg", "2.0.0"), goal.Type}}, src.asked); diff != "" {
		t.Errorf("providers asked for (-want +got):\n%s", diff)
	}
	var names []string
	for _, g := range d.goals() {
		names = append(names, g.Type+" "+g.Name)
	}
	wantNames := []string{"pulumi:providers:pkg default_2_0_0", thing + " site-child"}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("registrations (-want +got):\n%s", diff)
	}
	if _, ok := d.outputs[siteURN]; !ok {
		t.Error("the component's outputs did not reach the deployer")
	}

	m = monitor.New(monitor.Config{Deployer: &deployer{}, Providers: &source{p: &providers.Func{}}})
	if _, err := m.RegisterResource(context.Background(), goal); !errors.Is(err, providers.ErrNotImplemented) {
		t.Errorf("a provider without components: err = %v, want ErrNotImplemented", err)
	}
}
