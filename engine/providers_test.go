package engine_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// configured wraps a cloud's provider so that every Configure is counted
// and DiffConfig replaces when "region" changes.
type configured struct {
	mu         sync.Mutex
	configures []string // the "region" each Configure saw
}

func (c *configured) wrap(f *providers.Func) *providers.Func {
	f.ConfigureF = func(ctx context.Context, req providers.ConfigureRequest) (providers.ConfigureResponse, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.configures = append(c.configures, req.Inputs["region"].StringValue())
		return providers.ConfigureResponse{AcceptSecrets: true}, nil
	}
	f.DiffConfigF = func(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
		if !req.OldInputs["region"].DeepEquals(req.NewInputs["region"]) {
			return providers.DiffResponse{Changes: resource.DiffSome, ReplaceKeys: []resource.PropertyKey{"region"}}, nil
		}
		return providers.DiffResponse{Changes: resource.DiffNone}, nil
	}
	return f
}

func (c *configured) Configures() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.configures)
}

func providerResources(env *enginetest.Env) []string {
	var out []string
	for _, s := range env.Snapshot().Resources {
		if s.IsProvider() {
			out = append(out, s.URN.Name())
		}
	}
	slices.Sort(out)
	return out
}

func TestDefaultProviderOncePerPackageAndVersion(t *testing.T) {
	c, conf := newCloud(), &configured{}
	env := enginetest.New(t)
	env.Config = map[string]resource.PropertyValue{"test:region": resource.NewString("eu")}
	env.Provider("test", "1.0.0", conf.wrap(c.provider()))
	env.Provider("test", "1.2.0", conf.wrap(c.provider()))
	_, err := env.Up(func(ctx *engine.Context) error {
		for _, n := range []string{"a", "b", "c", "d", "e"} {
			ctx.Register(thing, n, engine.Props{})
		}
		ctx.Register(thing, "pinned1", engine.Props{}, engine.Version("1.2.0"))
		ctx.Register(thing, "pinned2", engine.Props{}, engine.Version("1.2.0"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"default", "default_1_2_0"}, providerResources(env)); diff != "" {
		t.Errorf("provider resources (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"eu", "eu"}, conf.Configures()); diff != "" {
		t.Errorf("configures: one per default provider, from the stack config (-want +got):\n%s", diff)
	}
	def := env.Resource(env.URN("pulumi:providers:test", "default"))
	a := env.Resource(env.URN(thing, "a"))
	if want := providers.NewReference(def.URN, def.ID).String(); a.Provider != want {
		t.Errorf("a.Provider = %q, want %q", a.Provider, want)
	}
}

func TestExplicitProvider(t *testing.T) {
	c, conf := newCloud(), &configured{}
	env := enginetest.New(t)
	env.Provider("test", "", conf.wrap(c.provider()))
	_, err := env.Up(func(ctx *engine.Context) error {
		p := ctx.Provider("test", "west", engine.Props{"region": "us-west"})
		ctx.Register(thing, "a", engine.Props{}, engine.Provider(p))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"west"}, providerResources(env)); diff != "" {
		t.Errorf("no default provider may be created (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"us-west"}, conf.Configures()); diff != "" {
		t.Errorf("configures (-want +got):\n%s", diff)
	}
	west := env.Resource(env.URN("pulumi:providers:test", "west"))
	a := env.Resource(env.URN(thing, "a"))
	if want := providers.NewReference(west.URN, west.ID).String(); a.Provider != want {
		t.Errorf("a.Provider = %q, want %q", a.Provider, want)
	}
}

func TestProviderConfigChangeReplacesItsResources(t *testing.T) {
	c, conf := newCloud(), &configured{}
	env := enginetest.New(t)
	env.Provider("test", "", conf.wrap(c.provider()))
	program := func(region string) engine.Program {
		return func(ctx *engine.Context) error {
			p := ctx.Provider("test", "p", engine.Props{"region": region})
			ctx.Register(thing, "a", engine.Props{"size": 1}, engine.Provider(p))
			ctx.Register(thing, "b", engine.Props{"size": 2}, engine.Provider(p))
			return nil
		}
	}
	if _, err := env.Up(program("eu")); err != nil {
		t.Fatal(err)
	}
	oldA := env.Resource(env.URN(thing, "a"))
	res, err := env.Up(program("us"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"create-replacement a", "create-replacement b", "delete-replaced a", "delete-replaced b", "replace a", "replace b"}
	if diff := cmp.Diff(want, sorted(enginetest.Ops(res, thing))); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	newA := env.Resource(env.URN(thing, "a"))
	if newA.ID == oldA.ID || newA.Provider == oldA.Provider {
		t.Errorf("a was not replaced under the new provider: old %s via %s, new %s via %s", oldA.ID, oldA.Provider, newA.ID, newA.Provider)
	}
	if c.Live() != 2 {
		t.Errorf("%d resources exist, want 2 (the replaced ones deleted)", c.Live())
	}
}

func TestUnknownsFlowThroughPreview(t *testing.T) {
	c := newCloud()
	var seen []resource.PropertyMap
	var mu sync.Mutex
	f := c.provider()
	check := f.CheckF
	f.CheckF = func(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
		mu.Lock()
		seen = append(seen, req.News)
		mu.Unlock()
		return check(ctx, req)
	}
	env := enginetest.New(t)
	env.Provider("test", "", f)
	var awaitErr error
	res, err := env.Preview(func(ctx *engine.Context) error {
		a := ctx.Register(thing, "a", engine.Props{"size": 1})
		b := ctx.Register(thing, "b", engine.Props{"after": a.ID(), "size": a.Output("size")})
		_, awaitErr = b.Output("after").Await(ctx.Context())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(awaitErr, engine.ErrUnknown) {
		t.Errorf("awaiting b.after in a preview: %v, want ErrUnknown", awaitErr)
	}
	var bNews resource.PropertyMap
	for _, m := range seen {
		if _, ok := m["after"]; ok {
			bNews = m
		}
	}
	if bNews == nil || !bNews["after"].IsUnknown() || !bNews["size"].DeepEquals(resource.NewNumber(1)) {
		t.Errorf("b's Check saw %v; want after unknown and size 1 (a known input of a)", bNews)
	}
	if got := enginetest.Ops(res); !cmp.Equal(sorted(got), []string{"create a", "create b"}) {
		t.Errorf("preview steps = %v", got)
	}
	if len(c.Writes()) != 0 {
		t.Errorf("preview wrote: %v", c.Writes())
	}
}
