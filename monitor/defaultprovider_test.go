package monitor_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

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
