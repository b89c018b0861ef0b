package monitor_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

const thing = "pkg:index:Thing"

// deployer is a fake monitor.Deployer: it records what reaches it and
// answers each registration with a URN built from type and name and the ID
// "id-<name>".
type deployer struct {
	mu         sync.Mutex
	registered []resource.Goal
	reads      []readCall
	outputs    map[resource.URN]resource.PropertyMap
	// gate, when set, holds provider registrations until it is closed;
	// entered, when set, is sent to as one arrives at the gate.
	gate    chan struct{}
	entered chan struct{}
	// failProviders fails provider registrations.
	failProviders error
	// noID answers provider registrations without an ID (as in a
	// preview).
	noID bool
}

type readCall struct {
	Goal resource.Goal
	ID   resource.ID
}

func urnOf(typ, name string) resource.URN { return resource.NewURN("dev", "proj", "", typ, name) }

// RegisterResourceAsync answers at once, except a provider registration
// held at the gate: a goroutine of the fake waits for the gate (or the
// context) and answers then.
func (d *deployer) RegisterResourceAsync(ctx context.Context, goal *resource.Goal, done func(providers.RegisterResult, error)) {
	if !resource.IsProviderType(goal.Type) || d.gate == nil {
		done(d.register(*goal))
		return
	}
	if d.entered != nil {
		d.entered <- struct{}{}
	}
	go func() {
		select {
		case <-d.gate:
			done(d.register(*goal))
		case <-ctx.Done():
			done(providers.RegisterResult{}, context.Cause(ctx))
		}
	}()
}

// register records goal and answers it.
func (d *deployer) register(goal resource.Goal) (providers.RegisterResult, error) {
	isProvider := resource.IsProviderType(goal.Type)
	d.mu.Lock()
	d.registered = append(d.registered, goal)
	d.mu.Unlock()
	if isProvider && d.failProviders != nil {
		return providers.RegisterResult{}, d.failProviders
	}
	res := providers.RegisterResult{URN: urnOf(goal.Type, goal.Name), ID: resource.ID("id-" + goal.Name)}
	if isProvider && d.noID {
		res.ID = ""
	}
	return res, nil
}

func (d *deployer) RegisterResourceOutputs(ctx context.Context, urn resource.URN, outputs resource.PropertyMap) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.outputs == nil {
		d.outputs = map[resource.URN]resource.PropertyMap{}
	}
	d.outputs[urn] = outputs
	return nil
}

func (d *deployer) ReadResource(ctx context.Context, goal resource.Goal, id resource.ID) (providers.RegisterResult, error) {
	d.mu.Lock()
	d.reads = append(d.reads, readCall{goal, id})
	d.mu.Unlock()
	return providers.RegisterResult{URN: urnOf(goal.Type, goal.Name), ID: id}, nil
}

// goals returns what was registered, in the order it arrived.
func (d *deployer) goals() []resource.Goal {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]resource.Goal(nil), d.registered...)
}

// providerGoals returns the provider registrations.
func (d *deployer) providerGoals() []resource.Goal {
	var out []resource.Goal
	for _, g := range d.goals() {
		if resource.IsProviderType(g.Type) {
			out = append(out, g)
		}
	}
	return out
}

// source is a fake providers.ProviderSource serving one provider and
// recording what it was asked for.
type source struct {
	mu    sync.Mutex
	p     providers.Provider
	asked [][2]string
}

func (s *source) Provider(ref, typ string) (providers.Provider, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, [2]string{ref, typ})
	return s.p, nil
}

// defaultRef is the reference the fake deployer gives the default
// provider of pkg and version.
func defaultRef(pkg, version string) string {
	name := providers.DefaultProviderName(version)
	return providers.NewReference(urnOf(providers.ProviderType(pkg), name), resource.ID("id-"+name)).String()
}

func thingGoal(name string) resource.Goal {
	return resource.Goal{Type: thing, Name: name, Custom: true}
}

// sortGoals orders goals by type and name for comparison.
var sortGoals = cmpopts.SortSlices(func(a, b resource.Goal) bool {
	if a.Type != b.Type {
		return a.Type < b.Type
	}
	return a.Name < b.Name
})

// TestDefaultProviderRegisteredOnce: however many registrations of one
// package race for its default provider, it is registered once, and every
// one of them is given its reference.
func TestDefaultProviderRegisteredOnce(t *testing.T) {
	const n = 50
	d := &deployer{gate: make(chan struct{})}
	m := monitor.New(monitor.Config{Deployer: d})
	var started, done sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		started.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			started.Done()
			_, errs[i] = m.RegisterResource(context.Background(), thingGoal(fmt.Sprintf("t%02d", i)))
		}()
	}
	started.Wait()
	close(d.gate) // the first provider registration may now finish
	done.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("registration %d: %v", i, err)
		}
	}
	provs := d.providerGoals()
	if len(provs) != 1 {
		t.Fatalf("provider registrations = %d, want 1", len(provs))
	}
	want := resource.Goal{Type: "pulumi:providers:pkg", Name: "default", Custom: true, Inputs: resource.PropertyMap{}}
	if diff := cmp.Diff(want, provs[0]); diff != "" {
		t.Errorf("provider registration (-want +got):\n%s", diff)
	}
	var things int
	for _, g := range d.goals() {
		if g.Type != thing {
			continue
		}
		things++
		if g.Provider != defaultRef("pkg", "") {
			t.Errorf("%s has provider %q, want %q", g.Name, g.Provider, defaultRef("pkg", ""))
		}
	}
	if things != n {
		t.Errorf("resource registrations = %d, want %d", things, n)
	}
}

// TestDefaultProviderPerPackageAndVersion: one default provider per package
// and version; a pinned version is the provider's "version" input and part
// of its name.
func TestDefaultProviderPerPackageAndVersion(t *testing.T) {
	d := &deployer{}
	m := monitor.New(monitor.Config{Deployer: d})
	regs := []struct {
		typ, name, version string
		wantRef            string
	}{
		{thing, "a", "", defaultRef("pkg", "")},
		{thing, "b", "1.0.0", defaultRef("pkg", "1.0.0")},
		{thing, "c", "1.0.0", defaultRef("pkg", "1.0.0")},
		{thing, "d", "2.0.0-beta.1", defaultRef("pkg", "2.0.0-beta.1")},
		{thing, "e", "", defaultRef("pkg", "")},
		{"other:index:Thing", "f", "1.0.0", defaultRef("other", "1.0.0")},
	}
	for _, r := range regs {
		g := resource.Goal{Type: r.typ, Name: r.name, Custom: true, Version: r.version}
		if _, err := m.RegisterResource(context.Background(), g); err != nil {
			t.Fatal(err)
		}
	}
	wantProviders := []resource.Goal{
		{Type: "pulumi:providers:pkg", Name: "default", Custom: true, Inputs: resource.PropertyMap{}},
		{Type: "pulumi:providers:pkg", Name: "default_1_0_0", Custom: true, Inputs: resource.PropertyMap{"version": resource.NewString("1.0.0")}},
		{Type: "pulumi:providers:pkg", Name: "default_2_0_0_beta_1", Custom: true, Inputs: resource.PropertyMap{"version": resource.NewString("2.0.0-beta.1")}},
		{Type: "pulumi:providers:other", Name: "default_1_0_0", Custom: true, Inputs: resource.PropertyMap{"version": resource.NewString("1.0.0")}},
	}
	if diff := cmp.Diff(wantProviders, d.providerGoals(), sortGoals); diff != "" {
		t.Errorf("provider registrations (-want +got):\n%s", diff)
	}
	got := map[string]string{}
	for _, g := range d.goals() {
		if !resource.IsProviderType(g.Type) {
			got[g.Name] = g.Provider
		}
	}
	for _, r := range regs {
		if got[r.name] != r.wantRef {
			t.Errorf("%s: provider %q, want %q", r.name, got[r.name], r.wantRef)
		}
	}
}

// TestDefaultProviderConfiguration: the stack configuration keys
// "<package>:<key>" of its package become a default provider's inputs,
// secrets staying secret.
func TestDefaultProviderConfiguration(t *testing.T) {
	token := resource.NewSecret(resource.NewString("t0ken"))
	d := &deployer{}
	m := monitor.New(monitor.Config{Deployer: d, Config: map[string]resource.PropertyValue{
		"pkg:region":    resource.NewString("eu-west-1"),
		"pkg:token":     token,
		"pkg:":          resource.NewString("no key"),
		"pkgx:region":   resource.NewString("another package"),
		"other:region":  resource.NewString("another package"),
		"project:stage": resource.NewString("not a provider's"),
	}})
	if _, err := m.RegisterResource(context.Background(), resource.Goal{Type: thing, Name: "a", Custom: true, Version: "3.1.0"}); err != nil {
		t.Fatal(err)
	}
	provs := d.providerGoals()
	if len(provs) != 1 {
		t.Fatalf("provider registrations = %v", provs)
	}
	want := resource.PropertyMap{
		"region":  resource.NewString("eu-west-1"),
		"token":   token,
		"version": resource.NewString("3.1.0"),
	}
	if diff := cmp.Diff(want, provs[0].Inputs); diff != "" {
		t.Errorf("provider inputs (-want +got):\n%s", diff)
	}
	if !provs[0].Inputs["token"].IsSecret() {
		t.Error("a secret configuration value reached the provider in the clear")
	}
}

// TestDynamicProviderConfiguration: the default provider of a dynamic
// provider package gets the whole stack configuration, keys with their
// namespaces, as Pulumi's engine configures pulumi-nodejs and
// pulumi-python.
func TestDynamicProviderConfiguration(t *testing.T) {
	config := map[string]resource.PropertyValue{
		"proj:greeting": resource.NewString("hello"),
		"proj:token":    resource.NewSecret(resource.NewString("t0ken")),
		"aws:region":    resource.NewString("eu-west-1"),
	}
	for _, pkg := range []string{providers.DynamicNodeJS, providers.DynamicPython} {
		d := &deployer{}
		m := monitor.New(monitor.Config{Deployer: d, Config: config})
		typ := pkg + ":dynamic:Resource"
		if _, err := m.RegisterResource(context.Background(), resource.Goal{Type: typ, Name: "a", Custom: true}); err != nil {
			t.Fatal(err)
		}
		provs := d.providerGoals()
		if len(provs) != 1 {
			t.Fatalf("%s: provider registrations = %v", pkg, provs)
		}
		want := resource.PropertyMap{}
		for k, v := range config {
			want[resource.PropertyKey(k)] = v
		}
		if diff := cmp.Diff(want, provs[0].Inputs); diff != "" {
			t.Errorf("%s: provider inputs (-want +got):\n%s", pkg, diff)
		}
	}
}

// TestDefaultProviderFailure: a failed default provider registration fails
// the registrations that need it, with the cause; it is not retried for
// each of them.
func TestDefaultProviderFailure(t *testing.T) {
	cause := errors.New("no plugin for pkg")
	d := &deployer{failProviders: cause}
	m := monitor.New(monitor.Config{Deployer: d})
	for _, name := range []string{"a", "b"} {
		_, err := m.RegisterResource(context.Background(), thingGoal(name))
		if !errors.Is(err, cause) {
			t.Errorf("%s: err = %v, want the provider registration's failure", name, err)
		}
	}
	if got := len(d.goals()); got != 1 {
		t.Errorf("the deployer saw %d registrations, want only the one failed provider registration", got)
	}
}

// TestDefaultProviderWaitIsCancellable: a registration waiting for another
// to register the default provider gives up when its context ends; the
// other goes on.
func TestDefaultProviderWaitIsCancellable(t *testing.T) {
	d := &deployer{gate: make(chan struct{}), entered: make(chan struct{}, 1)}
	m := monitor.New(monitor.Config{Deployer: d})
	firstDone := make(chan error, 1)
	go func() {
		_, err := m.RegisterResource(context.Background(), thingGoal("first"))
		firstDone <- err
	}()
	<-d.entered // the first registration is registering the provider

	cause := errors.New("program stopped")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	if _, err := m.RegisterResource(ctx, thingGoal("second")); !errors.Is(err, cause) {
		t.Errorf("waiting registration: err = %v, want the context's cause", err)
	}
	close(d.gate)
	if err := <-firstDone; err != nil {
		t.Errorf("first registration: %v", err)
	}
	if n := len(d.providerGoals()); n != 1 {
		t.Errorf("provider registrations = %d, want 1", n)
	}
}

// TestDisableDefaultProviders: a package whose default providers are
// disabled needs an explicit provider; other packages are unaffected.
func TestDisableDefaultProviders(t *testing.T) {
	d := &deployer{}
	prov := &providers.Func{InvokeF: func(context.Context, providers.InvokeRequest) (providers.InvokeResponse, error) {
		return providers.InvokeResponse{}, nil
	}}
	m := monitor.New(monitor.Config{Deployer: d, Providers: &source{p: prov}, DisableDefaultProviders: []string{"pkg"}})
	ctx := context.Background()

	_, err := m.RegisterResource(ctx, thingGoal("a"))
	var npe *monitor.NoProviderError
	if !errors.As(err, &npe) || npe.Type != thing || npe.Package != "pkg" {
		t.Errorf("register: err = %v, want NoProviderError for pkg", err)
	}
	if _, err := m.ReadResource(ctx, thingGoal("r"), "id"); !errors.As(err, &npe) {
		t.Errorf("read: err = %v, want NoProviderError", err)
	}
	if _, err := m.Invoke(ctx, monitor.InvokeRequest{Token: "pkg:index:getThing"}); !errors.As(err, &npe) {
		t.Errorf("invoke: err = %v, want NoProviderError", err)
	}
	if len(d.goals()) != 0 {
		t.Errorf("the deployer saw %v, want nothing", d.goals())
	}

	explicit := providers.NewReference(urnOf("pulumi:providers:pkg", "mine"), "p1").String()
	g := thingGoal("b")
	g.Provider = explicit
	if _, err := m.RegisterResource(ctx, g); err != nil {
		t.Errorf("with an explicit provider: %v", err)
	}
	if _, err := m.RegisterResource(ctx, resource.Goal{Type: "other:index:Thing", Name: "c", Custom: true}); err != nil {
		t.Errorf("another package: %v", err)
	}
	want := []resource.Goal{
		{Type: "other:index:Thing", Name: "c", Custom: true, Provider: defaultRef("other", "")},
		{Type: "pulumi:providers:other", Name: "default", Custom: true, Inputs: resource.PropertyMap{}},
		{Type: thing, Name: "b", Custom: true, Provider: explicit},
	}
	if diff := cmp.Diff(want, d.goals(), sortGoals); diff != "" {
		t.Errorf("registrations (-want +got):\n%s", diff)
	}
}

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

// asyncDeployer is deployer with a look at each registration: arrived,
// when set, is called with each goal before it is registered.
type asyncDeployer struct {
	*deployer
	arrived func(*resource.Goal)
}

func (d asyncDeployer) RegisterResourceAsync(ctx context.Context, goal *resource.Goal, done func(providers.RegisterResult, error)) {
	if d.arrived != nil {
		d.arrived(goal)
	}
	d.deployer.RegisterResourceAsync(ctx, goal, done)
}

// TestAsyncRegistrationsWaitForDefaultProvider: asynchronous registrations
// that arrive while their default provider is being registered are held
// back, then reach the deployer in the order they were made, with the
// provider's reference — or all fail with the provider's failure, or with
// their context's cause when it ended while they waited.
func TestAsyncRegistrationsWaitForDefaultProvider(t *testing.T) {
	providerFailure := errors.New("no plugin for pkg")
	stopped := errors.New("program stopped")
	tests := []struct {
		name    string
		fail    error
		cancel  bool
		wantErr error
	}{
		{name: "provider registered"},
		{name: "provider failed", fail: providerFailure, wantErr: providerFailure},
		{name: "context ended while waiting", cancel: true, wantErr: stopped},
	}
	names := []string{"a", "b", "c", "d", "e"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &deployer{gate: make(chan struct{}), entered: make(chan struct{}, 1), failProviders: tt.fail}
			m := monitor.New(monitor.Config{Deployer: asyncDeployer{deployer: d}})
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			var wg sync.WaitGroup
			errs := make([]error, len(names))
			for i, name := range names {
				wg.Add(1)
				g := thingGoal(name)
				m.RegisterResourceAsync(ctx, &g, func(_ providers.RegisterResult, err error) {
					errs[i] = err
					wg.Done()
				})
			}
			<-d.entered // the provider's registration is under way
			if got := len(d.goals()); got != 0 {
				t.Fatalf("%d registrations reached the deployer before their provider was registered", got)
			}
			if tt.cancel {
				cancel(stopped)
			}
			close(d.gate)
			wg.Wait()
			for i, err := range errs {
				if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
					t.Errorf("%s: err = %v, want %v", names[i], err, tt.wantErr)
				}
			}
			var gotNames []string
			for _, g := range d.goals() {
				if g.Type != thing {
					continue
				}
				gotNames = append(gotNames, g.Name)
				if g.Provider != defaultRef("pkg", "") {
					t.Errorf("%s has provider %q, want %q", g.Name, g.Provider, defaultRef("pkg", ""))
				}
			}
			var wantNames []string
			if tt.wantErr == nil {
				wantNames = names
			}
			if diff := cmp.Diff(wantNames, gotNames); diff != "" {
				t.Errorf("registrations reaching the deployer (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParkedRegistrationsAreNotOvertaken: a registration made while the
// parked ones are being continued (here, by the deployer as the first one
// reaches it) queues behind them instead of reaching the deployer first.
func TestParkedRegistrationsAreNotOvertaken(t *testing.T) {
	d := &deployer{gate: make(chan struct{}), entered: make(chan struct{}, 1)}
	var m *monitor.Monitor
	var wg sync.WaitGroup
	register := func(name string) {
		wg.Add(1)
		g := thingGoal(name)
		m.RegisterResourceAsync(context.Background(), &g, func(_ providers.RegisterResult, err error) {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			wg.Done()
		})
	}
	m = monitor.New(monitor.Config{Deployer: asyncDeployer{deployer: d, arrived: func(g *resource.Goal) {
		if g.Name == "a" {
			register("late")
		}
	}}})
	for _, name := range []string{"a", "b", "c"} {
		register(name)
	}
	<-d.entered
	close(d.gate)
	wg.Wait()
	var got []string
	for _, g := range d.goals() {
		if g.Type == thing {
			got = append(got, g.Name)
		}
	}
	if diff := cmp.Diff([]string{"a", "b", "c", "late"}, got); diff != "" {
		t.Errorf("order reaching the deployer (-want +got):\n%s", diff)
	}
}
