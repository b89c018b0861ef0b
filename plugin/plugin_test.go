package plugin_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/plugin"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/providertest"
	"github.com/groundwork-iac/groundwork/resource"
)

// lines collects a plugin's diagnostics.
type lines struct {
	mu sync.Mutex
	l  []string
}

func (l *lines) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.l = append(l.l, s)
}

func (l *lines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.l...)
}

// launch starts the test plugin by PATH and closes it when the test ends.
func launch(t *testing.T, opts plugin.Options) *plugin.Provider {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	p, err := plugin.Launch(ctx, pluginName, opts)
	if err != nil {
		t.Fatalf("Launch: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return p
}

func configure(t *testing.T, p *plugin.Provider, config resource.PropertyMap) providers.ConfigureResponse {
	t.Helper()
	resp, err := p.Configure(t.Context(), providers.ConfigureRequest{Inputs: config, AcceptSecrets: true, AcceptResources: true})
	if err != nil {
		t.Fatalf("Configure: %v", err)
	}
	return resp
}

func urn(name string) resource.URN {
	return resource.NewURN("dev", "proj", "", "mem:index:Thing", name)
}

// The plugin server in front of providertest.Memory, launched by PATH and
// driven through the client, passes the conformance suite.
func TestConformanceOverGRPC(t *testing.T) {
	p := launch(t, plugin.Options{})
	configure(t, p, resource.PropertyMap{})
	if p.Version() != "1.2.3" {
		t.Errorf("Version() = %q, want the version the plugin reports, 1.2.3", p.Version())
	}
	providertest.Run(t, providertest.Harness{
		New:     func(*testing.T) providers.Provider { return p },
		Type:    "mem:index:Thing",
		Inputs:  resource.PropertyMap{"name": resource.NewString("a"), "size": resource.NewNumber(1)},
		Update:  resource.PropertyMap{"name": resource.NewString("a"), "size": resource.NewNumber(2)},
		Replace: resource.PropertyMap{"name": resource.NewString("b"), "size": resource.NewNumber(1)},
		Count: func() int {
			resp, err := p.Invoke(context.Background(), providers.InvokeRequest{Token: "test:index:count"})
			if err != nil {
				t.Fatalf("count: %v", err)
			}
			return int(resp.Return["count"].NumberValue())
		},
		RespectsCancellation: true,
	})
}

// A plugin that dies mid-call fails the call with an error naming the
// plugin and quoting its stderr; later calls fail at once.
func TestCrashMidCreate(t *testing.T) {
	var diag lines
	p := launch(t, plugin.Options{Diagnostics: diag.add})
	configure(t, p, nil)
	start := time.Now()
	_, err := p.Create(t.Context(), providers.CreateRequest{URN: urn("boom"), Inputs: resource.PropertyMap{"crash": resource.NewBool(true)}})
	var exit *plugin.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("Create in a crashing plugin = %v, want an *plugin.ExitError", err)
	}
	for _, want := range []string{"plugin gwtest", "exit status 3", "testplugin: about to crash in Create", "Create " + string(urn("boom"))} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the crash took %v to be reported", d)
	}
	if got := diag.all(); len(got) < 2 || !strings.Contains(strings.Join(got, "\n"), "about to crash") {
		t.Errorf("diagnostics = %q, want the plugin's stderr lines", got)
	}
	start = time.Now()
	_, err = p.Check(t.Context(), providers.CheckRequest{URN: urn("after"), News: resource.PropertyMap{}})
	if !errors.As(err, &exit) || time.Since(start) > time.Second {
		t.Errorf("Check after the crash = %v after %v, want an *plugin.ExitError at once", err, time.Since(start))
	}
}

// With Options.Secrets, a secret the plugin writes to stderr is masked in
// the lines given to Diagnostics and in those its ExitError quotes.
func TestStderrMasked(t *testing.T) {
	var diag lines
	secrets := &resource.SecretFilter{}
	p := launch(t, plugin.Options{Diagnostics: diag.add, Secrets: secrets})
	configure(t, p, nil)
	secrets.AddStrings("hunter22")
	_, err := p.Create(t.Context(), providers.CreateRequest{URN: urn("leaky"), Inputs: resource.PropertyMap{
		"leak": resource.NewSecret(resource.NewString("hunter22")), "leakIn": resource.NewString("stderr"),
	}})
	var exit *plugin.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("Create = %v, want an *plugin.ExitError", err)
	}
	want := "testplugin: given [secret]"
	if !slices.Contains(exit.Stderr, want) || strings.Contains(err.Error(), "hunter22") {
		t.Errorf("ExitError quotes %q (%v); want %q, the secret masked", exit.Stderr, err, want)
	}
	if got := diag.all(); !slices.Contains(got, want) || strings.Contains(strings.Join(got, "\n"), "hunter22") {
		t.Errorf("diagnostics = %q, want %q, the secret masked", got, want)
	}
}

// Configuration with unknown (and secret) values reaches the provider
// intact.
func TestConfigureWithUnknowns(t *testing.T) {
	p := launch(t, plugin.Options{})
	config := resource.PropertyMap{
		"region": resource.NewUnknown(),
		"nested": resource.NewObject(resource.PropertyMap{"a": resource.NewUnknown(), "b": resource.NewString("x")}),
		"token":  resource.NewSecret(resource.NewString("s3cret")),
		"list":   resource.NewArray(resource.NewNumber(1), resource.NewUnknown()),
	}
	resp := configure(t, p, config)
	if !resp.AcceptSecrets || !resp.AcceptResources || !resp.SupportsPreview {
		t.Errorf("Configure = %+v, want what the provider answered", resp)
	}
	got, err := p.Invoke(t.Context(), providers.InvokeRequest{Token: "test:index:config"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(config, got.Return); diff != "" {
		t.Errorf("configuration the provider received (-sent +got):\n%s", diff)
	}
}

// A missing ability answers an error wrapping providers.ErrNotImplemented,
// so the package functions apply their fallbacks.
func TestNotImplemented(t *testing.T) {
	p := launch(t, plugin.Options{})
	configure(t, p, nil)
	ctx := t.Context()
	if _, err := p.GetSchema(ctx, providers.GetSchemaRequest{}); !errors.Is(err, providers.ErrNotImplemented) {
		t.Errorf("GetSchema = %v, want ErrNotImplemented", err)
	}
	if _, err := p.Parameterize(ctx, providers.ParameterizeRequest{Args: []string{"x"}}); !errors.Is(err, providers.ErrNotImplemented) {
		t.Errorf("Parameterize = %v, want ErrNotImplemented", err)
	}
	var got []resource.PropertyMap
	err := providers.StreamInvoke(ctx, p, providers.InvokeRequest{Token: "test:index:echo", Args: resource.PropertyMap{"a": resource.NewBool(true)}},
		func(m resource.PropertyMap) error { got = append(got, m); return nil })
	if err != nil || len(got) != 1 || !got[0]["a"].BoolValue() {
		t.Errorf("StreamInvoke fallback = %v, %v; want one result echoing the args", got, err)
	}
	if _, err := p.Construct(ctx, providers.ConstructRequest{URN: urn("c"), Type: "mem:index:Component", Name: "c"}); !errors.Is(err, plugin.ErrNoMonitor) {
		t.Errorf("Construct without a monitor = %v, want ErrNoMonitor", err)
	}
	if err := providers.SignalCancellation(ctx, p); err != nil {
		t.Errorf("SignalCancellation: %v", err)
	}
}

// A partial failure crosses the wire as a providers.InitError.
func TestInitErrorRoundTrip(t *testing.T) {
	p := launch(t, plugin.Options{})
	configure(t, p, nil)
	inputs := resource.PropertyMap{"partial": resource.NewBool(true), "name": resource.NewString("p")}
	_, err := p.Create(t.Context(), providers.CreateRequest{URN: urn("partial"), Inputs: inputs})
	var ie *providers.InitError
	if !errors.As(err, &ie) {
		t.Fatalf("Create = %v, want a *providers.InitError", err)
	}
	want := &providers.InitError{
		ID:      "partial-1",
		Inputs:  inputs,
		Outputs: resource.PropertyMap{"half": resource.NewBool(true), "secret": resource.NewSecret(resource.NewString("s"))},
		Reasons: []string{"the thing was created but did not come up", "health check failed"},
	}
	if diff := cmp.Diff(want, ie); diff != "" {
		t.Errorf("InitError (-want +got):\n%s", diff)
	}
}
